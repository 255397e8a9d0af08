/**
 * The built-in check catalog, read once from catalog/check-catalog.json on first use and kept for the life of
 * the process (it is part of the installed package and never changes while dqctl runs). Lookups answer the
 * questions validation asks: does this check exist, where does it belong, which sensor and rule does it use,
 * which checks may be written in this container.
 */
import { readFileSync } from 'node:fs';
import { CHECK_TYPES, isJsonObject, TIME_SCALES, type JsonObject, type JsonValue } from '../model/index.js';
import type {
  CatalogCheck,
  CatalogParameter,
  CatalogProviderDefinition,
  CatalogRule,
  CatalogSensor,
  CheckTarget,
  ParameterType,
  RuleTimeWindow,
} from './catalogTypes.js';
import { containerId, type CheckContainer } from './checkContainers.js';
import { CATALOG_FILE } from './packagePaths.js';

export interface CheckCatalog {
  readonly checks: readonly CatalogCheck[];
  readonly sensors: ReadonlyMap<string, CatalogSensor>;
  readonly rules: ReadonlyMap<string, CatalogRule>;
  checkByName(name: string): CatalogCheck | undefined;
  /** Checks that may be written in a container, optionally only those of one category; catalog order. */
  checksIn(container: CheckContainer, category?: string): readonly CatalogCheck[];
  /** Categories of a container, sorted by name. */
  categoriesOf(container: CheckContainer): readonly string[];
  /** All categories of a target in any container (e.g. to say that `nulls` is a column category). */
  categoriesOfTarget(target: CheckTarget): ReadonlySet<string>;
  sensorOf(check: CatalogCheck): CatalogSensor;
  ruleOf(check: CatalogCheck): CatalogRule;
}

let cached: CheckCatalog | undefined;
let cachedJson: unknown;

/** The catalog shipped with dqctl; parsed on the first call, the same object afterwards. */
export function getCheckCatalog(): CheckCatalog {
  cached ??= parseCheckCatalog(checkCatalogJson());
  return cached;
}

/**
 * catalog/check-catalog.json as parsed JSON, read once per process: the typed catalog above and the parts it does
 * not carry (the sensors' PostgreSQL flags, datasource/sensors/sensorFlags.ts) both come from this one parse.
 * Read-only: callers must not change it.
 */
export function checkCatalogJson(): unknown {
  cachedJson ??= JSON.parse(readFileSync(CATALOG_FILE, 'utf8')) as unknown;
  return cachedJson;
}

const PARAMETER_TYPES: ReadonlySet<string> = new Set<ParameterType>([
  'string', 'boolean', 'integer', 'long', 'double', 'date', 'enum', 'string_list', 'integer_list',
]);

