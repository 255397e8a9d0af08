/**
 * Everything about one requested sensor that does not depend on the query it joins: its catalog entry, its
 * definition, its PostgreSQL flags and its checked parameters. A problem here rejects the sensor alone.
 */
import { getCheckCatalog, type CatalogSensor } from '../../catalog/index.js';
import type { JsonValue } from '../../model/index.js';
import { NOT_IMPLEMENTED, SENSOR_DEFINITIONS } from './definitions/index.js';
import { SensorBuildError, type SensorDefinition } from './sensorDefinition.js';
import { sensorFlagsOf, type SensorFlags } from './sensorFlags.js';
import { resolveSensorParameters } from './sensorParameters.js';
import type { SensorRequest, TableQueryRequest } from './sensorTypes.js';

export interface PreparedSensor {
  request: SensorRequest;
  catalog: CatalogSensor;
  definition: SensorDefinition;
  flags: SensorFlags;
  parameters: Map<string, JsonValue>;
}

export function prepareSensor(sensor: SensorRequest, request: TableQueryRequest): PreparedSensor {
  const catalog = getCheckCatalog().sensors.get(sensor.sensorName);
  if (catalog === undefined) throw new SensorBuildError(`unknown sensor ${JSON.stringify(sensor.sensorName)}`);
  const definition = SENSOR_DEFINITIONS.get(sensor.sensorName);
  if (definition === undefined) {
    throw new SensorBuildError(`the sensor ${sensor.sensorName} is not implemented: ${NOT_IMPLEMENTED[sensor.sensorName] ?? 'no SQL for PostgreSQL yet'}`);
  }
  const flags = sensorFlagsOf(sensor.sensorName) ?? { supportsGrouping: true, supportsPartitionedChecks: true, disableMergingQueries: false };
  if (definition.needsColumn && (sensor.column === undefined || sensor.column === '')) {
    throw new SensorBuildError(`the column sensor ${sensor.sensorName} needs a column`);
  }
  if (request.partitioning !== undefined && !flags.supportsPartitionedChecks) {
    throw new SensorBuildError(`the sensor ${sensor.sensorName} does not support partitioned checks`);
  }
  if (catalog.requiresEventTimestamp && !request.timestampColumns?.eventTimestampColumn) {
    throw new SensorBuildError(`${sensor.sensorName} needs timestamp_columns.event_timestamp_column of the table`);
  }
  if (catalog.requiresIngestionTimestamp && !request.timestampColumns?.ingestionTimestampColumn) {
    throw new SensorBuildError(`${sensor.sensorName} needs timestamp_columns.ingestion_timestamp_column of the table`);
  }
  return { request: sensor, catalog, definition, flags, parameters: resolveSensorParameters(catalog, sensor.parameters) };
}
