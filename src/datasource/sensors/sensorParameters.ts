/**
 * A sensor's parameters as the SQL builders see them: the catalog's parameters with their defaults applied and
 * their types checked, so a builder can rely on a `double` being a finite number and a `string_list` an array of
 * strings. A missing required parameter or a value of the wrong type is a build error of that sensor only.
 */
import type { CatalogParameter, CatalogSensor } from '../../catalog/index.js';
import type { JsonValue } from '../../model/index.js';
import { SensorBuildError } from './sensorDefinition.js';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export function resolveSensorParameters(
  sensor: CatalogSensor,
  given: Readonly<Record<string, JsonValue>> | undefined,
): Map<string, JsonValue> {
  const values = new Map<string, JsonValue>();
  for (const parameter of sensor.parameters) {
    const raw = given?.[parameter.name];
    const value = raw === undefined || raw === null ? parameter.default : raw;
    if (value === null || value === undefined) {
      if (parameter.required) throw new SensorBuildError(`the sensor parameter "${parameter.name}" is required`);
      values.set(parameter.name, null);
      continue;
    }
    values.set(parameter.name, checked(parameter, value));
  }
  return values;
}

function checked(parameter: CatalogParameter, value: JsonValue): JsonValue {
  const wrong = (expected: string): never => {
    throw new SensorBuildError(`the sensor parameter "${parameter.name}" must be ${expected}, not ${JSON.stringify(value)}`);
  };
  switch (parameter.type) {
    case 'string':
      return typeof value === 'string' ? value : wrong('a string');
    case 'boolean':
      return typeof value === 'boolean' ? value : wrong('true or false');
    case 'integer':
    case 'long':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : wrong('an integer');
    case 'double':
      return typeof value === 'number' && Number.isFinite(value) ? value : wrong('a number');
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? value : wrong('a date (YYYY-MM-DD)');
    case 'enum':
      return typeof value === 'string' && (parameter.allowedValues ?? []).includes(value)
        ? value
        : wrong(`one of ${(parameter.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`);
    case 'string_list':
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : wrong('a list of strings');
    case 'integer_list':
      return Array.isArray(value) && value.every((item) => typeof item === 'number' && Number.isSafeInteger(item))
        ? value
        : wrong('a list of integers');
    default: {
      const unreachable: never = parameter.type;
      throw new SensorBuildError(`unknown parameter type ${String(unreachable)}`);
    }
  }
}
