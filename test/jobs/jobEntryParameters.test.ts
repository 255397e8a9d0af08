import { describe, expect, it } from 'vitest';
import { jobEntryParameters } from '../../src/jobs/jobEntryParameters.js';
import { RUN_CHECKS_ON_TABLE } from '../../src/jobs/executors/runChecks.js';

/**
 * A run's child jobs as DQOps's clients read them (RunChecksOnTableParameters: `connection` and `table`, a
 * PhysicalTableName), and a child of several tables of one connection (dqctl's `tables`, a list of them).
 */
describe('jobEntryParameters: the child jobs of a run', () => {
  const filters = { connection: 'shop_oltp' };
  const runTime = '2026-11-28T10:00:00.000Z';

  it('a child of one table names it as DQOps does: connection and table {schema_name, table_name}', () => {
    const answer = jobEntryParameters({
      jobType: RUN_CHECKS_ON_TABLE,
      parameters: { check_search_filters: filters, table: { connection: 'shop_oltp', schema: 'public', table: 'orders' }, run_time: runTime },
      result: { executed_checks: 4, valid_results: 3, warnings: 1 },
    });
    expect(answer).toEqual({
      runChecksOnTableParameters: {
        connection: 'shop_oltp',
        table: { schema_name: 'public', table_name: 'orders' },
        check_search_filters: filters,
        run_time: runTime,
        run_checks_result: { executed_checks: 4, valid_results: 3, warnings: 1 },
      },
    });
  });

  it('a child of several tables lists them in `tables`, in their order, and has no `table`', () => {
    const answer = jobEntryParameters({
      jobType: RUN_CHECKS_ON_TABLE,
      parameters: {
        check_search_filters: filters,
        tables: [
          { connection: 'shop_oltp', schema: 'public', table: 'orders' },
          { connection: 'shop_oltp', schema: 'sales', table: 'line "items"' },
        ],
        run_time: runTime,
      },
      result: null,
    });
    const p = answer.runChecksOnTableParameters as Record<string, unknown>;
    expect(p.connection).toBe('shop_oltp');
    expect(p.table).toBeUndefined();
    expect(p.tables).toEqual([
      { schema_name: 'public', table_name: 'orders' },
      { schema_name: 'sales', table_name: 'line "items"' },
    ]);
    expect(p.run_checks_result).toBeUndefined();
  });
});
