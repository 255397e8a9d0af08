/** The registry of sensor definitions, keyed by catalog sensor name. */
import type { SensorDefinition } from '../sensorDefinition.js';
import { ACCEPTED_VALUES_SENSORS } from './acceptedValuesSensors.js';
import { COLUMN_VALUE_SENSORS } from './columnValueSensors.js';
import { CUSTOM_SQL_SENSORS } from './customSqlSensors.js';
import { FORMAT_SENSORS } from './formatSensors.js';
import { REFERENCE_SENSORS } from './referenceSensors.js';
import { SCHEMA_SENSORS } from './schemaSensors.js';
import { TABLE_SENSORS } from './tableSensors.js';
import { TEXT_SENSORS } from './textSensors.js';

export const SENSOR_DEFINITIONS: ReadonlyMap<string, SensorDefinition> = new Map(
  Object.entries({
    ...TABLE_SENSORS,
    ...COLUMN_VALUE_SENSORS,
    ...TEXT_SENSORS,
    ...FORMAT_SENSORS,
    ...ACCEPTED_VALUES_SENSORS,
    ...REFERENCE_SENSORS,
    ...CUSTOM_SQL_SENSORS,
    ...SCHEMA_SENSORS,
  }),
);

/** Catalog sensors without a definition, and why (listed in docs/sensors.md). */
export const NOT_IMPLEMENTED: Readonly<Record<string, string>> = {
  'column/sampling/column_samples': 'returns sample values, not a number; no check uses it (statistics collection samples values itself)',
};
