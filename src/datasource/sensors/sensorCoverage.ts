/** Which catalog sensors have SQL here, and what each value means (the table of docs/sensors.md is checked against it). */
import { NOT_IMPLEMENTED, SENSOR_DEFINITIONS } from './definitions/index.js';

export function implementedSensors(): string[] {
  return [...SENSOR_DEFINITIONS.keys()].sort();
}

/** The meaning of a sensor's value, or why it is not implemented; undefined for a name the catalog lacks. */
export function sensorMeaning(sensorName: string): { implemented: boolean; text: string } | undefined {
  const definition = SENSOR_DEFINITIONS.get(sensorName);
  if (definition !== undefined) return { implemented: true, text: definition.meaning };
  const reason = NOT_IMPLEMENTED[sensorName];
  return reason === undefined ? undefined : { implemented: false, text: reason };
}
