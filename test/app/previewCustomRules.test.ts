import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { changedChecks } from '../../src/app/preview/changedChecks.js';
import { previewChecks } from '../../src/app/preview/previewChecks.js';
import type { PreviewCheck, PreviewDocument, PreviewOutcome } from '../../src/app/preview/previewDocument.js';
import type { PreviewRequest } from '../../src/app/preview/previewRequest.js';
import { previewRevisions } from '../../src/app/preview/previewRevisions.js';
import { DataSources } from '../../src/datasource/index.js';
import { checkHashOf } from '../../src/jobs/checkRun/plannedChecks.js';
import { GitSource } from '../../src/manifest/gitSource.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import type { JsonObject, SeverityNumber } from '../../src/model/index.js';
import { PythonRuleRunner } from '../../src/pythonrules/index.js';
import { parseTokens } from '../../src/server/tokens.js';
import { openStore } from '../../src/store/index.js';
import type { CheckResultInput, Store } from '../../src/store/store.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { call, serverOn } from '../helpers/server.js';
import { writeSourceConnection } from '../helpers/sourceRepo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * `dqctl preview` of a pull request that changes custom Python rules only (no YAML of any table changes): the
 * checks using a changed `.py` are modified, the backtest re-judges their stored readouts with the head's rule
 * (as `run checks` resolves it: a rule file at a built-in rule's path replaces it), a previous_readouts rule
 * reads as far back as its own time window says, the live run measures with a custom sensor and judges with the
 * head's rules, and a rule that raises is that check's error. Every count below is computed by hand from the
 * stored readouts and the seeded table. Through a server, a change's own rule code runs only for an admin.
 *
 * The clock is fixed: NOW is 2026-03-15 10:00 UTC and the backtest window is 7 days, so the readouts of days
 * 6…1 before NOW are judged (today has none stored) and the older ones are only history.
 */
const NOW = new Date('2026-03-15T10:00:00.000Z');
const DAY = 86_400_000;
const dayStart = (daysAgo: number) => new Date(Date.UTC(2026, 2, 15) - daysAgo * DAY).toISOString();
const CUSTOM_HOME = join(import.meta.dirname, '../fixtures/customHome');

/**
 * The seeded table: 40 rows; amount is null on every fifth (8 nulls); status is paid, sent, lost or null in
 * turn (10 paid and 10 sent: the custom sensor's accepted count is 20).
 */
const SEED = `
create table public."Orders" (id int, amount numeric, status text);
insert into public."Orders" select g, case when g % 5 = 0 then null else g end,
  case g % 4 when 0 then 'paid' when 1 then 'sent' when 2 then 'lost' end from generate_series(1, 40) g;
`;

const TABLE = `apiVersion: dqo/v1
kind: table
spec:
  monitoring_checks:
    daily:
      volume:
        daily_row_count:
          error:
            min_count: 1
        custom_checks:
          in_band:
            sensor_name: table/volume/row_count
            rule_name: myrules/band
            error:
              min_value: 100
          fragile:
            sensor_name: table/volume/row_count
            rule_name: myrules/fragile
            error:
              min_value: 1
          trend:
            sensor_name: table/volume/row_count
            rule_name: myrules/above_oldest
            error:
              min_value: 0
      custom:
        defined:
          error:
            min_value: 100
  columns:
    amount:
      type_snapshot:
        column_type: numeric
      monitoring_checks:
        daily:
          nulls:
            daily_nulls_count:
              warning:
                max_count: 5
    status:
      type_snapshot:
        column_type: text
      monitoring_checks:
        daily:
          accepted_values:
            custom_checks:
              accepted:
                sensor_name: column/custom/accepted_count
                rule_name: myrules/band
                parameters:
                  expected_values: [paid, sent]
                error:
                  min_value: 10
`;

const RULE = (mode: string, extra = '') => `apiVersion: dqo/v1\nkind: rule\nspec:\n  type: python\n  mode: ${mode}\n${extra}`;
const MIN_VALUE_FIELD = '  fields:\n    - field_name: min_value\n      data_type: double\n';

/** base: at least min_value; head: between min_value and twice it. */
const BAND_BASE = `def evaluate_rule(rule_parameters):
    low = rule_parameters.parameters.min_value
    return {'passed': rule_parameters.actual_value >= low, 'expected_value': low, 'lower_bound': low}
`;
const BAND_HEAD = `def evaluate_rule(rule_parameters):
    low = rule_parameters.parameters.min_value
    high = 2 * low
    return {'passed': low <= rule_parameters.actual_value <= high, 'expected_value': low, 'lower_bound': low, 'upper_bound': high}
`;
const FRAGILE_BASE = `def evaluate_rule(rule_parameters):\n    return {'passed': True}\n`;
const FRAGILE_HEAD = `def evaluate_rule(rule_parameters):\n    raise ValueError('no thresholds for this table')\n`;
/** 90 days of history; base: always passes; head: at least the oldest readout of the window. */
const ABOVE_OLDEST_WINDOW = '  time_window:\n    prediction_time_window: 90\n    min_periods_with_readouts: 1\n    historic_data_point_grouping: day\n';
const ABOVE_OLDEST_HEAD = `def evaluate_rule(rule_parameters):
    seen = [r.sensor_readout for r in rule_parameters.previous_readouts if r is not None]
    return {'passed': rule_parameters.actual_value >= seen[0], 'expected_value': seen[0]}
`;
/** Added in head at the built-in rule's path: max_count becomes strict (5 nulls now fail max_count 5). */
const MAX_COUNT_HEAD = `def evaluate_rule(rule_parameters):
    limit = rule_parameters.parameters.max_count
    return {'passed': rule_parameters.actual_value < limit, 'expected_value': limit, 'upper_bound': limit}
`;

/** Stored readouts, by days before NOW. */
const IN_BAND: Record<number, number> = { 10: 90, 9: 150, 8: 250, 7: 120, 6: 210, 5: 100, 4: 99, 3: 300, 2: 180, 1: 200 };
const NULLS: Record<number, number> = { 6: 5, 5: 3, 4: 5, 3: 10, 2: 2, 1: 5 };
const TREND: Record<number, number> = { 80: 500, 10: 100, 9: 100, 8: 100, 7: 100, 6: 100, 5: 100, 4: 100, 3: 100, 2: 100, 1: 100 };
const FRAGILE: Record<number, number> = { 3: 40, 2: 40, 1: 40 };
const ACCEPTED: Record<number, number> = { 3: 25, 2: 20, 1: 8 };

const counts = (valid: number, warning = 0, error = 0, fatal = 0) => ({ valid, warning, error, fatal });

describe('preview of a change to custom rules', { timeout: 180_000 }, () => {
  let db: TestDatabase;
  let store: Store;
  let repo: GitRepo;
  let env: Record<string, string>;
  let dataSources: DataSources;

  const file = async (path: string, text: string) => {
    await mkdir(dirname(join(repo.repo, path)), { recursive: true });
    await writeFile(join(repo.repo, path), text);
  };

  const revisions = (head = 'pr') => ({
    base: { source: new GitSource({ repository: repo.repo, ref: 'main' }), ref: 'main' },
    head: { source: new GitSource({ repository: repo.repo, ref: head }), ref: head },
    days: 7,
    live: true,
    liveLimit: 50,
  });

  const preview = (context: { python?: PythonRuleRunner } = {}): Promise<PreviewDocument> =>
    previewRevisions(revisions(), (request, headState) => {
      const sources = new Map<string, JsonObject>(headState.objects.filter((o) => o.kind === 'source').map((o) => [o.name, o.spec]));
      return previewChecks(request, { store, connectionSpec: (name) => sources.get(name), dataSources, now: NOW, signal: new AbortController().signal, ...context });
    });

  const find = (doc: { checks: PreviewCheck[] }, check: string, column: string | null = null): PreviewCheck => {
    const found = doc.checks.find((c) => c.check_name === check && c.column === column);
    expect(found, `${column} ${check} in ${JSON.stringify(doc.checks.map((c) => [c.column, c.check_name]))}`).toBeDefined();
    return found!;
  };

  const applyRevision = async (ref: string) => {
    await git(repo.repo, 'checkout', '-q', ref);
    try {
      const { plan } = await planRepository({ repository: repo.repo, store });
      await applyPlan(plan, store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 10_000 });
    } finally {
      await git(repo.repo, 'checkout', '-q', 'main');
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(SEED);
    await client.end();
    store = await openStore({ databaseUrl: db.url });

    repo = await gitRepo({ withExample: false });
    env = await writeSourceConnection(repo.repo, 'db', db.url);
    dataSources = new DataSources({ env });
    await file('sources/db/public.Orders.dqotable.yaml', TABLE);
    await cp(join(CUSTOM_HOME, 'sensors'), join(repo.repo, 'sensors'), { recursive: true });
    await file('rules/myrules/band.dqorule.yaml', RULE('current_value', MIN_VALUE_FIELD));
    await file('rules/myrules/band.py', BAND_BASE);
    // a check definition: \`defined\` (the container's custom map) runs the row count with myrules/band
    await file('checks/table/monitoring/daily/custom/defined.dqocheck.yaml', 'apiVersion: dqo/v1\nkind: check\nspec:\n  sensor_name: table/volume/row_count\n  rule_name: myrules/band\n');
    await file('rules/myrules/fragile.dqorule.yaml', RULE('current_value', MIN_VALUE_FIELD));
    await file('rules/myrules/fragile.py', FRAGILE_BASE);
    await file('rules/myrules/above_oldest.dqorule.yaml', RULE('previous_readouts', ABOVE_OLDEST_WINDOW + MIN_VALUE_FIELD));
    await file('rules/myrules/above_oldest.py', FRAGILE_BASE);
    await repo.commitAll('base');

    // the pull request changes Python only, and adds a rule file over the built-in comparison/max_count
    await git(repo.repo, 'checkout', '-q', '-b', 'pr');
    await file('rules/myrules/band.py', BAND_HEAD);
    await file('rules/myrules/fragile.py', FRAGILE_HEAD);
    await file('rules/myrules/above_oldest.py', ABOVE_OLDEST_HEAD);
    await file('rules/comparison/max_count.dqorule.yaml', RULE('current_value', '  fields:\n    - field_name: max_count\n      data_type: long\n'));
    await file('rules/comparison/max_count.py', MAX_COUNT_HEAD);
    await repo.commitAll('stricter rules');
    // another change: only the custom sensor's template (it also counts nulls as accepted)
    await git(repo.repo, 'checkout', '-q', '-b', 'pr-sensor', 'main');
    const template = join(repo.repo, 'sensors/column/custom/accepted_count/postgresql.sql.jinja2');
    await writeFile(template, (await readFile(template, 'utf8')).replace('THEN 1 ELSE 0 END', 'THEN 1 WHEN {{ lib.render_target_column(\'analyzed_table\') }} IS NULL THEN 1 ELSE 0 END'));
    await repo.commitAll('nulls are accepted');
    await git(repo.repo, 'checkout', '-q', 'main');

    const rows: CheckResultInput[] = [];
    const stored = (checkName: string, category: string, column: string | null, sensor: string, values: Record<number, number>, severityOf: (value: number) => SeverityNumber) => {
      for (const [daysAgo, value] of Object.entries(values)) {
        rows.push({
          connectionName: 'db',
          schemaName: 'public',
          tableName: 'Orders',
          columnName: column,
          checkType: 'monitoring',
          timeGradient: 'day',
          checkCategory: category,
          checkName,
          checkHash: checkHashOf('db.public.Orders', column, 'monitoring', 'daily', checkName),
          sensorName: sensor,
          timePeriod: dayStart(Number(daysAgo)),
          actualValue: value,
          severity: severityOf(value),
          executedAt: new Date(Date.parse(dayStart(Number(daysAgo))) + 3_600_000).toISOString(),
        });
      }
    };
    // the severities the base rules gave
    stored('in_band', 'volume', null, 'table/volume/row_count', IN_BAND, (v) => (v >= 100 ? 0 : 2));
    stored('defined', 'custom', null, 'table/volume/row_count', IN_BAND, (v) => (v >= 100 ? 0 : 2));
    stored('daily_nulls_count', 'nulls', 'amount', 'column/nulls/null_count', NULLS, (v) => (v > 5 ? 1 : 0));
    stored('trend', 'volume', null, 'table/volume/row_count', TREND, () => 0);
    stored('fragile', 'volume', null, 'table/volume/row_count', FRAGILE, () => 0);
    stored('accepted', 'accepted_values', 'status', 'column/custom/accepted_count', ACCEPTED, (v) => (v >= 10 ? 0 : 2));
    await store.insertCheckResults(rows);
  });

  afterAll(async () => {
    await dataSources?.close();
    await store?.close();
    await repo?.cleanup();
    await db?.drop();
  });

  it('a changed .py alone modifies every check that uses the rule, and only those', async () => {
    const doc = await preview();
    expect(doc.checks.map((c) => [c.column, c.check_name, c.change]).sort()).toEqual(
      [
        [null, 'in_band', 'modified'],
        [null, 'defined', 'modified'],
        [null, 'fragile', 'modified'],
        [null, 'trend', 'modified'],
        ['amount', 'daily_nulls_count', 'modified'],
        ['status', 'accepted', 'modified'],
      ].sort(),
    );
    // daily_row_count's rule (comparison/min_count) did not change: not listed
    expect(doc.checks.some((c) => c.check_name === 'daily_row_count')).toBe(false);
  });

  it("backtests the stored readouts with the head's rule: changed logic, a rule file replacing a built-in, a custom time window", async () => {
    const doc = await preview();
    // days 6…1: 210 100 99 300 180 200. base (≥ 100): only 99 fails; head (100…200): 210, 99 and 300 fail
    expect(find(doc, 'in_band').backtest).toEqual({ readouts: 6, before: counts(5, 0, 1), after: counts(3, 0, 3) });
    // the same readouts, judged by the rule its check definition names (the request carries it: a server has no checks/ of the head)
    expect(find(doc, 'defined').backtest).toEqual({ readouts: 6, before: counts(5, 0, 1), after: counts(3, 0, 3) });
    // days 6…1: 5 3 5 10 2 5. built-in max_count 5: only 10 warns; head's strict file: the three 5s and 10 warn
    expect(find(doc, 'daily_nulls_count', 'amount').backtest).toEqual({ readouts: 6, before: counts(5, 1), after: counts(2, 4) });
    // days 3…1: 25 20 8 accepted. base (≥ 10): 8 fails; head (10…20): 25 and 8 fail
    expect(find(doc, 'accepted', 'status').backtest).toEqual({ readouts: 3, before: counts(2, 0, 1), after: counts(1, 0, 2) });
    // every day reads 100; the oldest readout of a 90-day window is 500, stored 80 days ago, far before the
    // 7-day window (and the month the backtest reads before it for a rule without a window): each day fails
    expect(find(doc, 'trend').backtest).toEqual({ readouts: 6, before: counts(6), after: counts(0, 0, 6) });
    for (const check of ['in_band', 'trend']) expect(find(doc, check).backtest_error).toBeNull();
  });

  it('a rule that raises is the error of its check, in the backtest and live; the other checks are judged', async () => {
    const doc = await preview();
    const fragile = find(doc, 'fragile');
    expect(fragile.backtest).toBeNull();
    expect(fragile.backtest_error).toMatch(/^rule myrules\/fragile \(error\): .*ValueError: no thresholds for this table.* \(on every readout\)$/s);
    expect(fragile.live).toMatchObject({ status: 'not_run', reason: expect.stringContaining('ValueError: no thresholds for this table') });
    expect(find(doc, 'in_band').live?.status).toBe('ran');
  });

  it("runs live with the head's rules and the custom sensor, storing nothing", async () => {
    const before = await store.checkResults({ connectionName: 'db', schemaName: 'public', tableName: 'Orders' });
    const doc = await preview();
    // 40 rows: below the band's 100
    expect(find(doc, 'in_band').live).toEqual({ status: 'ran', actual_value: 40, expected_value: 100, severity: 'error', reason: null, partitions: null });
    expect(find(doc, 'defined').live).toEqual({ status: 'ran', actual_value: 40, expected_value: 100, severity: 'error', reason: null, partitions: null });
    // 8 null amounts against the strict max_count 5
    expect(find(doc, 'daily_nulls_count', 'amount').live).toEqual({ status: 'ran', actual_value: 8, expected_value: 5, severity: 'warning', reason: null, partitions: null });
    // the custom sensor: 10 paid + 10 sent = 20, within 10…20
    expect(find(doc, 'accepted', 'status').live).toEqual({ status: 'ran', actual_value: 20, expected_value: 10, severity: 'valid', reason: null, partitions: null });
    // 40 today against the oldest readout of the window, 500 (80 days ago)
    expect(find(doc, 'trend').live).toEqual({ status: 'ran', actual_value: 40, expected_value: 500, severity: 'error', reason: null, partitions: null });
    expect(await store.checkResults({ connectionName: 'db', schemaName: 'public', tableName: 'Orders' })).toEqual(before);
  });

  it("a change of a custom sensor's template alone modifies its checks, whose old readouts no longer stand for them", async () => {
    const load = (ref: string) => loadRepository(new GitSource({ repository: repo.repo, ref }));
    const tables = changedChecks(await load('main'), await load('pr-sensor'));
    expect(tables.flatMap((t) => t.checks.map((c) => [c.column, c.check_name, c.change, c.history_check_name]))).toEqual([['status', 'accepted', 'modified', null]]);
    const doc = await previewRevisions({ ...revisions('pr-sensor'), live: true }, (request, headState) => {
      const sources = new Map<string, JsonObject>(headState.objects.filter((o) => o.kind === 'source').map((o) => [o.name, o.spec]));
      return previewChecks(request, { store, connectionSpec: (name) => sources.get(name), dataSources, now: NOW, signal: new AbortController().signal });
    });
    // the head's template counts the 10 null statuses too: 30, above the base band of at least 10
    expect(find(doc, 'accepted', 'status')).toMatchObject({ backtest: null, backtest_error: null, live: { status: 'ran', actual_value: 30, severity: 'valid' } });
  });

  it('starts Python workers only for checks that need them', async () => {
    const python = new PythonRuleRunner();
    try {
      const request: PreviewRequest = {
        days: 7,
        live: false,
        live_limit: 50,
        tables: [
          {
            connection: 'db', schema: 'public', table: 'Orders', spec: {},
            checks: [{
              column: null, check_type: 'monitoring', time_scale: 'daily', category: 'volume', check_name: 'daily_row_count', sensor_name: 'table/volume/row_count',
              rule_name: 'comparison/min_count', comparison: null, spec: { error: { min_count: 1 } }, change: 'modified', source: 't.yaml', history_check_name: 'in_band',
            }],
          },
        ],
        definitions: { rules: [{ name: 'myrules/band', spec: { type: 'python', mode: 'current_value' }, attachments: { python_module: BAND_HEAD } }], sensors: [], dictionaries: [] },
      };
      const context = { store, connectionSpec: () => undefined, now: NOW, signal: new AbortController().signal, python };
      // a built-in rule on in_band's readouts (all ≥ 1): no worker started
      expect((await previewChecks(request, context)).checks[0].backtest).toEqual({ readouts: 6, before: counts(0), after: counts(6) });
      expect(python.started).toBe(0);
      request.tables[0].checks[0].rule_name = 'myrules/band';
      request.tables[0].checks[0].spec = { error: { min_value: 100 } };
      expect((await previewChecks(request, context)).checks[0].backtest?.after).toEqual(counts(3, 0, 3));
      expect(python.started).toBe(1);
    } finally {
      await python.close();
    }
  });

  it("through a server: the change's own rule code runs for an admin; for others only the code the server stores", async () => {
    const tokens = parseTokens('- {name: v, role: viewer, token: viewer-0001}\n- {name: a, role: admin, token: admin-000001}', 't');
    const app = await serverOn(store, { tokens, clock: { now: () => NOW, at: () => () => undefined } });
    try {
      const viaServer = (token: string, strip = false) =>
        previewRevisions({ ...revisions(), live: false }, async (request) => {
          const body = strip ? { ...request, definitions: undefined } : request;
          const answer = await call(app, { method: 'POST', url: '/api/gitops/preview', payload: body, headers: { authorization: `Bearer ${token}` } });
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          return answer.body as PreviewOutcome;
        });
      // the server stores the base: every changed rule is code the viewer brings
      await applyRevision('main');
      const viewer = await viaServer('viewer-0001');
      for (const [check, column] of [['in_band', null], ['daily_nulls_count', 'amount'], ['trend', null]] as const) {
        expect(find(viewer, check, column)).toMatchObject({ backtest: null, backtest_error: expect.stringContaining('needs an admin token (this caller is a viewer)') });
      }
      const admin = await viaServer('admin-000001');
      expect(find(admin, 'in_band').backtest).toEqual({ readouts: 6, before: counts(5, 0, 1), after: counts(3, 0, 3) });
      expect(find(admin, 'defined').backtest).toEqual({ readouts: 6, before: counts(5, 0, 1), after: counts(3, 0, 3) });
      expect(find(admin, 'daily_nulls_count', 'amount').backtest).toEqual({ readouts: 6, before: counts(5, 1), after: counts(2, 4) });
      // once the server stores the head (applied), its code is the server's own: a viewer's preview runs it,
      // and an older client that sends no definitions gets the server's
      await applyRevision('pr');
      for (const doc of [await viaServer('viewer-0001'), await viaServer('viewer-0001', true)]) {
        expect(find(doc, 'in_band').backtest).toEqual({ readouts: 6, before: counts(5, 0, 1), after: counts(3, 0, 3) });
        expect(find(doc, 'trend').backtest).toEqual({ readouts: 6, before: counts(6), after: counts(0, 0, 6) });
      }
    } finally {
      await app.close();
    }
  });
});
