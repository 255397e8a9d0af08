import { describe, expect, it } from 'vitest';
import { histogramOf, type IssueRow } from '../../src/app/issueHistogram.js';

/** The one histogram of issues (a table's results, an incident's issues), counted by hand. */
const row = (overrides: Partial<IssueRow>): IssueRow => ({
  severity: 2,
  executedAt: '2026-11-20T10:00:00.000Z',
  columnName: 'amount',
  checkName: 'daily_nulls_count',
  checkType: 'monitoring',
  timeGradient: 'day',
  ...overrides,
});

describe('histogramOf', () => {
  it('counts issues by day, severity, column and check, and flags the kinds of checks that had any', () => {
    const histogram = histogramOf([
      row({}),
      row({ severity: 1, executedAt: '2026-11-20T23:59:59.000Z' }),
      row({ severity: 3, executedAt: '2026-11-21T00:00:00.000Z', columnName: null, checkName: 'daily_row_count' }),
      row({ severity: 0 }), // valid: no issue
      row({ severity: null }), // no verdict: no issue
      row({ checkType: 'partitioned', timeGradient: 'month', columnName: 'id' }),
      row({ checkType: 'profiling', timeGradient: 'month', checkName: 'profile_nulls_count' }),
    ]);
    expect(histogram.days).toEqual({
      '2026-11-20': { warnings: 1, errors: 3, fatals: 0, totalCount: 4 },
      '2026-11-21': { warnings: 0, errors: 0, fatals: 1, totalCount: 1 },
    });
    expect(histogram.columns).toEqual({ amount: 3, id: 1 });
    expect(histogram.checks).toEqual({ daily_nulls_count: 3, daily_row_count: 1, profile_nulls_count: 1 });
    expect(histogram).toMatchObject({
      hasProfilingIssues: true,
      hasDailyMonitoringIssues: true,
      hasMonthlyMonitoringIssues: false,
      hasDailyPartitionedIssues: false,
      hasMonthlyPartitionedIssues: true,
    });
  });

  it('is empty without issues', () => {
    expect(histogramOf([row({ severity: 0 })])).toEqual({
      days: {},
      columns: {},
      checks: {},
      hasProfilingIssues: false,
      hasDailyMonitoringIssues: false,
      hasMonthlyMonitoringIssues: false,
      hasDailyPartitionedIssues: false,
      hasMonthlyPartitionedIssues: false,
    });
  });
});
