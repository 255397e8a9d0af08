/**
 * Synthetic DQOps user homes for benchmarks: connections, tables (columns, checks, lineage), table and column
 * policies, custom rules and a dqctl.yaml, all deterministic for a seed. Every check name, container, category
 * and parameter is validated against catalog/check-catalog.json while the files are generated, so a generated
 * repository is always valid.
 *
 *   node --import tsx bench/generateRepository.ts <dir> [tables] [--seed N] [--connections N] [--policies N]
 *        [--rules N] [--columns N]
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface GenerateOptions {
  /** Number of tables (default 10,000). */
  tables?: number;
  /** Number of connections (default 50). */
  connections?: number;
  /** Number of policies, half table and half column (default 200). */
  policies?: number;
  /** Number of custom rules (default 20). */
  rules?: number;
  /** Columns per table (default 10). */
  columnsPerTable?: number;
  /** PRNG seed (default 1). */
  seed?: number;
}

export interface GenerateResult {
  files: number;
  bytes: number;
}

const DEFAULTS: Required<GenerateOptions> = { tables: 10_000, connections: 50, policies: 200, rules: 20, columnsPerTable: 10, seed: 1 };
const WRITE_BATCH = 128;
const HERE = dirname(fileURLToPath(import.meta.url));
const SCHEMAS_DIR = resolve(HERE, '..', 'schemas');
const CATALOG_FILE = resolve(HERE, '..', 'catalog', 'check-catalog.json');

// ---------------------------------------------------------------------------------------------------------------
// Seeded PRNG (mulberry32) and helpers

export type Rng = () => number;

export function createRng(seed: number): Rng {
  let a = seed >>> 0 || 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
const chance = (rng: Rng, p: number): boolean => rng() < p;
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// A small YAML writer: block style, plain scalars where safe, JSON-quoted strings otherwise (JSON strings are valid
// YAML double-quoted scalars). Doubles wrapped in Dbl keep a decimal point (`0.0`), as DQOps writes them.

class Dbl {
  constructor(readonly value: number) {}
}
const dbl = (value: number): Dbl => new Dbl(value);

type YamlValue = string | number | boolean | null | Dbl | YamlValue[] | { [key: string]: YamlValue };
type YamlMap = { [key: string]: YamlValue };

const PLAIN = /^[A-Za-z_][A-Za-z0-9_.\-/]*$/;
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i;

function scalar(value: string | number | boolean | null | Dbl): string {
  if (value === null) return 'null';
  if (value instanceof Dbl) return Number.isInteger(value.value) ? value.value.toFixed(1) : String(value.value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return PLAIN.test(value) && !RESERVED.test(value) ? value : JSON.stringify(value);
}

const isMap = (v: YamlValue): v is YamlMap => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Dbl);

function emitMap(map: YamlMap, indent: number, out: string[]): void {
  const prefix = ' '.repeat(indent);
  for (const [key, value] of Object.entries(map)) {
    const k = scalar(key);
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(`${prefix}${k}: []`);
      else {
        out.push(`${prefix}${k}:`);
        emitList(value, indent + 2, out);
      }
    } else if (isMap(value)) {
      if (Object.keys(value).length === 0) out.push(`${prefix}${k}: {}`);
      else {
        out.push(`${prefix}${k}:`);
        emitMap(value, indent + 2, out);
      }
    } else out.push(`${prefix}${k}: ${scalar(value)}`);
  }
}

function emitList(list: YamlValue[], indent: number, out: string[]): void {
  const prefix = ' '.repeat(indent);
  for (const item of list) {
    if (isMap(item) && Object.keys(item).length > 0) {
      const start = out.length;
      emitMap(item, indent + 2, out);
      out[start] = `${prefix}- ${out[start].slice(indent + 2)}`;
    } else if (Array.isArray(item) || isMap(item)) throw new Error('generateRepository: unsupported YAML list item');
    else out.push(`${prefix}- ${scalar(item)}`);
  }
}

function yamlDocument(schemaLine: string | null, doc: YamlMap): string {
  const out: string[] = schemaLine ? [schemaLine] : [];
  emitMap(doc, 0, out);
  out.push('');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The catalog: every check the generator writes is checked against it.

interface CatalogParameter {
  name: string;
  type: string;
  required: boolean;
  default: unknown;
  allowed_values: string[] | null;
}
interface CatalogCheck {
  check_name: string;
  target: 'table' | 'column';
  check_type: 'profiling' | 'monitoring' | 'partitioned';
  time_scale: 'daily' | 'monthly' | null;
  category: string;
  sensor: string;
  rule: string;
}
interface Catalog {
  checks: CatalogCheck[];
  sensors: Record<string, { parameters: CatalogParameter[] }>;
  rules: Record<string, { parameters: CatalogParameter[] }>;
}

let catalogIndex: { catalog: Catalog; checks: Map<string, CatalogCheck> } | undefined;

function catalog(): { catalog: Catalog; checks: Map<string, CatalogCheck> } {
  if (!catalogIndex) {
    const parsed = JSON.parse(readFileSync(CATALOG_FILE, 'utf8')) as Catalog;
    const checks = new Map<string, CatalogCheck>();
    for (const c of parsed.checks) checks.set(`${c.target}|${c.check_type}|${c.time_scale ?? ''}|${c.category}|${c.check_name}`, c);
    catalogIndex = { catalog: parsed, checks };
  }
  return catalogIndex;
}

function valueMatches(type: string, value: YamlValue): boolean {
  const num = value instanceof Dbl ? value.value : value;
  switch (type) {
    case 'long':
    case 'integer':
      return !(value instanceof Dbl) && Number.isInteger(num);
    case 'double':
      return typeof num === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
    case 'enum':
    case 'column_name':
      return typeof value === 'string';
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
    case 'string_list':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'integer_list':
      return Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isInteger(v));
    default:
      return false;
  }
}