/** Builds the typed, indexed catalog from the parsed JSON; throws on a malformed file (a packaging bug). */
export function parseCheckCatalog(json: unknown): CheckCatalog {
  if (!isJsonObject(json) || !Array.isArray(json.checks) || !isJsonObject(json.sensors) || !isJsonObject(json.rules)) {
    throw new Error('check catalog: expected an object with checks[], sensors{} and rules{}');
  }
  const sensors = new Map<string, CatalogSensor>();
  for (const [name, raw] of Object.entries(json.sensors)) sensors.set(name, parseSensor(name, objectAt(raw, name)));
  const rules = new Map<string, CatalogRule>();
  for (const [name, raw] of Object.entries(json.rules)) rules.set(name, parseRule(name, objectAt(raw, name)));
  const checks = json.checks.map((raw, index) => parseCheck(objectAt(raw, `checks[${index}]`)));

  const byName = new Map<string, CatalogCheck>();
  const byContainer = new Map<string, CatalogCheck[]>();
  const byContainerCategory = new Map<string, CatalogCheck[]>();
  const targetCategories = new Map<CheckTarget, Set<string>>([['table', new Set()], ['column', new Set()]]);
  for (const check of checks) {
    if (byName.has(check.checkName)) throw new Error(`check catalog: duplicate check ${check.checkName}`);
    if (!sensors.has(check.sensor)) throw new Error(`check catalog: ${check.checkName} uses unknown sensor ${check.sensor}`);
    if (!rules.has(check.rule)) throw new Error(`check catalog: ${check.checkName} uses unknown rule ${check.rule}`);
    byName.set(check.checkName, check);
    const id = containerId(check);
    push(byContainer, id, check);
    push(byContainerCategory, `${id}#${check.category}`, check);
    targetCategories.get(check.target)!.add(check.category);
  }
  const categories = new Map<string, string[]>();
  for (const [id, list] of byContainer) categories.set(id, [...new Set(list.map((c) => c.category))].sort());

  return {
    checks,
    sensors,
    rules,
    checkByName: (name) => byName.get(name),
    checksIn: (container, category) =>
      (category === undefined ? byContainer.get(containerId(container)) : byContainerCategory.get(`${containerId(container)}#${category}`)) ?? [],
    categoriesOf: (container) => categories.get(containerId(container)) ?? [],
    categoriesOfTarget: (target) => targetCategories.get(target)!,
    sensorOf: (check) => sensors.get(check.sensor)!,
    ruleOf: (check) => rules.get(check.rule)!,
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function objectAt(value: unknown, where: string): JsonObject {
  if (!isJsonObject(value)) throw new Error(`check catalog: ${where} is not an object`);
  return value;
}

function stringAt(object: JsonObject, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== 'string') throw new Error(`check catalog: ${where}.${key} is not a string`);
  return value;
}

function oneOf<T extends string>(object: JsonObject, key: string, allowed: readonly T[], where: string): T {
  const value = object[key];
  if (!(allowed as readonly unknown[]).includes(value)) throw new Error(`check catalog: ${where}.${key} = ${JSON.stringify(value)}`);
  return value as T;
}

function parseCheck(raw: JsonObject): CatalogCheck {
  const where = `check ${String(raw.check_name)}`;
  return {
    checkName: stringAt(raw, 'check_name', where),
    target: oneOf(raw, 'target', ['table', 'column'] as const, where),
    checkType: oneOf(raw, 'check_type', CHECK_TYPES, where),
    timeScale: raw.time_scale === null ? null : oneOf(raw, 'time_scale', TIME_SCALES, where),
    category: stringAt(raw, 'category', where),
    sensor: stringAt(raw, 'sensor', where),
    rule: stringAt(raw, 'rule', where),
    defaultSeverity: oneOf(raw, 'default_severity', ['warning', 'error'] as const, where),
    standard: raw.standard === true,
    baseName: stringAt(raw, 'base_name', where),
  };
}

function parseParameters(value: JsonValue | undefined, where: string): CatalogParameter[] {
  if (!Array.isArray(value)) throw new Error(`check catalog: ${where}.parameters is not an array`);
  return value.map((raw, index) => {
    const object = objectAt(raw, `${where}.parameters[${index}]`);
    const name = stringAt(object, 'name', where);
    const type = stringAt(object, 'type', `${where}.${name}`);
    if (!PARAMETER_TYPES.has(type)) throw new Error(`check catalog: ${where}.${name} has unknown type ${type}`);
    const allowed = object.allowed_values;
    const parameter: CatalogParameter = {
      name,
      type: type as ParameterType,
      required: object.required === true,
      default: object.default ?? null,
      allowedValues: Array.isArray(allowed) ? allowed.map(String) : null,
    };
    if (typeof object.hint === 'string') parameter.hint = object.hint;
    return parameter;
  });
}

function parseSensor(name: string, raw: JsonObject): CatalogSensor {
  const where = `sensor ${name}`;
  const sensor: CatalogSensor = {
    name,
    target: oneOf(raw, 'target', ['table', 'column'] as const, where),
    category: stringAt(raw, 'category', where),
    parameters: parseParameters(raw.parameters, where),
    postgresql: raw.postgresql === true,
    providers: Array.isArray(raw.providers) ? raw.providers.map(String) : [],
    requiresEventTimestamp: raw.requires_event_timestamp === true,
    requiresIngestionTimestamp: raw.requires_ingestion_timestamp === true,
  };
  if (typeof raw.default_value === 'number') sensor.defaultValue = raw.default_value;
  const flags = raw.postgresql_flags;
  if (isJsonObject(flags)) sensor.postgresqlDefinition = parseProviderDefinition(flags, `${where}.postgresql_flags`);
  return sensor;
}

function parseProviderDefinition(flags: JsonObject, where: string): CatalogProviderDefinition {
  return {
    type: oneOf(flags, 'implementation', ['sql_template', 'java_class'] as const, where),
    supportsGrouping: flags.supports_grouping === true,
    supportsPartitionedChecks: flags.supports_partitioned_checks === true,
    disableMergingQueries: flags.disable_merging_queries === true,
  };
}

function parseRule(name: string, raw: JsonObject): CatalogRule {
  const where = `rule ${name}`;
  let timeWindow: RuleTimeWindow | null = null;
  if (isJsonObject(raw.time_window)) {
    timeWindow = {
      predictionTimeWindow: Number(raw.time_window.prediction_time_window),
      minPeriodsWithReadouts: Number(raw.time_window.min_periods_with_readouts),
      historicDataPointGrouping: String(raw.time_window.historic_data_point_grouping),
    };
  }
  return {
    name,
    mode: oneOf(raw, 'mode', ['current_value', 'previous_readouts'] as const, where),
    timeWindow,
    parameters: parseParameters(raw.parameters, where),
    config: isJsonObject(raw.config) ? raw.config : {},
  };
}
