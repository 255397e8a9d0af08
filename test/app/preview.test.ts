import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { previewChecks } from '../../src/app/preview/previewChecks.js';
import type { PreviewCheck, PreviewDocument } from '../../src/app/preview/previewDocument.js';
import type { PreviewRequest } from '../../src/app/preview/previewRequest.js';
import { previewRevisions } from '../../src/app/preview/previewRevisions.js';
import { DataSources } from '../../src/datasource/index.js';
import { checkHashOf } from '../../src/jobs/checkRun/plannedChecks.js';
import { GitSource } from '../../src/manifest/gitSource.js';
import type { JsonObject, SeverityNumber } from '../../src/model/index.js';
import { openStore } from '../../src/store/index.js';
import type { CheckResultInput, Store } from '../../src/store/store.js';
import { gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { writeSourceConnection } from '../helpers/sourceRepo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * `dqctl preview` in-process: two real git revisions, a real PostgreSQL store holding readouts, a real data
 * source. The clock is fixed (NOW), so the backtest window and the stored periods are known.
 */
const NOW = new Date('2026-03-15T10:00:00.000Z');
const DAY = 86_400_000;
const dayStart = (daysAgo: number) => new Date(Date.UTC(2026, 2, 15) - daysAgo * DAY).toISOString();

const TABLE_FILE = (nullsWarning: number, rowCountMin: number, extra = '', partitioned = '') => `apiVersion: dqo/v1
kind: table
spec:
  timestamp_columns:
    partition_by_column: day
${partitioned}  monitoring_checks:
    daily:
      volume:
        daily_row_count:
          error:
            min_count: ${rowCountMin}
${extra}  columns:
    amount:
      type_snapshot:
        column_type: numeric
      monitoring_checks:
        daily:
          nulls:
            daily_nulls_count:
              warning:
                max_count: ${nullsWarning}
`;

/** The null counts stored for amount, newest last: day i before NOW has NULLS[40 - i]. */
const nullsOnDay = (daysAgo: number) => (daysAgo % 3 === 0 ? 10 : 3);
/** Row counts stored for daily_row_count: 10 days, with a gap 5 days ago. */
const ROW_COUNTS: Record<number, number> = { 10: 100, 9: 100, 8: 100, 7: 100, 6: 100, 4: 200, 3: 200, 2: 220, 1: 220 };

describe('preview: backtest and live run of the checks a change adds or modifies', { timeout: 120_000 }, () => {
  let db: TestDatabase;
  let store: Store;
  let repo: GitRepo;
  let env: Record<string, string>;
  let dataSources: DataSources;
  let base: string;
  let head: string;

  const rowOf = (check: string, column: string | null, daysAgo: number, value: number, severity: SeverityNumber | null, executedAt?: string): CheckResultInput => ({
    connectionName: 'db',
    schemaName: 'public',
    tableName: 'Orders',
    columnName: column,
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: column ? 'nulls' : 'volume',
    checkName: check,
    checkHash: checkHashOf('db.public.Orders', column, 'monitoring', 'daily', check),
    sensorName: column ? 'column/nulls/null_count' : 'table/volume/row_count',
    timePeriod: dayStart(daysAgo),
    actualValue: severity === null ? null : value,
    severity,
    executedAt: executedAt ?? new Date(Date.parse(dayStart(daysAgo)) + 3_600_000).toISOString(),
    ...(severity === null ? { errorMessage: 'the source was down' } : {}),
  });

  const preview = (options: { base?: string; live?: boolean; liveLimit?: number; days?: number } = {}): Promise<PreviewDocument> =>
    previewRevisions(
      {
        base: { source: new GitSource({ repository: repo.repo, ref: options.base ?? 'main' }), ref: options.base ?? 'main' },
        head: { source: new GitSource({ repository: repo.repo, ref: 'pr' }), ref: 'pr' },
        days: options.days ?? 30,
        live: options.live ?? true,
        liveLimit: options.liveLimit ?? 50,
      },
      (request, headState) => {
        const sources = new Map<string, JsonObject>(headState.objects.filter((o) => o.kind === 'source').map((o) => [o.name, o.spec]));
        return previewChecks(request, { store, connectionSpec: (name) => sources.get(name), dataSources, now: NOW, signal: new AbortController().signal });
      },
    );

  const find = (doc: PreviewDocument, check: string, column: string | null = null, table = 'Orders'): PreviewCheck => {
    const found = doc.checks.find((c) => c.check_name === check && c.column === column && c.table === table);
    expect(found, `${table} ${column} ${check} in ${JSON.stringify(doc.checks.map((c) => [c.table, c.column, c.check_name]))}`).toBeDefined();
    return found!;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query('create table public."Orders" (id int, amount numeric, day date)');
    // three daily partitions in the last week: 13, 14 and 13 rows
    await client.query(`insert into public."Orders" select g, case when g % 4 = 0 then null else g end, date '2026-03-10' + (g % 3) from generate_series(1, 40) g`);
    await client.end();
    store = await openStore({ databaseUrl: db.url });

    repo = await gitRepo({ withExample: false });
    env = { ...(await writeSourceConnection(repo.repo, 'db', db.url)), DOWN_PASSWORD: 'pa55-w0rd-never-printed' };
    dataSources = new DataSources({ env });
    // a connection nobody listens on
    await mkdir(join(repo.repo, 'sources/down'), { recursive: true });
    await writeFile(
      join(repo.repo, 'sources/down/connection.dqoconnection.yaml'),
      'apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: 127.0.0.1\n    port: "1"\n    database: nowhere\n    user: nobody\n    password: ${DOWN_PASSWORD}\n',
    );
    await writeFile(join(repo.repo, 'sources/db/public.Orders.dqotable.yaml'), TABLE_FILE(5, 1));
    base = await repo.commitAll('base');

    // the pull request: a looser nulls threshold, a stricter row count, a new check, a check on a column the
    // table does not have, a table on a data source that cannot be reached
    const { git } = await import('../helpers/gitRepo.js');
    await git(repo.repo, 'checkout', '-q', '-b', 'pr');
    await writeFile(
      join(repo.repo, 'sources/db/public.Orders.dqotable.yaml'),
      TABLE_FILE(
        15,
        100,
        '        daily_row_count_change_1_day:\n          warning:\n            max_percent: 5\n            exact_day: true\n',
        '  partitioned_checks:\n    daily:\n      volume:\n        daily_partition_row_count:\n          error:\n            min_count: 14\n',
      ) + '    ghost:\n      monitoring_checks:\n        daily:\n          nulls:\n            daily_nulls_count:\n              warning:\n                max_count: 0\n',
    );
    await writeFile(
      join(repo.repo, 'sources/down/public.t.dqotable.yaml'),
      'apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: 1\n',
    );
    head = await repo.commitAll('the change');
    await git(repo.repo, 'checkout', '-q', 'main');

    const rows: CheckResultInput[] = [];
    for (let daysAgo = 40; daysAgo >= 1; daysAgo--) {
      const value = nullsOnDay(daysAgo);
      rows.push(rowOf('daily_nulls_count', 'amount', daysAgo, value, value > 5 ? 1 : 0));
    }
    // day 1 ran twice: the newer run (3 nulls, valid) stands for the day; day 2's newer run failed (no readout)
    rows.push(rowOf('daily_nulls_count', 'amount', 1, 12, 1, new Date(Date.parse(dayStart(1)) + 1_800_000).toISOString()));
    rows.push(rowOf('daily_nulls_count', 'amount', 2, 0, null, new Date(Date.parse(dayStart(2)) + 7_200_000).toISOString()));
    for (const [daysAgo, value] of Object.entries(ROW_COUNTS)) rows.push(rowOf('daily_row_count', null, Number(daysAgo), value, Number(daysAgo) === 9 ? 2 : 0));
    await store.insertCheckResults(rows);
  });

  afterAll(async () => {
    await dataSources?.close();
    await store?.close();
    await repo?.cleanup();
    await db?.drop();
  });

  it('finds the added and modified checks, with the full commit ids and the file each comes from', async () => {
    const doc = await preview({ live: false });
    expect(doc.format_version).toBe('1.0');
    expect(doc.base).toBe(base);
    expect(doc.head).toBe(head);
    expect(doc.base).toMatch(/^[0-9a-f]{40}$/);
    expect(doc.days).toBe(30);
    const changes = doc.checks.map((c) => [c.connection, c.table, c.column, c.check_name, c.change, c.time_scale, c.check_type]).sort();
    expect(changes).toEqual(
      [
        ['db', 'Orders', 'amount', 'daily_nulls_count', 'modified', 'daily', 'monitoring'],
        ['db', 'Orders', 'ghost', 'daily_nulls_count', 'added', 'daily', 'monitoring'],
        ['db', 'Orders', null, 'daily_row_count', 'modified', 'daily', 'monitoring'],
        ['db', 'Orders', null, 'daily_row_count_change_1_day', 'added', 'daily', 'monitoring'],
        ['db', 'Orders', null, 'daily_partition_row_count', 'added', 'daily', 'partitioned'],
        ['down', 't', null, 'daily_row_count', 'added', 'daily', 'monitoring'],
      ].sort(),
    );
    expect(find(doc, 'daily_nulls_count', 'amount').source).toBe('sources/db/public.Orders.dqotable.yaml');
    expect(Object.keys(find(doc, 'daily_nulls_count', 'amount'))).toEqual([
      'connection', 'schema', 'table', 'column', 'check_type', 'time_scale', 'check_name', 'change', 'source', 'backtest', 'backtest_error', 'live',
    ]);
  });

  it('backtests the head settings on the newest readout of each period in the window, before as stored', async () => {
    const doc = await preview({ live: false });
    // 29 days in the window (today has no readout yet); day 1: its newer run (3, valid); day 2: the failed newer run is no readout
    const days = Array.from({ length: 29 }, (_, i) => i + 1);
    const value = (daysAgo: number) => (daysAgo === 1 ? 3 : nullsOnDay(daysAgo));
    const warningsBefore = days.filter((d) => value(d) > 5).length;
    expect(find(doc, 'daily_nulls_count', 'amount').backtest).toEqual({
      readouts: 29,
      before: { valid: 29 - warningsBefore, warning: warningsBefore, error: 0, fatal: 0 },
      after: { valid: 29, warning: 0, error: 0, fatal: 0 },
    });
    // min_count 1 → 100: every stored row count is at least 100
    expect(find(doc, 'daily_row_count').backtest).toEqual({
      readouts: 9,
      before: { valid: 8, warning: 0, error: 1, fatal: 0 },
      after: { valid: 9, warning: 0, error: 0, fatal: 0 },
    });
    // a shorter window counts fewer readouts
    const week = await preview({ live: false, days: 7 });
    expect(find(week, 'daily_row_count').backtest?.readouts).toBe(5); // days 6, 4, 3, 2, 1 (5 is the gap)
  });

  it('backtests a new check on the readouts of a check with the same sensor and parameters; history gaps give no verdict', async () => {
    const doc = await preview({ live: false });
    // change_1_day with exact_day: day 4 has no readout the day before (the gap), nor has the oldest readout:
    // no verdict (a readout only, counted in no severity), not a comparison with day 6; day 2 (220) is 10 % above
    // day 3 (200): a warning; the other six do not move
    expect(find(doc, 'daily_row_count_change_1_day').backtest).toEqual({
      readouts: 9,
      before: { valid: 0, warning: 0, error: 0, fatal: 0 },
      after: { valid: 6, warning: 1, error: 0, fatal: 0 },
    });
    // nothing stored on a column the base did not have, nor on the new table
    expect(find(doc, 'daily_nulls_count', 'ghost').backtest).toBeNull();
    expect(find(doc, 'daily_row_count', null, 't').backtest).toBeNull();
  });

  it('runs the changed checks live, storing nothing; a failing sensor and an unreachable source are not run, with the reason', async () => {
    const counts = async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const [results] = (await client.query('select count(*)::int as n from dqctl.check_results')).rows;
        const [incidents] = (await client.query('select count(*)::int as n from dqctl.incidents')).rows;
        const [samples] = (await client.query('select count(*)::int as n from dqctl.error_samples')).rows;
        return [results.n, incidents.n, samples.n];
      } finally {
        await client.end();
      }
    };
    const before = await counts();
    const doc = await preview();
    expect(await counts()).toEqual(before);

    expect(find(doc, 'daily_nulls_count', 'amount').live).toEqual({
      status: 'ran', actual_value: 10, expected_value: 15, severity: 'valid', reason: null, partitions: null,
    });
    expect(find(doc, 'daily_row_count').live).toMatchObject({ status: 'ran', actual_value: 40, severity: 'error', reason: null });
    // the new change rule looks back at the readouts that stand for it (daily_row_count's): 40 today against 220 yesterday
    expect(find(doc, 'daily_row_count_change_1_day').live).toMatchObject({ status: 'ran', actual_value: 40, expected_value: 220, severity: 'warning' });
    const ghost = find(doc, 'daily_nulls_count', 'ghost').live!;
    expect(ghost.status).toBe('not_run');
    expect(ghost.reason).toContain('ghost');
    const down = find(doc, 'daily_row_count', null, 't').live!;
    expect(down.status).toBe('not_run');
    expect(down.reason).toMatch(/refused|connect/i);
    expect(JSON.stringify(doc)).not.toContain(env.DOWN_PASSWORD);
    // partitioned: the most severe partition stands for the check, with the count of partitions per severity
    expect(find(doc, 'daily_partition_row_count').live).toEqual({
      status: 'ran', actual_value: 13, expected_value: 14, severity: 'error', reason: null, partitions: { valid: 1, warning: 0, error: 2, fatal: 0 },
    });
  });

  it('--no-live and the live limit leave checks not run, saying why', async () => {
    const off = await preview({ live: false });
    for (const check of off.checks) expect(check.live).toMatchObject({ status: 'not_run', reason: expect.stringContaining('--no-live') });
    const limited = await preview({ liveLimit: 1 });
    expect(limited.warnings).toContain('live checks ran on 1 of 2 tables (--live-limit 1); the checks of the others are not run');
    expect(find(limited, 'daily_row_count', null, 't').live).toMatchObject({ status: 'not_run', reason: 'beyond the live limit of 1 table (--live-limit)' });
    expect(find(limited, 'daily_nulls_count', 'amount').live?.status).toBe('ran');
  });

  it('refuses a base revision that does not exist', async () => {
    await expect(preview({ base: 'no-such-branch' })).rejects.toMatchObject({ code: 'REPOSITORY_UNREADABLE', message: expect.stringContaining('unknown git ref "no-such-branch"') });
  });

  it('reads the store once per check type, however many tables a request holds', async () => {
    let reads = 0;
    const counting: Pick<Store, 'backtestReadouts' | 'checkResults'> = {
      backtestReadouts: (...args) => (reads++, store.backtestReadouts(...args)),
      checkResults: (filter) => store.checkResults(filter),
    };
    const check = (name: string, checkType: 'monitoring' | 'profiling', timeScale: 'daily' | null) => ({
      column: null, check_type: checkType, time_scale: timeScale, category: 'volume', check_name: name, comparison: null,
      spec: { error: { min_count: 1 } }, change: 'modified' as const, source: 'patterns/p.dqotablepattern.yaml', history_check_name: name,
    });
    const request: PreviewRequest = {
      days: 30,
      live: false,
      live_limit: 50,
      tables: Array.from({ length: 200 }, (_, i) => ({
        connection: 'db', schema: 'public', table: i === 0 ? 'Orders' : `t${i}`, spec: {},
        checks: [check('daily_row_count', 'monitoring', 'daily'), check('profile_row_count', 'profiling', null)],
      })),
    };
    const outcome = await previewChecks(request, { store: counting, connectionSpec: () => undefined, now: NOW, signal: new AbortController().signal });
    expect(reads).toBe(2);
    expect(outcome.checks).toHaveLength(400);
    expect(outcome.checks[0].backtest?.readouts).toBe(9);
    expect(outcome.checks.filter((c) => c.backtest !== null)).toHaveLength(1);
  });
});

