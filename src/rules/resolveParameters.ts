/**
 * Reads the thresholds of one severity against the rule's parameter list in the catalog: an absent parameter
 * takes the catalog default, an absent required parameter without a default is an error, and so is an
 * unknown name (a misspelled threshold must not silently become the default) or a value of the wrong type.
 * The errors are RULE_INPUT_INVALID, which the check runner stores as the check's execution error.
 */
import type { CatalogParameter, CatalogRule } from '../catalog/index.js';
import { DqError, type JsonValue } from '../model/index.js';
import type { RuleParameters } from './ruleTypes.js';

/** Settings of the threshold object that are not rule parameters. */
const SETTINGS = new Set(['disabled']);

export interface ResolvedParameters {
  /** A number parameter; undefined when absent with no default (an optional bound that is not set). */
  number(name: string): number | undefined;
  /** A number parameter that must have a value (set or defaulted). */
  requiredNumber(name: string): number;
  boolean(name: string): boolean | undefined;
  string(name: string): string | undefined;
}

export function resolveParameters(rule: CatalogRule, given: RuleParameters | undefined): ResolvedParameters {
  const values = new Map<string, JsonValue>();
  const known = new Map(rule.parameters.map((parameter) => [parameter.name, parameter]));
  for (const [name, value] of Object.entries(given ?? {})) {
    if (SETTINGS.has(name)) continue;
    const parameter = known.get(name);
    if (!parameter) {
      const names = [...known.keys()];
      throw new DqError(
        'RULE_INPUT_INVALID',
        `unknown parameter "${name}" of rule ${rule.name}; ${names.length ? `it takes ${names.join(', ')}` : 'it takes none'}`,
        { rule: rule.name, parameter: name },
      );
    }
    if (value !== undefined && value !== null) values.set(name, checkType(rule, parameter, value));
  }
  for (const parameter of rule.parameters) {
    if (values.has(parameter.name)) continue;
    if (parameter.default !== null && parameter.default !== undefined) values.set(parameter.name, parameter.default);
  }

  const read = (name: string): JsonValue | undefined => {
    if (!known.has(name)) throw new Error(`rule ${rule.name} has no parameter ${name} in the catalog`);
    return values.get(name);
  };
  return {
    number: (name) => read(name) as number | undefined,
    requiredNumber: (name) => {
      const value = read(name);
      if (typeof value !== 'number') {
        throw new DqError('RULE_INPUT_INVALID', `rule ${rule.name} needs the parameter ${name}, which has no default`, {
          rule: rule.name,
          parameter: name,
        });
      }
      return value;
    },
    boolean: (name) => read(name) as boolean | undefined,
    string: (name) => read(name) as string | undefined,
  };
}

function checkType(rule: CatalogRule, parameter: CatalogParameter, value: JsonValue): JsonValue {
  const fail = (expected: string): never => {
    throw new DqError(
      'RULE_INPUT_INVALID',
      `parameter ${parameter.name} of rule ${rule.name} must be ${expected}, got ${JSON.stringify(value)}`,
      { rule: rule.name, parameter: parameter.name },
    );
  };
  switch (parameter.type) {
    case 'double':
      if (typeof value !== 'number' || !Number.isFinite(value)) fail('a number');
      return value;
    case 'integer':
    case 'long':
      if (typeof value !== 'number' || !Number.isInteger(value)) fail('an integer');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') fail('true or false');
      return value;
    case 'enum':
      if (typeof value !== 'string' || !(parameter.allowedValues ?? []).includes(value)) {
        fail(`one of ${(parameter.allowedValues ?? []).join(', ')}`);
      }
      return value;
    case 'string':
      if (typeof value !== 'string') fail('a string');
      return value;
    default:
      return value;
  }
}
