/**
 * Every diagnostic the loader can produce, each from a fixture repository under test/fixtures/diagnostics/<case>/
 * (a minimal DQOps user home holding exactly that fault). For each case: the diagnostics (severity, code,
 * file:line:column), the text found at line:column (the offending key or value), a helpful part of the summary
 * (did-you-mean, where a check belongs) and which objects survive. A handful of cases also pin the human
 * rendering (snippet and caret) in golden/<case>.txt.
 *
 * Faults git cannot store well (symbolic links, an 11 MB file) are made at test time in a temporary copy.
 */
import { cp, mkdir, mkdtemp, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { renderDiagnosticsText } from '../../src/cli/render/diagnostics.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import type { DesiredState } from '../../src/manifest/desiredState.js';
import type { Diagnostic } from '../../src/model/index.js';
import { VIOLATION_CODES } from '../../src/schema/schemaViolation.js';
import { LOADER_DIAGNOSTICS } from '../../src/manifest/diagnosticCodes.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, '..', 'fixtures', 'diagnostics');
const SHOP = join(HERE, '..', '..', 'examples', 'shop');

const ORDERS = 'sources/shop/public.orders.dqotable.yaml';
const CONNECTION = 'sources/shop/connection.dqoconnection.yaml';

/**
 * One expected diagnostic: severity, code, `file:line:column`, the text that starts at that line and column
 * (null for a finding about the whole file, located at 1:1 without a snippet), and a part of the summary.
 */
type Expected = [severity: 'error' | 'warning', code: string, at: string, text: string | null, summary: string];

interface Case {
  name: string;
  expected: Expected[];
  /** `kind:name` of the objects that load (files with errors are left out). */
  objects: string[];
  /** Pin the rendering in golden/<name>.txt. */
  golden?: boolean;
  /** The fixture folder, when not `name`. */
  fixture?: string;
  /** Loaded with this `--env`. */
  environment?: string;
}

const BASE_OBJECTS = ['source:shop', 'table:shop/public.orders'];
const ONLY_SOURCE = ['source:shop'];

const CASES: Case[] = [
  {
    name: 'yaml_syntax',
    golden: true,
    expected: [
      ['error', 'yaml_syntax', 'sources/shop/public.customers.dqotable.yaml:6:1', '---', 'malformed YAML: a file must hold one YAML document'],
      ['error', 'yaml_syntax', `${ORDERS}:13:25`, 'orders: row count', 'malformed YAML: Nested mappings are not allowed in compact mappings'],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'duplicate_key',
    golden: true,
    expected: [['error', 'duplicate_key', `${ORDERS}:19:11`, 'error:', 'duplicate key']],
    objects: ONLY_SOURCE,
  },
  {
    name: 'wrong_api_version',
    expected: [
      // A missing apiVersion points at the document (its first key).
      ['error', 'wrong_api_version', `${CONNECTION}:2:1`, 'kind: source', 'missing apiVersion (expected dqo/v1)'],
      ['error', 'wrong_api_version', `${ORDERS}:2:13`, 'dqo/v2', 'apiVersion must be dqo/v1, not "dqo/v2"'],
    ],
    objects: [],
  },
  {
    name: 'wrong_kind',
    golden: true,
    expected: [
      ['error', 'wrong_kind', `${CONNECTION}:2:1`, 'apiVersion: dqo/v1', 'missing kind (expected source)'],
      ['error', 'wrong_kind', `${ORDERS}:3:7`, 'tabel', 'unknown kind "tabel" (expected table in a .dqotable.yaml file)'],
    ],
    objects: [],
  },
  {
    name: 'kind_mismatch',
    expected: [
      [
        'error',
        'kind_mismatch',
        'sources/shop/public.customers.dqotable.yaml:3:7',
        'source',
        'kind source does not match the file name: a .dqotable.yaml file holds kind table',
      ],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'not_a_document',
    golden: true,
    expected: [
      ['error', 'not_a_document', 'sources/shop/public.customers.dqotable.yaml:1:1', null, 'the file is empty'],
      // Only comments: empty as well.
      ['error', 'not_a_document', 'sources/shop/public.payments.dqotable.yaml:1:1', null, 'the file is empty'],
      [
        'error',
        'not_a_document',
        'sources/shop/public.shipments.dqotable.yaml:1:1',
        'orders table, checks to follow',
        'the file must hold a mapping with apiVersion, kind and spec',
      ],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'missing_key',
    expected: [['error', 'missing_key', 'sources/shop/public.customers.dqotable.yaml:2:1', 'apiVersion: dqo/v1', 'missing key "spec"']],
    objects: BASE_OBJECTS,
  },
  {
    name: 'unknown_key',
    expected: [['error', 'unknown_key', `${ORDERS}:5:3`, 'prority', 'unknown key "prority"; did you mean "priority"?']],
    objects: ONLY_SOURCE,
  },
  {
    name: 'settings_unknown_key',
    expected: [
      ['error', 'unknown_key', 'dqctl.yaml:8:5', 'mass_delete_treshold', 'unknown key "mass_delete_treshold"; did you mean "mass_delete_threshold"?'],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'wrong_type',
    expected: [['error', 'wrong_type', `${ORDERS}:5:13`, 'high', 'expected integer, got string "high"']],
    objects: ONLY_SOURCE,
  },
  {
    name: 'invalid_value',
    expected: [['error', 'invalid_value', `${CONNECTION}:12:14`, 'verify_full', 'invalid value "verify_full" for sslmode; did you mean "verify-full"?']],
    objects: ['table:shop/public.orders'],
  },
  {
    name: 'unknown_check',
    expected: [
      [
        'error',
        'unknown_check',
        `${ORDERS}:12:9`,
        'daily_row_cont:',
        'unknown check "daily_row_cont" in monitoring_checks.daily.volume; did you mean "daily_row_count"?',
      ],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'check_wrong_container',
    golden: true,
    expected: [
      [
        'error',
        'check_wrong_container',
        `${ORDERS}:11:7`,
        'daily_row_count:',
        'daily_row_count belongs under monitoring_checks.daily.volume; did you mean "profile_row_count"?',
      ],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'unknown_category',
    expected: [
      ['error', 'unknown_category', `${ORDERS}:11:7`, 'volumes:', 'unknown check category "volumes" in monitoring_checks.daily; did you mean "volume"?'],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'unknown_rule_parameter',
    golden: true,
    expected: [
      [
        'error',
        'unknown_rule_parameter',
        `${ORDERS}:16:13`,
        'min_cont: 5000',
        'unknown rule parameter "min_cont" of comparison/min_count; did you mean "min_count"?',
      ],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'unknown_sensor_parameter',
    expected: [
      [
        'error',
        'unknown_sensor_parameter',
        `${ORDERS}:45:17`,
        'expected_value:',
        'unknown sensor parameter "expected_value" of column/accepted_values/text_found_in_set_percent; did you mean "expected_values"?',
      ],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'file_name_invalid',
    golden: true,
    expected: [
      ['error', 'file_name_invalid', 'sources/shop/orders.dqotable.yaml:1:1', null, 'must be <schema>.<table>.dqotable.yaml'],
      ['error', 'file_name_invalid', 'sources/shop/public.a%ZZ.dqotable.yaml:1:1', null, 'does not decode: a % must be followed by two hex digits'],
      ['error', 'file_name_invalid', 'sources/shop/shop.dqoconnection.yaml:1:1', null, 'a connection file must be named connection.dqoconnection.yaml'],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'unrecognized_file',
    expected: [
      ['warning', 'unrecognized_file', 'patterns/public.customers.dqotable.yaml:1:1', null, '.dqotable.yaml files belong in sources/<connection>/'],
      ['warning', 'unrecognized_file', 'sources/shop/notes.yaml:1:1', null, 'is not a DQOps file name'],
      ['warning', 'unrecognized_file', 'sources/shop/public.payments.dqotable.yml:1:1', null, 'rename it to public.payments.dqotable.yaml'],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'unknown_connection',
    expected: [
      [
        'error',
        'unknown_connection',
        'sources/shop_dwh/public.orders.dqotable.yaml:2:1',
        'apiVersion: dqo/v1',
        'belongs to connection "shop_dwh", which has no sources/shop_dwh/connection.dqoconnection.yaml',
      ],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'lineage_unknown_connection',
    expected: [
      ['error', 'lineage_unknown_connection', `${ORDERS}:52:26`, 'shop_crm', 'lineage source connection "shop_crm" does not exist'],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'invalid_address',
    expected: [
      ['error', 'invalid_address', 'settings/defaultnotifications.dqonotifications.yaml:5:29', '"team at example dot com"', 'incident_muted_addresses'],
      ['error', 'invalid_address', `${CONNECTION}:11:34`, '"https://hooks.example.com/x, not-an-address"', '"not-an-address" is neither an http(s) URL nor an e-mail address'],
      ['error', 'invalid_address', `${CONNECTION}:19:40`, 'ftp://pager.example.com', '"ftp://pager.example.com" is neither'],
    ],
    objects: [],
  },
  {
    name: 'invalid_cron',
    expected: [
      // a check's schedule_override, in a policy (disabled, still checked) and in a table file
      ['warning', 'invalid_cron', 'patterns/Detect empty tables daily.dqotablepattern.yaml:12:30', '"0 0 31 2 * * *"', 'Invalid value for hour: 31'],
      ['warning', 'invalid_cron', `${CONNECTION}:17:24`, '"every monday"', '"every monday" is not a cron expression'],
      ['warning', 'invalid_cron', `${CONNECTION}:21:24`, '"0 25 * * *"', '"0 25 * * *" is not a cron expression'],
      ['warning', 'invalid_cron', `${ORDERS}:20:34`, '"hourly"', '"hourly" is not a cron expression'],
    ],
    // a warning, as in DQOps: the files load, only those schedules never run
    objects: ['source:shop', 'table:shop/public.orders', 'default_table_checks:Detect empty tables daily'],
  },
  {
    name: 'custom_check_unknown',
    expected: [
      ['error', 'unknown_sensor', `${ORDERS}:10:26`, 'table/volume/row_cont', 'unknown sensor "table/volume/row_cont"; did you mean "table/volume/row_count"?'],
      ['error', 'unknown_rule', `${ORDERS}:11:24`, 'myrules/at_lest', 'unknown rule "myrules/at_lest"; did you mean "myrules/at_least"?'],
      ['error', 'custom_check_incomplete', `${ORDERS}:15:9`, 'nothing_named:', 'custom check "nothing_named" names no sensor_name and rule_name'],
    ],
    objects: ['source:shop', 'rule:myrules/at_least'],
  },
  {
    name: 'custom_definitions_unknown',
    golden: true,
    expected: [
      ['error', 'unknown_rule', 'checks/table/monitoring/daily/custom/many_big_orders.dqocheck.yaml:5:14', 'comparison/min_cont', 'unknown rule "comparison/min_cont"; did you mean "comparison/min_count"?'],
      ['error', 'sensor_provider_incomplete', 'sensors/column/custom/no_template/postgresql.dqoprovidersensor.yaml:1:1', null, 'has no sensors/column/custom/no_template/postgresql.sql.jinja2 beside it'],
      // an error sampling template alone is no provider either
      ['error', 'sensor_provider_incomplete', 'sensors/column/custom/only_sample/postgresql.sample.sql.jinja2:1:1', null, 'has no sensors/column/custom/only_sample/postgresql.dqoprovidersensor.yaml beside it'],
      ['error', 'wrong_type', 'sensors/table/custom/big_orders/postgresql.dqoprovidersensor.yaml:5:22', 'yes', 'expected boolean, got string "yes"'],
      ['warning', 'orphan_sensor_file', 'sensors/table/custom/orphan/postgresql.sql.jinja2:1:1', null, 'has no sensordefinition.dqosensor.yaml beside it'],
      ['error', 'unknown_sensor', `${ORDERS}:10:26`, 'table/custom/big_order', 'unknown sensor "table/custom/big_order"; did you mean "table/custom/big_orders"?'],
      ['error', 'custom_check_incomplete', `${ORDERS}:16:9`, 'many_big_order:', 'did you mean the check definition "table/monitoring/daily/custom/many_big_orders"?'],
      ['error', 'unknown_dictionary', `${ORDERS}:27:21`, '${dictionary://status.csv}', 'unknown dictionary "status.csv"; did you mean "statuses.csv"?'],
    ],
    objects: ['source:shop', 'dictionary:statuses.csv'],
  },
  {
    name: 'comparison_unknown',
    expected: [
      ['error', 'comparison_unknown', `${ORDERS}:13:9`, 'orders_in_warehous', 'name the table comparison "orders_in_warehous", which spec.table_comparisons does not define'],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'comparison_unknown_connection',
    expected: [
      ['error', 'comparison_unknown_connection', `${ORDERS}:7:40`, 'warehouse', 'the reference connection "warehouse" does not exist'],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'lineage_unknown_table',
    expected: [
      [
        'warning',
        'lineage_unknown_table',
        `${ORDERS}:54:21`,
        'order_staging',
        'lineage source table public.order_staging is not among the tables of connection "shop"',
      ],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'threshold_order',
    golden: true,
    expected: [
      ['warning', 'threshold_order', `${ORDERS}:14:24`, '10', 'daily_row_count: the warning threshold min_count=10 is looser than the error threshold min_count=5000'],
      [
        'warning',
        'threshold_order',
        `${ORDERS}:24:24`,
        '1',
        'daily_partition_row_count: the warning threshold min_count=1 is looser than the fatal threshold min_count=10',
      ],
      ['warning', 'threshold_order', `${ORDERS}:37:28`, '10', 'daily_nulls_count: the error threshold max_count=10 is looser than the fatal threshold max_count=5'],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'plaintext_secret',
    expected: [['warning', 'plaintext_secret', `${CONNECTION}:11:5`, 'password', 'postgresql.password holds a literal secret']],
    objects: BASE_OBJECTS,
  },
  {
    name: 'partitioned_without_partition_column',
    expected: [
      [
        'warning',
        'partitioned_without_partition_column',
        `${ORDERS}:18:3`,
        'partitioned_checks:',
        'partitioned checks need timestamp_columns.partition_by_column',
      ],
    ],
    objects: BASE_OBJECTS,
  },
  {
    // The schema's enum rejects the category (invalid_value); the semantic policy_target_cannot_match must not
    // report it a second time.
    name: 'policy_unknown_data_type_category',
    expected: [
      [
        'error',
        'invalid_value',
        'patterns/id_columns_not_null.dqocolumnpattern.yaml:10:25',
        'integer',
        'invalid value "integer" for data_type_category; did you mean "numeric_integer"?',
      ],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'policy_target_unknown_connection',
    expected: [
      [
        'warning',
        'policy_target_unknown_connection',
        'patterns/id_columns_not_null.dqocolumnpattern.yaml:8:17',
        'shop_dwh',
        'the policy targets connection "shop_dwh", which is not in the repository',
      ],
      [
        'warning',
        'policy_target_unknown_connection',
        'patterns/oltp/Detect empty tables daily.dqotablepattern.yaml:8:17',
        '"shop_oltp, shop_replica"',
        'the policy targets connections "shop_oltp", "shop_replica", none of which is in the repository',
      ],
    ],
    objects: [...BASE_OBJECTS, 'default_table_checks:oltp/Detect empty tables daily', 'default_column_checks:id_columns_not_null'],
  },
  {
    name: 'orphan_rule_module',
    expected: [
      ['warning', 'orphan_rule_module', 'rules/volume/order_volume_band.py:1:1', null, 'has no order_volume_band.dqorule.yaml beside it'],
    ],
    objects: BASE_OBJECTS,
  },
  {
    // what apply could not store (issue 15): refused by validate at the value, the key, the name or the byte
    name: 'unstorable_text',
    expected: [
      ['error', 'unstorable_text', 'rules/volume/band.py:2:14', '\u0000b"', 'the rule module holds a NUL character'],
      ['error', 'unstorable_text', 'sources/shop/public.customers.dqotable.yaml:48:21', '"ship\\0ped"', 'a value holding a NUL character'],
      ['error', 'unstorable_text', 'sources/shop/public.payments.dqotable.yaml:36:5', '"status\\ud800":', 'a key holding a lone UTF-16 surrogate'],
      ['error', 'unstorable_text', 'sources/shop/public.ship%00ments.dqotable.yaml:1:1', null, 'the name "shop/public.ship\\u0000ments" decoded from'],
      ['error', 'unstorable_text', 'sources/ware%00house/connection.dqoconnection.yaml:1:1', null, 'the name "ware\\u0000house" decoded from'],
    ],
    objects: BASE_OBJECTS,
  },
  {
    name: 'too_deeply_nested',
    expected: [['error', 'too_deeply_nested', `${ORDERS}:6:111`, '[[[', 'the document nests deeper than 100 levels']],
    objects: ONLY_SOURCE,
  },
  {
    name: 'unstorable_number',
    expected: [['error', 'unstorable_number', `${ORDERS}:16:24`, '.inf', 'a number the live store cannot hold']],
    objects: ONLY_SOURCE,
  },
  {
    name: 'variable_without_environment',
    golden: true,
    expected: [['error', 'variable_without_environment', `${ORDERS}:16:24`, '${var.orders_min}', 'pass --env with one of dev, prod']],
    objects: ONLY_SOURCE,
  },
  {
    // names the variable, and the environments that do define it
    name: 'variable_undefined',
    golden: true,
    environment: 'prod',
    expected: [['error', 'variable_undefined', `${CONNECTION}:7:11`, 'db.${var.region}.internal', 'the environment prod does not define the variable region; the environments defining it are dev, staging']],
    objects: ['table:shop/public.orders'],
  },
  {
    // one error at dqctl.yaml's environments, not one more per reference
    name: 'environment_unknown',
    fixture: 'variable_undefined',
    golden: true,
    environment: 'qa',
    expected: [['error', 'environment_unknown', 'dqctl.yaml:5:3', 'environments:', '--env qa: no such environment in dqctl.yaml; the environments are dev, prod, staging']],
    objects: [],
  },
  {
    name: 'variable_misuse',
    golden: true,
    environment: 'prod',
    expected: [
      ['error', 'variable_recursive', 'dqctl.yaml:10:16', '${var.orders_min}', 'the variable alias of prod refers to another variable'],
      ['error', 'variable_not_allowed', 'settings/defaultschedules.dqoschedules.yaml:5:22', '${var.daily_cron}', 'replaced only in sources/, patterns/ and rules/'],
      ['error', 'variable_in_file_name', 'sources/shop/public.${var.table}.dqotable.yaml:1:1', null, 'a file or folder name cannot hold ${var.…}'],
      ['error', 'variable_recursive', `${ORDERS}:16:24`, '${var.${var.orders_min}}', 'nests a variable inside a variable'],
      ['error', 'variable_invalid', `${ORDERS}:24:24`, '${var.orders-min}', 'is not a variable reference'],
      ['error', 'variable_in_key', `${ORDERS}:36:5`, '${var.status_column}:', 'a key cannot be a variable'],
    ],
    objects: ONLY_SOURCE,
  },
  {
    name: 'multi_error',
    golden: true,
    expected: [
      ['error', 'unknown_key', 'patterns/id_columns_not_null.dqocolumnpattern.yaml:13:11', 'eror:', 'did you mean "error"?'],
      ['error', 'invalid_value', 'rules/trend/drop_below_recent_average.dqorule.yaml:6:9', 'previous_readout', 'did you mean "previous_readouts"?'],
      ['warning', 'threshold_order', 'sources/shop/public.customers.dqotable.yaml:11:24', '10', 'the warning threshold min_count=10 is looser'],
      ['error', 'wrong_type', `${ORDERS}:5:13`, 'high', 'expected integer, got string "high"'],
      ['error', 'unknown_check', `${ORDERS}:12:9`, 'daily_row_cont:', 'did you mean "daily_row_count"?'],
      ['error', 'unknown_rule_parameter', `${ORDERS}:35:17`, 'max_cont: 0', 'did you mean "max_count"?'],
      ['error', 'duplicate_key', 'sources/shop/public.payments.dqotable.yaml:10:5', 'payment_id:', 'duplicate key'],
      ['error', 'lineage_unknown_connection', 'sources/shop/public.shipments.dqotable.yaml:7:26', 'warehouse', 'connection "warehouse" does not exist'],
    ],
    objects: [
      'source:shop',
      'table:shop/public.customers',
      'rule:volume/order_volume_band',
      'default_table_checks:Detect empty tables daily',
    ],
  },
];

/** Codes of the loader itself (outside the schema's VIOLATION_CODES), each to be triggered by some test here. */
// The registry of codes: a code added there without a fixture here fails the coverage test below.
const LOADER_CODES: string[] = Object.keys(LOADER_DIAGNOSTICS);

const triggered = new Set<string>();

function at(d: Diagnostic): string {
  return `${d.range?.filename}:${d.range?.start.line}:${d.range?.start.column}`;
}

function objectKeys(state: DesiredState): string[] {
  return state.objects.map((o) => `${o.kind}:${o.name}`);
}

/** The text of the file from the diagnostic's start position to the end of that line. */
function textAt(state: DesiredState, d: Diagnostic): string {
  const text = state.texts.get(d.range!.filename);
  expect(text, `no text kept for ${d.range!.filename}`).toBeDefined();
  const line = text!.split('\n')[d.range!.start.line - 1];
  expect(line, `${at(d)}: no such line`).toBeDefined();
  return line.slice(d.range!.start.column - 1);
}

function expectSortedByPosition(diagnostics: Diagnostic[]): void {
  const key = (d: Diagnostic) => [d.range!.filename, d.range!.start.line, d.range!.start.column] as const;
  for (let i = 1; i < diagnostics.length; i++) {
    const [fa, la, ca] = key(diagnostics[i - 1]);
    const [fb, lb, cb] = key(diagnostics[i]);
    const ordered = fa < fb || (fa === fb && (la < lb || (la === lb && ca <= cb)));
    expect(ordered, `${at(diagnostics[i - 1])} before ${at(diagnostics[i])}`).toBe(true);
  }
}

async function tempCopy(fixture: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `dqctl-diagnostics-${fixture}-`));
  await cp(join(FIXTURES, fixture), dir, { recursive: true });
  temporary.push(dir);
  return dir;
}

const temporary: string[] = [];
afterAll(async () => {
  await Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('valid repositories load without diagnostics', () => {
  it('examples/shop: no diagnostics and 22 objects', async () => {
    const state = await loadRepository(SHOP);
    expect(state.diagnostics).toEqual([]);
    expect(state.objects).toHaveLength(22);
    expect(state.texts.size).toBe(0);
  });

  it('the base of the fixtures (valid_minimal): no diagnostics, a connection and a table', async () => {
    const state = await loadRepository(join(FIXTURES, 'valid_minimal'));
    expect(state.diagnostics).toEqual([]);
    expect(objectKeys(state)).toEqual(BASE_OBJECTS);
  });
});

describe.each(CASES)('fixture $name', (c) => {
  it('reports exactly the expected diagnostics, at the offending key or value, with a helpful summary', async () => {
    const state = await loadRepository(join(FIXTURES, c.fixture ?? c.name), { environment: c.environment });
    const actual = state.diagnostics.map((d) => [d.severity, d.code, at(d)]);
    expect(actual).toEqual(c.expected.map(([severity, code, where]) => [severity, code, where]));

    state.diagnostics.forEach((d, i) => {
      const [, , , text, summary] = c.expected[i];
      triggered.add(d.code);
      expect(d.summary).toContain(summary);
      expect(d.range!.end.line * 1e6 + d.range!.end.column).toBeGreaterThanOrEqual(d.range!.start.line * 1e6 + d.range!.start.column);
      if (text === null) {
        // A finding about the whole file: 1:1, rendered without a snippet.
        expect(d.range).toEqual({ filename: d.range!.filename, start: { line: 1, column: 1 }, end: { line: 1, column: 1 } });
      } else {
        expect(textAt(state, d).startsWith(text), `${at(d)} points at ${JSON.stringify(textAt(state, d))}, not ${JSON.stringify(text)}`).toBe(
          true,
        );
      }
    });
    expectSortedByPosition(state.diagnostics);
    expect(objectKeys(state)).toEqual(c.objects);
  });

  if (c.golden) {
    it(`renders file:line:column, the snippet and the caret as in golden/${c.name}.txt`, async () => {
      const state = await loadRepository(join(FIXTURES, c.fixture ?? c.name), { environment: c.environment });
      await expect(renderDiagnosticsText(state.diagnostics, state.texts)).toMatchFileSnapshot(`golden/${c.name}.txt`);
    });
  }
});

describe('specific behaviour', () => {
  it('reports an unknown data_type_category once (the schema), not again as policy_target_cannot_match', async () => {
    const state = await loadRepository(join(FIXTURES, 'policy_unknown_data_type_category'));
    const onCategory = state.diagnostics.filter((d) => textAt(state, d).startsWith('integer'));
    expect(onCategory).toHaveLength(1);
    expect(state.diagnostics.map((d) => d.code)).not.toContain('policy_target_cannot_match');
    expect(onCategory[0].detail).toContain('"numeric_integer"');
  });

  it('duplicate_object: two file names decoding to one name; one file is reported and the other one loads', async () => {
    // Which of the two files is "the second" is not asserted: see the report (the order depends on read timing).
    const state = await loadRepository(join(FIXTURES, 'duplicate_object'));
    for (const d of state.diagnostics) triggered.add(d.code);
    const pairs: Array<[kind: string, name: string, files: string[]]> = [
      ['table', 'shop/public.a:b', ['sources/shop/public.a%3Ab.dqotable.yaml', 'sources/shop/public.a%3ab.dqotable.yaml']],
      ['default_table_checks', 'oltp/critical', ['patterns/oltp%2Fcritical.dqotablepattern.yaml', 'patterns/oltp/critical.dqotablepattern.yaml']],
    ];
    expect(state.diagnostics).toHaveLength(pairs.length);
    for (const [kind, name, files] of pairs) {
      const d = state.diagnostics.find((x) => x.summary.startsWith(`${kind} ${JSON.stringify(name)} is defined twice`));
      expect(d, `${kind} ${name}`).toBeDefined();
      expect(d).toMatchObject({ severity: 'error', code: 'duplicate_object' });
      expect(files).toContain(d!.range!.filename);
      expect(d!.range!.start).toEqual({ line: 2, column: 1 });
      expect(textAt(state, d!)).toBe('apiVersion: dqo/v1');
      for (const file of files) expect(d!.summary).toContain(file);
      const kept = state.objects.filter((o) => o.kind === kind && o.name === name);
      expect(kept).toHaveLength(1);
      expect(kept[0].origin.file).toBe(files.find((f) => f !== d!.range!.filename));
    }
    expect(objectKeys(state)).toEqual(expect.arrayContaining(BASE_OBJECTS));
    expectSortedByPosition(state.diagnostics);
  });

  it('multi_error: every error of every file at once; files with errors are left out, valid ones stay', async () => {
    const state = await loadRepository(join(FIXTURES, 'multi_error'));
    const files = new Set(state.diagnostics.filter((d) => d.severity === 'error').map((d) => d.range!.filename));
    expect([...files].sort()).toEqual([
      'patterns/id_columns_not_null.dqocolumnpattern.yaml',
      'rules/trend/drop_below_recent_average.dqorule.yaml',
      ORDERS,
      'sources/shop/public.payments.dqotable.yaml',
      'sources/shop/public.shipments.dqotable.yaml',
    ]);
    // A YAML error, schema errors and a semantic (cross-file) error all come out of one load.
    expect(state.diagnostics.filter((d) => d.range!.filename === ORDERS)).toHaveLength(3);
    for (const o of state.objects) expect(files.has(o.origin.file), o.origin.file).toBe(false);
    // A warning does not leave the object out.
    expect(objectKeys(state)).toContain('table:shop/public.customers');
    // The valid custom rule keeps its Python module.
    const rule = state.objects.find((o) => o.kind === 'rule');
    expect(rule?.attachments.python_module).toContain('def evaluate_rule');
    // Sorted by file, then line, then column.
    const sorted = [...state.diagnostics].sort(
      (a, b) =>
        (a.range!.filename < b.range!.filename ? -1 : a.range!.filename > b.range!.filename ? 1 : 0)
        || a.range!.start.line - b.range!.start.line
        || a.range!.start.column - b.range!.start.column,
    );
    expect(state.diagnostics).toEqual(sorted);
    expect(renderDiagnosticsText(state.diagnostics, state.texts)).toContain('invalid: 7 errors, 1 warning\n');
  });

  it('keeps the texts of the files with diagnostics only (for snippets)', async () => {
    const state = await loadRepository(join(FIXTURES, 'multi_error'));
    expect([...state.texts.keys()].sort()).toEqual([...new Set(state.diagnostics.map((d) => d.range!.filename))].sort());
  });
});

describe('faults made at test time in a temporary copy', () => {
  it('symlink_outside_repository: a linked file and a linked folder leading out of the repository are refused', async () => {
    const dir = await tempCopy('valid_minimal');
    const outside = await mkdtemp(join(tmpdir(), 'dqctl-diagnostics-outside-'));
    temporary.push(outside);
    await writeFile(join(outside, 'customers.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {}\n');
    await mkdir(join(outside, 'rules'));
    await writeFile(join(outside, 'rules', 'r.dqorule.yaml'), 'apiVersion: dqo/v1\nkind: rule\nspec: {}\n');
    await symlink(join(outside, 'customers.yaml'), join(dir, 'sources/shop/public.customers.dqotable.yaml'));
    await symlink(join(outside, 'rules'), join(dir, 'rules'));
    // A link that stays inside the repository is followed.
    await symlink('public.orders.dqotable.yaml', join(dir, 'sources/shop/public.orders_copy.dqotable.yaml'));

    const state = await loadRepository(dir);
    expect(state.diagnostics.map((d) => [d.severity, d.code, at(d)])).toEqual([
      ['error', 'symlink_outside_repository', 'rules:1:1'],
      ['error', 'symlink_outside_repository', 'sources/shop/public.customers.dqotable.yaml:1:1'],
    ]);
    for (const d of state.diagnostics) {
      triggered.add(d.code);
      expect(d.summary).toContain('outside the repository; refusing to read it');
      expect(d.summary).toContain(outside);
    }
    expect(objectKeys(state)).toEqual([...BASE_OBJECTS, 'table:shop/public.orders_copy']);
  });

  it('unreadable_file: a broken symbolic link', async () => {
    const dir = await tempCopy('valid_minimal');
    await symlink('public.gone.dqotable.yaml', join(dir, 'sources/shop/public.customers.dqotable.yaml'));
    const state = await loadRepository(dir);
    expect(state.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'unreadable_file',
        summary: 'broken symbolic link sources/shop/public.customers.dqotable.yaml',
        range: { filename: 'sources/shop/public.customers.dqotable.yaml', start: { line: 1, column: 1 }, end: { line: 1, column: 1 } },
      },
    ]);
    triggered.add('unreadable_file');
    expect(objectKeys(state)).toEqual(BASE_OBJECTS);
  });

  it('file_too_large: an 11 MB file is refused without being read', async () => {
    const dir = await tempCopy('valid_minimal');
    const big = await open(join(dir, 'sources/shop/public.events.dqotable.yaml'), 'w');
    await big.truncate(11 * 1024 * 1024);
    await big.close();
    const state = await loadRepository(dir);
    expect(state.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'file_too_large',
        summary: 'sources/shop/public.events.dqotable.yaml is 11.0 MB; files over 10 MB are refused',
        range: { filename: 'sources/shop/public.events.dqotable.yaml', start: { line: 1, column: 1 }, end: { line: 1, column: 1 } },
      },
    ]);
    triggered.add('file_too_large');
    expect(state.texts.size).toBe(0);
    expect(renderDiagnosticsText(state.diagnostics, state.texts)).toBe(
      'sources/shop/public.events.dqotable.yaml:1:1: error[file_too_large]: sources/shop/public.events.dqotable.yaml is 11.0 MB; files over 10 MB are refused\n\ninvalid: 1 error, 0 warnings\n',
    );
    expect(objectKeys(state)).toEqual(BASE_OBJECTS);
  });
});

describe('secrets stay out of the output', () => {
  it('the plaintext_secret snippet shows the key, never the value', async () => {
    const state = await loadRepository(join(FIXTURES, 'plaintext_secret'));
    const text = renderDiagnosticsText(state.diagnostics, state.texts);
    expect(text).toContain('password: (sensitive)');
    expect(text).not.toContain('s3cr3t');
  });
});

describe('hostile repositories end quickly', () => {
  it('symlink_loop: links back to a folder already read are reported once, not followed', async () => {
    const dir = await tempCopy('valid_minimal');
    await symlink('..', join(dir, 'sources/shop/a'));
    await symlink('..', join(dir, 'sources/shop/b'));
    const started = Date.now();
    const state = await loadRepository(dir);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(state.diagnostics.map((d) => [d.severity, d.code, d.range?.filename])).toEqual([
      ['warning', 'symlink_loop', 'sources/shop/a'],
      ['warning', 'symlink_loop', 'sources/shop/b'],
    ]);
    triggered.add('symlink_loop');
    expect(objectKeys(state)).toEqual(BASE_OBJECTS);
  });

  it('yaml_alias_expansion: a "billion laughs" document is refused, not expanded', async () => {
    const dir = await tempCopy('valid_minimal');
    const levels = ['a0: &a0 [x, x, x, x]'];
    for (let i = 1; i <= 14; i++) levels.push(`a${i}: &a${i} [*a${i - 1}, *a${i - 1}, *a${i - 1}, *a${i - 1}]`);
    const bomb = [
      'apiVersion: dqo/v1',
      'kind: rule',
      'spec:',
      '  type: python',
      '  fields:',
      '    - field_name: f',
      '      default_value:',
      ...levels.map((l) => `        ${l}`),
    ].join('\n');
    await mkdir(join(dir, 'rules/x'), { recursive: true });
    await writeFile(join(dir, 'rules/x/bomb.dqorule.yaml'), bomb);
    const started = Date.now();
    const state = await loadRepository(dir);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(state.diagnostics.map((d) => [d.severity, d.code, d.range?.filename])).toEqual([
      ['error', 'yaml_alias_expansion', 'rules/x/bomb.dqorule.yaml'],
    ]);
    triggered.add('yaml_alias_expansion');
  });

  it('quoted_scalar: a quoted number or boolean is read as one (DQOps coerces scalars), with a warning at the value', async () => {
    const dir = await tempCopy('valid_minimal');
    const file = join(dir, 'sources/shop/public.orders.dqotable.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('min_count: 50000', 'min_count: "50000"').replace('priority: 1', 'priority: " 2"'));
    const state = await loadRepository(dir);
    expect(state.diagnostics.map((d) => [d.severity, d.code, d.range?.start.line, d.range?.start.column, d.summary])).toEqual([
      ['warning', 'quoted_scalar', 5, 13, '" 2" is a quoted number; read as 2, as DQOps does'],
      ['warning', 'quoted_scalar', 14, 24, '"50000" is a quoted number; read as 50000, as DQOps does'],
    ]);
    const orders = state.objects.find((o) => o.kind === 'table')!;
    expect(orders.spec.priority).toBe(2);
    expect(JSON.stringify(orders.spec)).toContain('"min_count":50000');
    // a string that is no number stays an error
    await writeFile(file, (await readFile(file, 'utf8')).replace('min_count: "50000"', 'min_count: "lots"'));
    expect((await loadRepository(dir)).diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual(['wrong_type']);
    triggered.add('quoted_scalar');
  });

  it('a file with many aliases that is otherwise fine still gets exact positions', async () => {
    const dir = await tempCopy('valid_minimal');
    const columns = Array.from({ length: 120 }, (_, i) => `    c${i}: *col`).join('\n');
    const text = `apiVersion: dqo/v1\nkind: table\nspec:\n  prority: 3\n  columns:\n    base: &col\n      type_snapshot: {column_type: int4}\n${columns}\n`;
    await writeFile(join(dir, 'sources/shop/public.wide.dqotable.yaml'), text);
    const state = await loadRepository(dir);
    expect(state.diagnostics.map((d) => [d.code, d.range?.start.line, d.range?.start.column])).toEqual([['unknown_key', 4, 3]]);
  });
});

describe('coverage', () => {
  // Runs last in this file (vitest runs tests in order): every code was triggered by one of the tests above.
  it('every schema violation code and every loader code is triggered by a fixture', () => {
    const all = [...VIOLATION_CODES, ...LOADER_CODES];
    expect(all.filter((code) => !triggered.has(code))).toEqual([]);
    expect([...triggered].filter((code) => !all.includes(code))).toEqual([]);
  });
});
