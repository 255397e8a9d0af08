import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { DataSources } from '../../src/datasource/index.js';
import { runChecks, runChecksExecutor, type RunChecksResult } from '../../src/jobs/executors/runChecks.js';
import { DqError } from '../../src/model/index.js';
import { runningJob } from '../helpers/jobs.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * The check runner end to end on a real PostgreSQL data source whose answers the test knows:
 * `Sales "EU"."order lines"` has 10 rows, 2 NULL "Ünit Price" values, 3 negative quantities.
 */
const job = (parameters: Record<string, unknown>) => runningJob('run_checks', parameters);

describe('run checks on a real data source', () => {
  let fx: StoreFixture;
  let source: TestDatabase;
  let objects: LiveObjects;
  let dataSources: DataSources;

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    source = await createTestDatabase();
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query(`create schema "Sales ""EU"""`);
    await client.query(`create table "Sales ""EU"""."order lines" (id int primary key, "Ünit Price" numeric, qty int, note text)`);
    await client.query(
      `insert into "Sales ""EU"""."order lines" values
        (1, 10, 1, 'a'), (2, null, 2, 'b'), (3, 30, -1, 'c'), (4, 40, 4, null), (5, null, -5, 'e'),
        (6, 60, 6, 'f'), (7, 70, -7, 'g'), (8, 80, 8, 'h'), (9, 90, 9, 'i'), (10, 100, 10, 'j')`,
    );
    await client.end();
    const url = new URL(source.url);
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const ctx = { caller: 'test' };
    await objects.create('source', 'src', { provider_type: 'postgresql', postgresql: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres', password: '${DQCTL_TEST_UNUSED_PASSWORD}' } }, ctx);
    await objects.create(
      'table',
      'src/Sales "EU".order lines',
      {
        monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 20 }, error: { min_count: 5 } } } } },
        columns: {
          'Ünit Price': { monitoring_checks: { daily: { nulls: { daily_nulls_count: { warning: { max_count: 0 }, error: { max_count: 5 } } } } } },
          qty: { monitoring_checks: { daily: { numeric: { daily_negative_values: { error: { max_count: 1 } } } } } },
          note: {},
        },
      },
      ctx,
    );
    // a policy adds a nulls check to every column named note
    await objects.create('default_column_checks', 'notes', { target: { column: 'note' }, monitoring_checks: { daily: { nulls: { daily_nulls_count: { fatal: { max_count: 0 } } } } } }, ctx);
    dataSources = new DataSources({ env: { DQCTL_TEST_UNUSED_PASSWORD: '' } });
  });
  afterAll(async () => {
    await dataSources.close();
    await source.drop();
    await fx.dispose();
  });

  it('measures each sensor exactly, judges every severity, and stores the results', async () => {
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    const result = await run(job({ check_search_filters: { connection: 'src' } }), new AbortController().signal);
    expect(result).toEqual({ highest_severity: 'fatal', executed_checks: 4, valid_results: 0, warnings: 2, errors: 1, fatals: 1, execution_errors: 0 });
    const rows = await fx.store.checkResults({ connectionName: 'src', schemaName: 'Sales "EU"', tableName: 'order lines' });
    const byCheck = Object.fromEntries(rows.map((r) => [`${r.columnName ?? ''}:${r.checkName}`, [r.actualValue, r.severity]]));
    expect(byCheck).toEqual({
      ':daily_row_count': [10, 1],
      'Ünit Price:daily_nulls_count': [2, 1],
      'qty:daily_negative_values': [3, 2],
      'note:daily_nulls_count': [1, 3],
    });
  });

  it('narrows by the filters and plans without SQL on dummy_execution', async () => {
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    const dummy = await run(job({ check_search_filters: { connection: 'src', column: 'qty' }, dummy_execution: true }), new AbortController().signal);
    expect(dummy).toMatchObject({ executed_checks: 1, highest_severity: null });
    const onlyTable = await run(job({ check_search_filters: { connection: 'src', checkCategory: 'volume' } }), new AbortController().signal);
    expect(onlyTable).toMatchObject({ executed_checks: 1, warnings: 1 });
  });

  it('a sensor that fails on its column is an execution error of that check only; the others of the scan still run', async () => {
    await objects.update('table', 'src/Sales "EU".order lines', { caller: 'test' }, (current) => ({
      spec: {
        ...current.spec,
        columns: {
          ...(current.spec.columns as Record<string, never>),
          note: { monitoring_checks: { daily: { numeric: { daily_number_below_min_value: { parameters: { min_value: 5 }, error: { max_count: 0 } } } } } },
        },
      },
    }));
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    const result = (await run(job({ check_search_filters: { connection: 'src', checkType: 'monitoring' } }), new AbortController().signal)) as RunChecksResult;
    expect(result).toMatchObject({ executed_checks: 5, execution_errors: 1 });
    expect(result.valid_results + result.warnings + result.errors + result.fatals).toBe(4);
    const rows = await fx.store.checkResults({ connectionName: 'src', schemaName: 'Sales "EU"', tableName: 'order lines', columnName: 'note', checkName: 'daily_number_below_min_value', newest: { of: 'runs', count: 1 } });
    expect(rows[0].severity).toBeNull();
    expect(rows[0].errorMessage).toBeTruthy();
  });

  it('expected values in use: the sensor reads how many values the list holds, so max_missing counts the missing ones', async () => {
    const inUse = (expected: string[]) => ({ monitoring_checks: { daily: { accepted_values: { daily_expected_text_values_in_use_count: { parameters: { expected_values: expected }, error: { max_missing: 0 } } } } } });
    for (const [expected, severity, missing] of [
      [['a', 'b', 'j'], 0, 0],
      [['a', 'zz', 'yy'], 2, 2],
    ] as const) {
      await objects.update('table', 'src/Sales "EU".order lines', { caller: 'test' }, (current) => ({
        spec: { ...current.spec, columns: { ...(current.spec.columns as Record<string, never>), note: inUse([...expected]) } },
      }));
      const run = runChecksExecutor({ store: fx.store, objects, dataSources });
      await run(job({ check_search_filters: { connection: 'src', column: 'note', checkCategory: 'accepted_values' } }), new AbortController().signal);
      const [row] = await fx.store.checkResults({ connectionName: 'src', schemaName: 'Sales "EU"', tableName: 'order lines', columnName: 'note', checkName: 'daily_expected_text_values_in_use_count', newest: { of: 'runs', count: 1 } });
      expect([row.actualValue, row.expectedValue, row.severity]).toEqual([3 - missing, 3, severity]);
    }
  });

  it('as DQOps stores them: no thresholds is a valid result; thresholds that cannot decide store a readout only; a rule may give the result its own actual value', async () => {
    const ctx = { caller: 'test' };
    const client = new pg.Client({ connectionString: source.url });
    await client.connect();
    await client.query('create table public.verdicts (id int)');
    await client.query('insert into public.verdicts values (1), (2), (3)');
    await client.end();
    await objects.create(
      'table',
      'src/public.verdicts',
      // daily_row_count with no severity: a readout recorded as valid (DQOps: passed, outside the KPI);
      // daily_row_count_change on its first run: no earlier readout to compare with, so no verdict
      { monitoring_checks: { daily: { volume: { daily_row_count: {}, daily_row_count_change: { warning: { max_percent: 10 } } } } } },
      ctx,
    );
    // a table that does not exist: its availability readout is 1 (a failure) on every run
    await objects.create('table', 'src/public.gone', { monitoring_checks: { daily: { availability: { daily_table_availability: { error: { max_failures: 1 } } } } } }, ctx);
    // yesterday's readout of that check was a failure too, so today's is the second in a row
    const today = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()));
    const yesterday = new Date(today.getTime() - 86_400_000).toISOString();
    const [planned] = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'gone' });
    expect(planned).toBeUndefined();
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    await run(job({ check_search_filters: { connection: 'src', fullTableName: 'public.gone' } }), new AbortController().signal);
    const [first] = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'gone' });
    // one failure in a row is within max_failures 1: valid, the result's actual value is that count
    expect([first.actualValue, first.severity]).toEqual([1, 0]);
    await fx.store.insertCheckResults([{ ...first, timePeriod: yesterday, executedAt: yesterday, actualValue: 1, severity: 0 }]);

    const result = (await run(job({ check_search_filters: { connection: 'src', fullTableName: 'public.*' } }), new AbortController().signal)) as RunChecksResult;
    // three checks ran; the change check's readout is not a result, so two results are counted
    expect(result).toMatchObject({ executed_checks: 3, valid_results: 1, errors: 1, execution_errors: 0 });

    const results = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'verdicts' });
    expect(results.map((r) => [r.checkName, r.actualValue, r.severity])).toEqual([['daily_row_count', 3, 0]]);
    const readouts = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'verdicts', read: 'readouts' });
    expect(readouts.map((r) => [r.checkName, r.actualValue, r.verdict]).sort()).toEqual([
      ['daily_row_count', 3, true],
      ['daily_row_count_change', 3, false],
    ]);

    // today's failure is the second in a row (today's earlier run is the same period and is not history):
    // the result shows the count, 2 > 1 is an error; the readout keeps the sensor's 1
    const [gone] = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'gone', newest: { of: 'rows', count: 1 } });
    expect([gone.actualValue, gone.severity]).toEqual([2, 2]);
    const [goneReadout] = await fx.store.checkResults({ connectionName: 'src', schemaName: 'public', tableName: 'gone', newest: { of: 'rows', count: 1 }, read: 'readouts' });
    expect(goneReadout.actualValue).toBe(1);

    // the table's status folds results only: the readout without a verdict is not counted as valid
    const status = (await fx.store.tableSeverities()).find((row) => row.tableName === 'verdicts');
    expect(status).toMatchObject({ valid: 1, warnings: 0, errors: 0, fatals: 0, executionErrors: 0 });
  });

  it('a data source that refuses connections gives execution errors, not a crash', async () => {
    const ctx = { caller: 'test' };
    await objects.create('source', 'down', { provider_type: 'postgresql', postgresql: { host: '127.0.0.1', port: '1', database: 'x', user: 'x' } }, ctx);
    await objects.create('table', 'down/public.t', { monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } } }, ctx);
    const run = runChecksExecutor({ store: fx.store, objects, dataSources });
    const failure = await run(job({ check_search_filters: { connection: 'down' } }), new AbortController().signal).catch((error: DqError) => error);
    expect(failure).toBeInstanceOf(DqError);
    expect((failure as DqError).code).toBe('DATASOURCE_UNREACHABLE');
    expect((failure as DqError).message).toMatch(/run checks failed for 1 of 1 table .*down\/public\.t: .*refused/);
    expect((failure as DqError).details?.result).toMatchObject({ executed_checks: 1, execution_errors: 1, highest_severity: null });
    const [row] = await fx.store.checkResults({ connectionName: 'down', schemaName: 'public', tableName: 't' });
    expect(row.errorMessage).toMatch(/refused|connect/i);
  });

  it('a run whose clock is earlier than an open incident opens or joins the incident of its own time, and leaves the newer one open', async () => {
    // the runs' clock is injected: a later day, then twice an earlier day (the earlier run's time was refused on
    // incidents_pkey before: the second earlier run tried to open the first one's incident again)
    const at = (iso: string) => runChecks({ store: fx.store, objects, dataSources }, { check_search_filters: { connection: 'src' } }, new AbortController().signal, { now: new Date(iso) });
    const later = '2027-06-10T10:00:00.000Z';
    const earlier = '2027-06-01T10:00:00.000Z';
    await at(later);
    await at(earlier);
    await at(earlier);
    const incidents = await fx.store.incidents.list({ connection: 'src', firstSeenFrom: '2027-06-01T00:00:00.000Z', order: 'firstSeen', direction: 'asc' });
    const ofLater = incidents.filter((i) => i.firstSeen === later);
    const ofEarlier = incidents.filter((i) => i.firstSeen === earlier);
    expect(ofLater.length).toBeGreaterThan(0);
    expect(ofEarlier.length + ofLater.length).toBe(incidents.length);
    // one incident per key at each time; the later ones untouched (open, one run's failures), the earlier ones
    // opened by the first earlier run and joined by the second (two runs' failures)
    expect(ofEarlier.map((i) => i.incidentHash).sort()).toEqual(ofLater.map((i) => i.incidentHash).sort());
    for (const incident of ofLater) expect(incident).toMatchObject({ status: 'open', lastSeen: later });
    for (const incident of ofEarlier) {
      const newer = ofLater.find((i) => i.incidentHash === incident.incidentHash)!;
      expect(incident).toMatchObject({ status: 'open', failedChecksCount: 2 * newer.failedChecksCount, highestSeverity: newer.highestSeverity });
    }
  });
});
