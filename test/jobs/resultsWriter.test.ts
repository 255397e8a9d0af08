import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IncidentConfiguration } from '../../src/incidents/index.js';
import { ResultsWriter } from '../../src/jobs/checkRun/resultsWriter.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { failedResult } from '../helpers/checkResults.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The check run's results writer on both engines: tables handed over while a transaction is being written go
 * together into the next one (rows written by one transaction share its xmin), each table's write resolves with its
 * own incidents; a batch the store refuses is written again table by table, so only the table at fault fails; two
 * results of one table never share a transaction (the second sees the first one's incident and joins it).
 */
const configuration: IncidentConfiguration = { connectionSpec: () => ({}), tableSpec: () => undefined, defaultNotifications: undefined };
const tableResults = (table: string, overrides: Partial<CheckResultInput> = {}): CheckResultInput[] => [
  failedResult({ tableName: table, ...overrides }),
  failedResult({ tableName: table, checkName: 'daily_row_count', checkCategory: 'volume', checkHash: 2, severity: 0, ...overrides }),
];

describe.each(STORE_ENGINES)('the results writer on $engine', (engine) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await engine.setup();
  }, 60_000);
  afterAll(async () => fx?.dispose());
  beforeEach(async () => fx.reset());

  const transactionsOf = async (tables: string[]) =>
    (
      await fx.sql.query<{ table_name: string; tx: string }>(
        `select table_name, xmin::text as tx from dqctl.check_results where table_name in (select jsonb_array_elements_text($1::text::jsonb)) order by table_name`,
        [JSON.stringify(tables)],
      )
    ).map((row) => [row.table_name, row.tx] as const);

  it('writes the tables handed over during a transaction together in the next one, each with its own incidents', async () => {
    const writer = new ResultsWriter(fx.store);
    const tables = ['t0', 't1', 't2', 't3', 't4'];
    const outcomes = await Promise.all(tables.map((table) => writer.write({ rows: tableResults(table), configuration })));
    // one incident opened per table (its failure), none absorbed
    expect(outcomes.map((o) => [o.opened.map((i) => i.table), o.absorbed])).toEqual(tables.map((t) => [[t], 0]));
    const written = await transactionsOf(tables);
    expect(written).toHaveLength(2 * tables.length);
    // t0 at once (the writer was idle), the four handed over meanwhile in one transaction
    const byTable = new Map(written.map(([table, tx]) => [table, tx]));
    expect(new Set(tables.slice(1).map((t) => byTable.get(t))).size).toBe(1);
    expect(byTable.get('t0')).not.toBe(byTable.get('t1'));
    expect(new Set(written.filter(([t]) => t === 't0').map(([, tx]) => tx)).size).toBe(1);
  });

  it('bounds a transaction by its tables: the rest goes into the next', async () => {
    const writer = new ResultsWriter(fx.store, { maxTables: 2, maxRows: 1_000 });
    const tables = ['a0', 'a1', 'a2', 'a3', 'a4'];
    await Promise.all(tables.map((table) => writer.write({ rows: tableResults(table), configuration })));
    const byTable = new Map((await transactionsOf(tables)).map(([table, tx]) => [table, tx]));
    // a0 alone, then a1+a2, then a3+a4
    expect([...new Set(tables.map((t) => byTable.get(t)))]).toHaveLength(3);
    expect(byTable.get('a1')).toBe(byTable.get('a2'));
    expect(byTable.get('a3')).toBe(byTable.get('a4'));
  });

  it('a table the store refuses fails alone; the others of its batch are written', async () => {
    const writer = new ResultsWriter(fx.store);
    const results = await Promise.allSettled([
      writer.write({ rows: tableResults('b0'), configuration }),
      writer.write({ rows: tableResults('b1'), configuration }),
      writer.write({ rows: tableResults('b2', { timePeriod: 'not a time' }), configuration }),
      writer.write({ rows: tableResults('b3'), configuration }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason.message).toMatch(/not a time/);
    expect([...new Set((await transactionsOf(['b0', 'b1', 'b2', 'b3'])).map(([t]) => t))]).toEqual(['b0', 'b1', 'b3']);
    expect((await fx.store.incidents.list({ connection: 'shop' })).map((i) => i.table).sort()).toEqual(['b0', 'b1', 'b3']);
  });

  it('two results of one table go into two transactions: the later joins the incident the earlier opened', async () => {
    const writer = new ResultsWriter(fx.store);
    const [, first, second] = await Promise.all([
      writer.write({ rows: tableResults('c0'), configuration }),
      writer.write({ rows: tableResults('c1'), configuration }),
      writer.write({ rows: tableResults('c1', { executedAt: '2026-11-20T11:00:00.000Z' }), configuration }),
    ]);
    expect(first!.opened).toHaveLength(1);
    expect(second).toMatchObject({ opened: [], absorbed: 1 });
    const incidents = await fx.store.incidents.list({ connection: 'shop' });
    expect(incidents.filter((i) => i.table === 'c1').map((i) => [i.failedChecksCount, i.lastSeen])).toEqual([[2, '2026-11-20T11:00:00.000Z']]);
  });

  it('with gatherMs, an idle writer waits for more tables: tables handed over one after the other share one transaction', async () => {
    const writer = new ResultsWriter(fx.store, { maxTables: 100, maxRows: 1_000, gatherMs: 1_000 });
    const tables = ['g0', 'g1', 'g2', 'g3'];
    const writes: Array<Promise<unknown>> = [];
    for (const table of tables) {
      writes.push(writer.write({ rows: tableResults(table), configuration }));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(writes);
    // without gatherMs, g0 would have gone alone (the writer was idle)
    expect(new Set((await transactionsOf(tables)).map(([, tx]) => tx)).size).toBe(1);
  });

  it('with gatherMs, a full batch does not wait: a transaction starts as soon as maxTables tables wait', async () => {
    const writer = new ResultsWriter(fx.store, { maxTables: 2, maxRows: 1_000, gatherMs: 600_000 });
    const tables = ['h0', 'h1', 'h2', 'h3'];
    // resolving at all proves it: the gathering would otherwise last ten minutes
    await Promise.all(tables.map((table) => writer.write({ rows: tableResults(table), configuration })));
    const byTable = new Map((await transactionsOf(tables)).map(([table, tx]) => [table, tx]));
    expect(byTable.get('h0')).toBe(byTable.get('h1'));
    expect(byTable.get('h2')).toBe(byTable.get('h3'));
    expect(byTable.get('h0')).not.toBe(byTable.get('h2'));
  });
});