describe('preview: a policy change reaches every table the policy applies to', { timeout: 60_000 }, () => {
  it('lists the policy check on each table it reaches (not where the table file overrides it), from the policy file', async () => {
    const { changedChecks } = await import('../../src/app/preview/changedChecks.js');
    const { loadRepository } = await import('../../src/manifest/loadRepository.js');
    const { diffRevisions } = await import('../../src/app/diffRevisions.js');
    const { git } = await import('../helpers/gitRepo.js');
    const shop = await gitRepo();
    try {
      const file = join(shop.repo, 'patterns/Detect empty tables daily.dqotablepattern.yaml');
      const { readFile } = await import('node:fs/promises');
      await git(shop.repo, 'checkout', '-q', '-b', 'pr');
      await writeFile(file, (await readFile(file, 'utf8')).replace(/daily_row_count:\n(\s+)error:\n(\s+)min_count: 1/, 'daily_row_count:\n$1error:\n$2min_count: 10'));
      await shop.commitAll('at least 10 rows every day');
      const load = (ref: string) => loadRepository(new GitSource({ repository: shop.repo, ref }));
      const tables = changedChecks(await load('main'), await load('pr'));
      const checks = tables.flatMap((t) => t.checks.map((c) => ({ table: `${t.connection}.${t.schema}.${t.table}`, ...c })));
      expect(checks.length).toBeGreaterThan(1);
      for (const check of checks) {
        expect(check).toMatchObject({ check_name: 'daily_row_count', change: 'modified', source: 'patterns/Detect empty tables daily.dqotablepattern.yaml', history_check_name: 'daily_row_count' });
        expect(check.spec).toMatchObject({ error: { min_count: 10 } });
      }
      // as many tables as the diff's blast radius counts for the policy, less those whose own file sets the check
      const diff = await diffRevisions({
        base: { source: new GitSource({ repository: shop.repo, ref: 'main' }), ref: 'main' },
        head: { source: new GitSource({ repository: shop.repo, ref: 'pr' }), ref: 'pr' },
      });
      const reached = diff.blastRadius[0].repository.after!.tables;
      const head = await load('pr');
      const overriding = head.objects.filter((o) => o.kind === 'table' && JSON.stringify(o.spec.monitoring_checks ?? {}).includes('"daily_row_count"')).length;
      expect(checks.length).toBe(reached - overriding);
    } finally {
      await shop.cleanup();
    }
  });
});