function assertParameters(where: string, defs: CatalogParameter[], given: YamlValue | undefined): void {
  if (given === undefined) given = {};
  if (!isMap(given)) throw new Error(`${where}: not a map`);
  for (const [name, value] of Object.entries(given)) {
    const def = defs.find((d) => d.name === name);
    if (!def) throw new Error(`${where}: unknown parameter ${name}`);
    if (!valueMatches(def.type, value)) throw new Error(`${where}: ${name} is not a ${def.type}`);
    if (def.allowed_values && !def.allowed_values.includes(value as string)) throw new Error(`${where}: ${name} not allowed`);
  }
  for (const def of defs) if (def.required && def.default == null && !(def.name in given)) throw new Error(`${where}: ${def.name} missing`);
}

/** Throws unless every check of the spec's containers is in the catalog with valid parameters. */
function assertChecks(where: string, target: 'table' | 'column', spec: YamlMap): void {
  const { catalog: cat, checks } = catalog();
  const containers: Array<[string, string | null, YamlValue | undefined]> = [
    ['profiling', null, spec.profiling_checks],
    ['monitoring', 'daily', isMap(spec.monitoring_checks ?? null) ? (spec.monitoring_checks as YamlMap).daily : undefined],
    ['monitoring', 'monthly', isMap(spec.monitoring_checks ?? null) ? (spec.monitoring_checks as YamlMap).monthly : undefined],
    ['partitioned', 'daily', isMap(spec.partitioned_checks ?? null) ? (spec.partitioned_checks as YamlMap).daily : undefined],
    ['partitioned', 'monthly', isMap(spec.partitioned_checks ?? null) ? (spec.partitioned_checks as YamlMap).monthly : undefined],
  ];
  for (const [type, scale, container] of containers) {
    if (container === undefined) continue;
    for (const [category, categoryChecks] of Object.entries(container as YamlMap)) {
      for (const [name, check] of Object.entries(categoryChecks as YamlMap)) {
        const c = checks.get(`${target}|${type}|${scale ?? ''}|${category}|${name}`);
        const at = `${where} ${type}/${scale ?? '-'}/${category}/${name}`;
        if (!c) throw new Error(`generateRepository: ${at} is not a catalog check`);
        const body = check as YamlMap;
        assertParameters(`${at}.parameters`, cat.sensors[c.sensor].parameters, body.parameters);
        for (const severity of ['warning', 'error', 'fatal']) {
          if (severity in body) assertParameters(`${at}.${severity}`, cat.rules[c.rule].parameters, body[severity]);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Check templates

interface PlacedCheck {
  container: 'profiling' | 'daily' | 'monthly' | 'partitioned_daily' | 'partitioned_monthly';
  category: string;
  name: string;
  body: YamlMap;
}

const SPEC_KEY_ORDER = ['profiling_checks', 'monitoring_checks', 'partitioned_checks', 'columns', 'source_tables'];

/** Re-inserts the check containers (and what follows them) in the order DQOps writes them, after the other keys. */
function canonicalOrder(spec: YamlMap): YamlMap {
  const out: YamlMap = {};
  for (const [key, value] of Object.entries(spec)) if (!SPEC_KEY_ORDER.includes(key)) out[key] = value;
  for (const key of SPEC_KEY_ORDER) {
    if (!(key in spec)) continue;
    const value = spec[key];
    out[key] = isMap(value) && (key === 'monitoring_checks' || key === 'partitioned_checks') ? orderScales(value) : value;
  }
  return out;
}

function orderScales(container: YamlMap): YamlMap {
  const out: YamlMap = {};
  for (const scale of ['daily', 'monthly']) if (scale in container) out[scale] = container[scale];
  return out;
}

function addCheck(spec: YamlMap, check: PlacedCheck): void {
  let container: YamlMap;
  const child = (parent: YamlMap, key: string): YamlMap => (parent[key] ??= {}) as YamlMap;
  switch (check.container) {
    case 'profiling':
      container = child(spec, 'profiling_checks');
      break;
    case 'daily':
    case 'monthly':
      container = child(child(spec, 'monitoring_checks'), check.container);
      break;
    case 'partitioned_daily':
      container = child(child(spec, 'partitioned_checks'), 'daily');
      break;
    case 'partitioned_monthly':
      container = child(child(spec, 'partitioned_checks'), 'monthly');
      break;
  }
  const category = child(container, check.category);
  if (!(check.name in category)) category[check.name] = check.body;
}

/** Severities that tighten from fatal to warning; some checks set all three, some two, some only error. */
function severities(rng: Rng, values: [warning: YamlMap, error: YamlMap, fatal: YamlMap]): YamlMap {
  const r = rng();
  if (r < 0.5) return { warning: values[0], error: values[1], fatal: values[2] };
  if (r < 0.8) return { warning: values[0], error: values[1] };
  return { error: values[1] };
}

const maxCount = (rng: Rng): YamlMap => {
  const e = 10 * int(rng, 1, 5);
  return severities(rng, [{ max_count: 0 }, { max_count: e }, { max_count: e * 10 }]);
};
const minCount = (rng: Rng): YamlMap => {
  const w = 10 ** int(rng, 2, 6);
  return severities(rng, [{ min_count: w }, { min_count: w / 10 }, { min_count: 1 }]);
};
const maxPercent = (rng: Rng): YamlMap => {
  const w = pick(rng, [0.5, 1, 2]);
  return severities(rng, [{ max_percent: dbl(w) }, { max_percent: dbl(w * 5) }, { max_percent: dbl(w * 20) }]);
};
const minPercent = (rng: Rng): YamlMap => {
  const w = pick(rng, [99.5, 99.9, 100]);
  return severities(rng, [{ min_percent: dbl(w) }, { min_percent: dbl(98) }, { min_percent: dbl(90) }]);
};
const maxDays = (rng: Rng): YamlMap => {
  const w = pick(rng, [0.5, 1, 2]);
  return severities(rng, [{ max_days: dbl(w) }, { max_days: dbl(w * 2) }, { max_days: dbl(w * 7) }]);
};
const anomaly = (rng: Rng): YamlMap =>
  severities(rng, [{ anomaly_percent: dbl(0.5) }, { anomaly_percent: dbl(0.05) }, { anomaly_percent: dbl(0.01) }]);
const changePercent = (rng: Rng): YamlMap => {
  const w = pick(rng, [10, 20, 25]);
  return severities(rng, [{ max_percent: dbl(w) }, { max_percent: dbl(w * 2) }, { max_percent: dbl(w * 4) }]);
};
const errorOnly = (rule: YamlMap): YamlMap => ({ error: rule });

type ColumnKind =
  | 'id' | 'ts' | 'fk' | 'status' | 'money' | 'email' | 'country' | 'currency' | 'qty' | 'bool' | 'text' | 'phone'
  | 'postal' | 'ip' | 'date' | 'ratio' | 'sku' | 'uuid' | 'json';

interface ColumnTemplate {
  name: string;
  kind: ColumnKind;
  type: string;
  nullable: boolean;
  length?: number;
  precision?: number;
  scale?: number;
}

const FIXED_COLUMNS: ColumnTemplate[] = [
  { name: 'id', kind: 'id', type: 'bigint', nullable: false },
  { name: 'created_at', kind: 'ts', type: 'timestamptz', nullable: false },
  { name: 'updated_at', kind: 'ts', type: 'timestamptz', nullable: false },
];

const OPTIONAL_COLUMNS: ColumnTemplate[] = [
  { name: 'customer_id', kind: 'fk', type: 'bigint', nullable: false },
  { name: 'status', kind: 'status', type: 'varchar', nullable: false, length: 20 },
  { name: 'amount', kind: 'money', type: 'numeric', nullable: false, precision: 12, scale: 2 },
  { name: 'email', kind: 'email', type: 'varchar', nullable: true, length: 320 },
  { name: 'country_code', kind: 'country', type: 'bpchar', nullable: false, length: 2 },
  { name: 'currency', kind: 'currency', type: 'bpchar', nullable: false, length: 3 },
  { name: 'quantity', kind: 'qty', type: 'integer', nullable: false },
  { name: 'is_active', kind: 'bool', type: 'boolean', nullable: false },
  { name: 'description', kind: 'text', type: 'text', nullable: true },
  { name: 'phone', kind: 'phone', type: 'varchar', nullable: true, length: 32 },
  { name: 'postal_code', kind: 'postal', type: 'varchar', nullable: true, length: 12 },
  { name: 'ip_address', kind: 'ip', type: 'varchar', nullable: true, length: 45 },
  { name: 'birth_date', kind: 'date', type: 'date', nullable: true },
  { name: 'discount_rate', kind: 'ratio', type: 'float8', nullable: true },
  { name: 'sku', kind: 'sku', type: 'varchar', nullable: false, length: 16 },
  { name: 'external_ref', kind: 'uuid', type: 'uuid', nullable: false },
  { name: 'payload', kind: 'json', type: 'jsonb', nullable: true },
  { name: 'unit_price', kind: 'money', type: 'numeric', nullable: false, precision: 10, scale: 2 },
  { name: 'order_id', kind: 'fk', type: 'bigint', nullable: false },
  { name: 'loaded_on', kind: 'date', type: 'date', nullable: false },
];

const STATUS_VALUES = [
  ['new', 'active', 'closed'],
  ['pending', 'paid', 'shipped', 'delivered', 'cancelled'],
  ['open', 'in_progress', 'resolved'],
];

/** One or two checks suited to a column of the given kind. */
function columnChecks(rng: Rng, kind: ColumnKind, partitioned: boolean): PlacedCheck[] {
  const d = (category: string, name: string, body: YamlMap): PlacedCheck => ({ container: 'daily', category, name, body });
  const options: PlacedCheck[] = [];
  switch (kind) {
    case 'id':
      options.push(d('nulls', 'daily_nulls_count', errorOnly({ max_count: 0 })), d('uniqueness', 'daily_duplicate_count', maxCount(rng)));
      options.push({ container: 'profiling', category: 'uniqueness', name: 'profile_distinct_percent', body: { error: { min_percent: dbl(100), max_percent: dbl(100) } } });
      break;
    case 'ts':
      options.push(d('datetime', 'daily_date_values_in_future_percent', { parameters: { max_future_days: dbl(1) }, ...errorOnly({ max_percent: dbl(0) }) }));
      break;
    case 'fk':
      options.push(d('integrity', 'daily_lookup_key_not_found', { parameters: { foreign_table: 'public.customers', foreign_column: 'id' }, ...maxCount(rng) }));
      options.push(d('nulls', 'daily_nulls_percent', maxPercent(rng)));
      break;
    case 'status':
      options.push(d('accepted_values', 'daily_text_found_in_set_percent', { parameters: { expected_values: pick(rng, STATUS_VALUES) }, ...minPercent(rng) }));
      break;
    case 'money':
      options.push(d('numeric', 'daily_negative_values', errorOnly({ max_count: 0 })));
      options.push(d('numeric', 'daily_max_in_range', { warning: { from: dbl(0), to: dbl(10_000) }, error: { from: dbl(0), to: dbl(100_000) } }));
      if (partitioned) options.push({ container: 'partitioned_daily', category: 'anomaly', name: 'daily_partition_sum_anomaly', body: anomaly(rng) });
      break;
    case 'email':
      options.push(d('patterns', 'daily_invalid_email_format_found', maxCount(rng)));
      options.push({ container: 'profiling', category: 'nulls', name: 'profile_nulls_percent', body: maxPercent(rng) });
      break;
    case 'country':
      options.push(d('accepted_values', 'daily_text_valid_country_code_percent', minPercent(rng)));
      break;
    case 'currency':
      options.push(d('accepted_values', 'daily_text_valid_currency_code_percent', minPercent(rng)));
      break;
    case 'qty':
      options.push(d('numeric', 'daily_number_below_min_value', { parameters: { min_value: dbl(1) }, ...errorOnly({ max_count: 0 }) }));
      options.push(d('numeric', 'daily_number_above_max_value', { parameters: { max_value: dbl(1000) }, ...maxCount(rng) }));
      break;
    case 'bool':
      options.push(d('bool', 'daily_true_percent', { warning: { min_percent: dbl(0), max_percent: dbl(20) }, error: { min_percent: dbl(0), max_percent: dbl(40) } }));
      break;
    case 'text':
      options.push(d('text', 'daily_text_max_length', { warning: { from: 1, to: 200 }, error: { from: 0, to: 1000 } }));
      options.push(d('whitespace', 'daily_empty_text_found', maxCount(rng)));
      break;
    case 'phone':
      options.push(d('patterns', 'daily_invalid_usa_phone_format_percent', maxPercent(rng)));
      break;
    case 'postal':
      options.push(d('whitespace', 'daily_whitespace_text_found', maxCount(rng)));
      break;
    case 'ip':
      options.push(d('patterns', 'daily_invalid_ip4_address_format_found', maxCount(rng)));
      break;
    case 'date':
      options.push(d('datetime', 'daily_date_in_range_percent', { parameters: { min_date: '1900-01-01', max_date: '2030-12-31' }, ...minPercent(rng) }));
      break;
    case 'ratio':
      options.push(d('numeric', 'daily_number_in_range_percent', { parameters: { min_value: dbl(0), max_value: dbl(1) }, ...minPercent(rng) }));
      break;
    case 'sku':
      options.push(d('patterns', 'daily_text_not_matching_regex_found', { parameters: { regex: '^[A-Z]{3}-[0-9]{6}$' }, ...maxCount(rng) }));
      break;
    case 'uuid':
      options.push(d('uniqueness', 'daily_duplicate_count', errorOnly({ max_count: 0 })));
      break;
    case 'json':
      options.push({ container: 'profiling', category: 'nulls', name: 'profile_nulls_percent', body: maxPercent(rng) });
      break;
  }
  if (kind !== 'ts' && partitioned && chance(rng, 0.3)) {
    options.push({ container: 'partitioned_daily', category: 'nulls', name: 'daily_partition_nulls_count', body: maxCount(rng) });
  }
  return shuffled(rng, options).slice(0, int(rng, 1, Math.min(2, options.length)));
}

/** Table-level checks; `columns` are the table's column names, `hasTimestamps` when created_at/updated_at exist. */
function tableChecks(rng: Rng, columns: string[], hasTimestamps: boolean, partitioned: boolean): PlacedCheck[] {
  const options: PlacedCheck[] = [
    { container: 'daily', category: 'volume', name: 'daily_row_count', body: minCount(rng) },
    { container: 'daily', category: 'volume', name: 'daily_row_count_anomaly', body: anomaly(rng) },
    { container: 'daily', category: 'volume', name: 'daily_row_count_change', body: changePercent(rng) },
    { container: 'profiling', category: 'volume', name: 'profile_row_count', body: errorOnly({ min_count: 1 }) },
    { container: 'profiling', category: 'schema', name: 'profile_column_count', body: errorOnly({ expected_value: columns.length }) },
    { container: 'daily', category: 'schema', name: 'daily_column_count_changed', body: { warning: {} } },
    { container: 'daily', category: 'availability', name: 'daily_table_availability', body: severities(rng, [{ max_failures: 0 }, { max_failures: 1 }, { max_failures: 5 }]) },
    { container: 'monthly', category: 'volume', name: 'monthly_row_count', body: minCount(rng) },
    {
      container: 'daily',
      category: 'uniqueness',
      name: 'daily_duplicate_record_count',
      body: { parameters: { columns: columns.slice(0, Math.min(columns.length, 2)) }, ...maxCount(rng) },
    },
  ];
  if (hasTimestamps) {
    options.push(
      { container: 'daily', category: 'timeliness', name: 'daily_data_freshness', body: maxDays(rng) },
      { container: 'daily', category: 'timeliness', name: 'daily_data_staleness', body: maxDays(rng) },
      {
        container: 'daily',
        category: 'custom_sql',
        name: 'daily_sql_condition_failed_on_table',
        body: { parameters: { sql_condition: '{alias}.updated_at >= {alias}.created_at' }, ...maxCount(rng) },
      },
    );
  }
  const chosen = shuffled(rng, options).slice(0, int(rng, 2, 4));
  if (partitioned) {
    chosen.push({ container: 'partitioned_daily', category: 'volume', name: 'daily_partition_row_count', body: minCount(rng) });
    if (chance(rng, 0.5)) chosen.push({ container: 'partitioned_daily', category: 'timeliness', name: 'daily_partition_reload_lag', body: maxDays(rng) });
    if (chance(rng, 0.3)) chosen.push({ container: 'partitioned_monthly', category: 'volume', name: 'monthly_partition_row_count', body: minCount(rng) });
  }
  return chosen;
}

// ---------------------------------------------------------------------------------------------------------------
// Names

const SYSTEMS = ['crm', 'erp', 'billing', 'inventory', 'webshop', 'marketing', 'hr', 'finance', 'support', 'logistics', 'payments', 'catalog', 'loyalty', 'pricing', 'warehouse'];
const REGIONS = ['eu', 'us', 'apac', 'latam'];
const SCHEMAS = ['public', 'sales', 'staging', 'mart', 'raw', 'ops', 'audit', 'reporting'];
const ENTITIES = ['customers', 'orders', 'order_lines', 'invoices', 'payments', 'shipments', 'products', 'stock_levels', 'suppliers', 'campaigns', 'sessions', 'tickets', 'employees', 'contracts', 'price_lists', 'returns', 'refunds', 'events', 'accounts', 'ledger_entries'];
const VARIANTS = ['', '_history', '_daily', '_snapshot', '_v2', '_archive'];
const TABLE_LABELS = ['critical', 'pii', 'finance', 'gdpr', 'reporting', 'raw', 'team:data-platform', 'team:analytics'];
const STAGE_BY_SCHEMA: Record<string, string> = { raw: 'landing', staging: 'silver', mart: 'gold', reporting: 'gold' };
const SSL_MODES = ['require', 'verify-full', 'prefer'];

function connectionName(i: number): string {
  const s = SYSTEMS.length;
  const r = REGIONS.length;
  const base = `${SYSTEMS[i % s]}_${REGIONS[Math.floor(i / s) % r]}`;
  return i < s * r ? base : `${base}_${Math.floor(i / (s * r)) + 1}`;
}

function tableName(rng: Rng, j: number, width: number): string {
  const n = pad(j, width);
  if (j % 499 === 498) return `orders&returns:${n}`; // characters written as %XX in the file name
  if (j % 211 === 210) return `kundenübersicht_${n}`;
  if (j % 101 === 100) return `Monthly Report ${n}`;
  return `${pick(rng, ENTITIES)}${pick(rng, VARIANTS)}_${n}`;
}

/** DQOps writes `/ \ < > : " ' | ? * & %` in file names as %XX (upper-case hex). */
function encodeNamePart(part: string): string {
  return part.replace(/[/\\<>:"'|?*&%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

function schemaLine(fileDir: string, schemaFile: string): string {
  const path = relative(fileDir, join(SCHEMAS_DIR, schemaFile)).split(sep).join('/');
  return `# yaml-language-server: $schema=${path}`;
}

function envPrefix(connection: string): string {
  return connection.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

const commentDate = (rng: Rng): string => `2025-${pad(int(rng, 1, 12), 2)}-${pad(int(rng, 1, 28), 2)}T${pad(int(rng, 6, 18), 2)}:${pad(int(rng, 0, 59), 2)}:00`;

// ---------------------------------------------------------------------------------------------------------------
// Documents

function connectionDocument(rng: Rng, name: string): YamlMap {
  const env = envPrefix(name);
  const [system, region] = name.split('_');
  const spec: YamlMap = {
    provider_type: 'postgresql',
    postgresql: {
      host: `\${${env}_HOST}`,
      port: `\${${env}_PORT}`,
      database: `\${${env}_DATABASE}`,
      user: `\${${env}_USER}`,
      password: `\${${env}_PASSWORD}`,
      sslmode: pick(rng, SSL_MODES),
    },
    parallel_jobs_limit: int(rng, 1, 8),
    schedules: {
      profiling: { cron_expression: `${int(rng, 0, 59)} ${int(rng, 0, 5)} * * ${int(rng, 0, 6)}` },
      monitoring_daily: { cron_expression: `${int(rng, 0, 59)} ${int(rng, 1, 8)} * * *` },
      partitioned_daily: { cron_expression: `${int(rng, 0, 59)} ${int(rng, 1, 8)} * * *` },
    },
    labels: [system, region, chance(rng, 0.8) ? 'production' : 'staging'],
  };
  if (chance(rng, 0.3)) {
    spec.comments = [{ date: commentDate(rng), comment_by: 'data-platform', comment: `Connection to the ${system} database (${region}).` }];
  }
  return { apiVersion: 'dqo/v1', kind: 'source', spec };
}

interface TableInfo {
  connection: string;
  schema: string;
  table: string;
  columns: string[];
}

function tableDocument(rng: Rng, info: TableInfo, columnsPerTable: number, previous: TableInfo[]): YamlMap {
  const columnTemplates: ColumnTemplate[] = FIXED_COLUMNS.slice(0, Math.min(columnsPerTable, FIXED_COLUMNS.length));
  const optional = shuffled(rng, OPTIONAL_COLUMNS);
  for (let k = 0; columnTemplates.length < columnsPerTable; k++) {
    const template = optional[k % optional.length];
    const round = Math.floor(k / optional.length);
    columnTemplates.push(round === 0 ? template : { ...template, name: `${template.name}_${round + 1}` });
  }
  info.columns = columnTemplates.map((c) => c.name);
  const hasTimestamps = columnsPerTable >= 3;
  const partitioned = hasTimestamps && chance(rng, 0.3);
  const withChecks = chance(rng, 0.5);

  const spec: YamlMap = {};
  const stage = STAGE_BY_SCHEMA[info.schema];
  if (stage) spec.stage = stage;
  spec.priority = int(rng, 1, 5);
  if (hasTimestamps) {
    spec.timestamp_columns = {
      event_timestamp_column: 'created_at',
      ingestion_timestamp_column: 'updated_at',
      ...(partitioned ? { partition_by_column: 'created_at' } : {}),
    };
  }
  if (partitioned) spec.incremental_time_window = { daily_partitioning_recent_days: pick(rng, [3, 7, 14]), monthly_partitioning_recent_months: 1 };
  const labelCount = int(rng, 0, 2);
  if (labelCount > 0) spec.labels = shuffled(rng, TABLE_LABELS).slice(0, labelCount);
  if (withChecks) for (const check of tableChecks(rng, info.columns, hasTimestamps, partitioned)) addCheck(spec, check);

  const columns: YamlMap = {};
  for (const template of columnTemplates) {
    const snapshot: YamlMap = { column_type: template.type, nullable: template.nullable };
    if (template.length !== undefined) snapshot.length = template.length;
    if (template.precision !== undefined) snapshot.precision = template.precision;
    if (template.scale !== undefined) snapshot.scale = template.scale;
    const column: YamlMap = { type_snapshot: snapshot };
    if (template.kind === 'email' || template.kind === 'phone') column.labels = ['pii'];
    if (withChecks && chance(rng, 0.4)) {
      for (const check of columnChecks(rng, template.kind, partitioned)) addCheck(column, check);
      assertChecks(`${info.connection}/${info.schema}.${info.table} column ${template.name}`, 'column', column);
    }
    columns[template.name] = canonicalOrder(column);
  }
  spec.columns = columns;
  assertChecks(`${info.connection}/${info.schema}.${info.table}`, 'table', spec);

  // Lineage: about one table in six lists one or two earlier tables as its sources.
  if (previous.length > 0 && chance(rng, 0.16)) {
    const sources: YamlValue[] = [];
    const used = new Set<TableInfo>();
    for (let s = int(rng, 1, 2); s > 0; s--) {
      const source = previous[Math.floor(rng() * previous.length)];
      if (used.has(source)) continue;
      used.add(source);
      const shared: YamlMap = {};
      for (const column of info.columns) if (source.columns.includes(column) && chance(rng, 0.7)) shared[column] = { source_columns: [column] };
      const entry: YamlMap = { source_connection: source.connection, source_schema: source.schema, source_table: source.table };
      if (chance(rng, 0.5)) entry.data_lineage_source_tool = 'dbt';
      if (Object.keys(shared).length > 0) entry.columns = shared;
      sources.push(entry);
    }
    spec.source_tables = sources;
  }
  return { apiVersion: 'dqo/v1', kind: 'table', spec: canonicalOrder(spec) };
}

const DATA_TYPE_CATEGORY: Partial<Record<ColumnKind, string>> = {
  id: 'numeric_integer', fk: 'numeric_integer', qty: 'numeric_integer', money: 'numeric_decimal', ratio: 'numeric_float',
  ts: 'datetime_timestamp', date: 'datetime_date', bool: 'bool', json: 'json',
  status: 'text', email: 'text', country: 'text', currency: 'text', text: 'text', phone: 'text', postal: 'text', ip: 'text', sku: 'text',
};

function policyName(k: number, kind: 'table' | 'column'): string {
  const n = pad(k, 3);
  if (k % 10 === 3) return kind === 'table' ? `Detect volume issues ${n}` : `Validate column values ${n}`;
  if (k % 7 === 0) return `team_${k % 5}/${kind}_policy_${n}`;
  return `${kind}_policy_${n}`;
}

function policyTarget(rng: Rng, k: number, connections: string[]): YamlMap {
  switch (k % 5) {
    case 0:
      return { connection: `${pick(rng, SYSTEMS)}_*` };
    case 1:
      return { connection: pick(rng, connections), schema: 'mart,reporting', stage: 'gold' };
    case 2:
      return { table: `${pick(rng, ENTITIES)}*,*${pick(rng, VARIANTS.slice(1))}_*` };
    case 3:
      return { label: pick(rng, ['critical', 'finance', 'pii']), table_priority: int(rng, 1, 3) };
    default:
      return { connection: '*', schema: pick(rng, SCHEMAS), table: '*' };
  }
}

function tablePolicyDocument(rng: Rng, k: number, connections: string[]): YamlMap {
  const spec: YamlMap = { priority: 10 * (k + 1) };
  if (k % 10 === 9) spec.disabled = true;
  spec.description = `Synthetic table policy ${k}.`;
  spec.target = policyTarget(rng, k, connections);
  for (const check of tableChecks(rng, ['id', 'created_at'], true, chance(rng, 0.3))) addCheck(spec, check);
  assertChecks(`table policy ${k}`, 'table', spec);
  return { apiVersion: 'dqo/v1', kind: 'default_table_checks', spec: canonicalOrder(spec) };
}

function columnPolicyDocument(rng: Rng, k: number, connections: string[]): YamlMap {
  const template = pick(rng, [...FIXED_COLUMNS, ...OPTIONAL_COLUMNS]);
  const spec: YamlMap = { priority: 10 * (k + 1) + 5 };
  if (k % 10 === 9) spec.disabled = true;
  spec.description = `Synthetic column policy ${k}: ${template.kind} columns.`;
  const target: YamlMap = policyTarget(rng, k, connections);
  target.column = chance(rng, 0.5) ? template.name : `*${template.name.slice(-4)}*,${template.name}`;
  if (chance(rng, 0.4)) target.data_type = template.type;
  const category = DATA_TYPE_CATEGORY[template.kind];
  if (category && chance(rng, 0.6)) target.data_type_category = category;
  spec.target = target;
  for (const check of columnChecks(rng, template.kind, chance(rng, 0.3))) addCheck(spec, check);
  assertChecks(`column policy ${k}`, 'column', spec);
  return { apiVersion: 'dqo/v1', kind: 'default_column_checks', spec: canonicalOrder(spec) };
}

const RULE_FOLDERS = ['volume', 'trend', 'finance', 'ops', 'custom/nested'];

function ruleDocument(rng: Rng, k: number): { doc: YamlMap; fields: string[]; previous: boolean } {
  const previous = k % 2 === 1;
  const fields = previous ? ['max_drop_percent'] : ['lower_bound', 'upper_bound'];
  const doc: YamlMap = {
    apiVersion: 'dqo/v1',
    kind: 'rule',
    spec: {
      type: 'python',
      mode: previous ? 'previous_readouts' : 'current_value',
      time_window: {
        prediction_time_window: previous ? pick(rng, [7, 14, 30]) : 1,
        min_periods_with_readouts: previous ? pick(rng, [3, 5, 7]) : 0,
        historic_data_point_grouping: 'day',
      },
      fields: fields.map((field) => ({
        field_name: field,
        display_name: field.replace(/_/g, ' '),
        help_text: `Synthetic rule field ${field}.`,
        data_type: 'double',
        required: previous,
      })),
      parameters: { generated_by: 'dqctl-bench' },
    },
  };
  return { doc, fields, previous };
}

function rulePython(k: number, previous: boolean): string {
  if (previous) {
    return [
      `# Synthetic rule ${k}: fails when the readout drops more than max_drop_percent below the mean of earlier readouts.`,
      'def evaluate_rule(rule_parameters):',
      '    value = rule_parameters.actual_value',
      '    history = [p.sensor_readout for p in (rule_parameters.previous_readouts or []) if p is not None and p.sensor_readout is not None]',
      '    if value is None or not history:',
      '        return {"passed": True}',
      '    mean = sum(history) / len(history)',
      '    floor = mean * (1.0 - float(rule_parameters.parameters.max_drop_percent) / 100.0)',
      '    return {"passed": value >= floor, "expected_value": mean, "lower_bound": floor}',
      '',
    ].join('\n');
  }
  return [
    `# Synthetic rule ${k}: the readout must lie between lower_bound and upper_bound (either may be unset).`,
    'def evaluate_rule(rule_parameters):',
    '    value = rule_parameters.actual_value',
    '    low = getattr(rule_parameters.parameters, "lower_bound", None)',
    '    high = getattr(rule_parameters.parameters, "upper_bound", None)',
    '    passed = value is None or ((low is None or value >= low) and (high is None or value <= high))',
    '    return {"passed": passed, "lower_bound": low, "upper_bound": high}',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

class BatchWriter {
  files = 0;
  bytes = 0;
  private pending: Array<[string, string]> = [];
  private readonly dirs = new Set<string>();

  async add(path: string, content: string): Promise<void> {
    this.pending.push([path, content]);
    if (this.pending.length >= WRITE_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const newDirs = [...new Set(batch.map(([p]) => dirname(p)))].filter((d) => !this.dirs.has(d));
    await Promise.all(newDirs.map((d) => mkdir(d, { recursive: true })));
    for (const d of newDirs) this.dirs.add(d);
    await Promise.all(batch.map(([p, c]) => writeFile(p, c)));
    for (const [, c] of batch) {
      this.files++;
      this.bytes += Buffer.byteLength(c);
    }
  }
}

/** Writes a synthetic DQOps user home into `dir` (created if missing; existing files of the same names are overwritten). */
export async function generateRepository(dir: string, options: GenerateOptions = {}): Promise<GenerateResult> {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as Required<GenerateOptions>;
  for (const [key, value] of Object.entries(o)) {
    if (!Number.isInteger(value) || value < 0) throw new Error(`generateRepository: ${key} must be a non-negative integer`);
  }
  if (o.connections === 0 && o.tables > 0) throw new Error('generateRepository: tables need at least one connection');
  const root = resolve(dir);
  const rng = createRng(o.seed);
  const out = new BatchWriter();

  await out.add(
    join(root, 'dqctl.yaml'),
    yamlDocument(schemaLine(root, 'dqctl.schema.json'), {
      apiVersion: 'dqctl/v1',
      kind: 'settings',
      spec: { namespace: 'bench', protected: [], prune: { unmanaged: false, mass_delete_threshold: dbl(0.5) } },
    }),
  );

  const connections = Array.from({ length: o.connections }, (_, i) => connectionName(i));
  for (const name of connections) {
    const folder = join(root, 'sources', name);
    await out.add(join(folder, 'connection.dqoconnection.yaml'), yamlDocument(schemaLine(folder, 'connection.dqoconnection.schema.json'), connectionDocument(rng, name)));
  }

  // Bigger systems hold more tables: connection index skewed towards the first connections.
  const width = Math.max(5, String(o.tables).length);
  const previous: TableInfo[] = [];
  const tableSchemaLines = new Map<string, string>();
  for (let j = 0; j < o.tables; j++) {
    const connection = connections[Math.min(connections.length - 1, Math.floor(connections.length * rng() ** 1.6))];
    const info: TableInfo = { connection, schema: pick(rng, SCHEMAS), table: tableName(rng, j, width), columns: [] };
    const doc = tableDocument(rng, info, o.columnsPerTable, previous);
    previous.push(info);
    const folder = join(root, 'sources', connection);
    let line = tableSchemaLines.get(folder);
    if (!line) tableSchemaLines.set(folder, (line = schemaLine(folder, 'table.dqotable.schema.json')));
    await out.add(join(folder, `${encodeNamePart(info.schema)}.${encodeNamePart(info.table)}.dqotable.yaml`), yamlDocument(line, doc));
  }

  const tablePolicies = Math.ceil(o.policies / 2);
  for (let k = 0; k < o.policies; k++) {
    const isTable = k < tablePolicies;
    const index = isTable ? k : k - tablePolicies;
    const name = policyName(index, isTable ? 'table' : 'column');
    const path = join(root, 'patterns', `${name}.${isTable ? 'dqotablepattern' : 'dqocolumnpattern'}.yaml`);
    const doc = isTable ? tablePolicyDocument(rng, index, connections) : columnPolicyDocument(rng, index, connections);
    await out.add(path, yamlDocument(schemaLine(dirname(path), isTable ? 'table.dqotablepattern.schema.json' : 'column.dqocolumnpattern.schema.json'), doc));
  }

  for (let k = 0; k < o.rules; k++) {
    const base = join(root, 'rules', RULE_FOLDERS[k % RULE_FOLDERS.length], `rule_${pad(k, 3)}`);
    const { doc, previous: prev } = ruleDocument(rng, k);
    await out.add(`${base}.dqorule.yaml`, yamlDocument(schemaLine(dirname(base), 'rule.dqorule.schema.json'), doc));
    await out.add(`${base}.py`, rulePython(k, prev));
  }

  await out.flush();
  return { files: out.files, bytes: out.bytes };
}

// ---------------------------------------------------------------------------------------------------------------
// Mutation

const THRESHOLD_LINE = /^(\s+)(min_count|max_count|max_percent|min_percent|max_days): (\d+(?:\.\d+)?)$/;

/** Nudges one threshold so that warning ≤ error ≤ fatal ordering is kept (the generator leaves room for it). */
function mutateText(rng: Rng, text: string): string {
  const lines = text.split('\n');
  const candidates: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = THRESHOLD_LINE.exec(lines[i]);
    if (!m) continue;
    const value = Number(m[3]);
    if (m[2] === 'min_percent' && value < 1) continue;
    if (m[2] === 'max_percent' && value > 99) continue;
    candidates.push(i);
  }
  if (candidates.length > 0) {
    const i = candidates[Math.floor(rng() * candidates.length)];
    const [, indent, key, raw] = THRESHOLD_LINE.exec(lines[i])!;
    const value = Number(raw);
    let next: string;
    if (key === 'min_count' || key === 'max_count') next = String(value + 1);
    else {
      const changed = key === 'min_percent' ? value - 0.5 : value + 0.5;
      next = Number.isInteger(changed) ? changed.toFixed(1) : String(changed);
    }
    lines[i] = `${indent}${key}: ${next}`;
    return lines.join('\n');
  }
  // No threshold in this table: change its priority instead (every generated table has one).
  const p = lines.findIndex((l) => /^ {2}priority: \d+$/.test(l));
  if (p >= 0) {
    const value = Number(lines[p].split(': ')[1]);
    lines[p] = `  priority: ${(value % 9) + 1}`;
    return lines.join('\n');
  }
  return text.replace(/\n?$/, '\n# mutated\n');
}

/**
 * Changes `fraction` (0..1) of the table files under `dir/sources` (at least one when fraction > 0): one threshold
 * per file, or the table priority when the table has no thresholds. Deterministic for a seed and a repository.
 * Returns the changed files as `join(dir, 'sources', <connection>, <file>)`, sorted.
 */
/** `originals`, when given, receives the text each chosen file had before its change (to change it back). */
export async function mutateRepository(dir: string, fraction: number, seed: number, originals?: Map<string, string>): Promise<string[]> {
  if (!(fraction >= 0 && fraction <= 1)) throw new Error('mutateRepository: fraction must be between 0 and 1');
  const sources = join(dir, 'sources');
  const tableFiles: string[] = [];
  for (const connection of (await readdir(sources, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
    for (const file of (await readdir(join(sources, connection))).sort()) {
      if (file.endsWith('.dqotable.yaml')) tableFiles.push(join(sources, connection, file));
    }
  }
  const count = fraction === 0 ? 0 : Math.min(tableFiles.length, Math.max(1, Math.round(tableFiles.length * fraction)));
  const rng = createRng(seed);
  // Partial Fisher-Yates: the first `count` entries become a seeded random sample.
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(rng() * (tableFiles.length - i));
    [tableFiles[i], tableFiles[j]] = [tableFiles[j], tableFiles[i]];
  }
  const chosen = tableFiles.slice(0, count).sort();
  const seeds = chosen.map(() => Math.floor(rng() * 2 ** 32));
  for (let start = 0; start < chosen.length; start += WRITE_BATCH) {
    const batch = chosen.slice(start, start + WRITE_BATCH);
    await Promise.all(
      batch.map(async (path, k) => {
        const text = await readFile(path, 'utf8');
        originals?.set(path, text);
        await writeFile(path, mutateText(createRng(seeds[start + k]), text));
      }),
    );
  }
  return chosen;
}

// ---------------------------------------------------------------------------------------------------------------
// CLI

async function main(argv: string[]): Promise<void> {
  const positional: string[] = [];
  const options: GenerateOptions = {};
  const flags: Record<string, keyof GenerateOptions> = {
    '--seed': 'seed', '--connections': 'connections', '--policies': 'policies', '--rules': 'rules', '--columns': 'columnsPerTable', '--tables': 'tables',
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = flags[argv[i]];
    if (flag) options[flag] = Number(argv[++i]);
    else positional.push(argv[i]);
  }
  const [dir, tables] = positional;
  if (!dir) {
    console.error('usage: node --import tsx bench/generateRepository.ts <dir> [tables] [--seed N] [--connections N] [--policies N] [--rules N] [--columns N]');
    process.exitCode = 1;
    return;
  }
  if (tables !== undefined) options.tables = Number(tables);
  const started = performance.now();
  const result = await generateRepository(dir, options);
  const seconds = (performance.now() - started) / 1000;
  console.log(`wrote ${result.files} files, ${(result.bytes / 1024 / 1024).toFixed(1)} MiB, into ${resolve(dir)} in ${seconds.toFixed(2)} s`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
