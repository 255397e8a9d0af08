import type { CheckType } from '../model/index.js';
import type { SeverityNumber, TableIdentity } from '../model/index.js';
import type { Store } from '../store/store.js';

/**
 * DQOps's issue histogram of a table (`get_table_issues_histogram`): how many results of the table's checks were
 * warnings, errors or fatals, by day (of execution), by column and by check, since a date (default 30 days
 * ago), and which kinds of checks had any. Execution errors are not issues here.
 */
export interface DailyIssues {
  warnings: number;
  errors: number;
  fatals: number;
  totalCount: number;
}

export interface IssueHistogram {
  days: Record<string, DailyIssues>;
  columns: Record<string, number>;
  checks: Record<string, number>;
  hasProfilingIssues: boolean;
  hasDailyMonitoringIssues: boolean;
  hasMonthlyMonitoringIssues: boolean;
  hasDailyPartitionedIssues: boolean;
  hasMonthlyPartitionedIssues: boolean;
}

const DEFAULT_DAYS = 30;

export async function issueHistogram(store: Store, table: TableIdentity, options: { since?: string; now?: Date } = {}): Promise<IssueHistogram> {
  const now = options.now ?? new Date();
  const since = options.since ?? new Date(now.getTime() - DEFAULT_DAYS * 86_400_000).toISOString().slice(0, 10);
  const rows = await store.checkResults({ connectionName: table.connection, schemaName: table.schema, tableName: table.table, executionErrors: 'exclude' });
  return histogramOf(rows.filter((row) => row.executedAt.slice(0, 10) >= since));
}

/** What a histogram reads of a result row. */
export interface IssueRow {
  severity: SeverityNumber | null;
  executedAt: string;
  columnName: string | null;
  checkName: string;
  checkType: CheckType;
  timeGradient: string;
}

/** The histogram of these rows (a table's results, or an incident's issues); rows that are no issue are skipped. */
export function histogramOf(rows: Iterable<IssueRow>): IssueHistogram {
  const histogram: IssueHistogram = {
    days: {},
    columns: {},
    checks: {},
    hasProfilingIssues: false,
    hasDailyMonitoringIssues: false,
    hasMonthlyMonitoringIssues: false,
    hasDailyPartitionedIssues: false,
    hasMonthlyPartitionedIssues: false,
  };
  const add = (counts: Record<string, number>, key: string) => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  for (const row of rows) {
    if (row.severity === null || row.severity < 1) continue;
    const day = (histogram.days[row.executedAt.slice(0, 10)] ??= { warnings: 0, errors: 0, fatals: 0, totalCount: 0 });
    day.totalCount++;
    if (row.severity === 1) day.warnings++;
    else if (row.severity === 2) day.errors++;
    else day.fatals++;
    if (row.columnName !== null) add(histogram.columns, row.columnName);
    add(histogram.checks, row.checkName);
    const monthly = row.timeGradient.startsWith('month');
    if (row.checkType === 'profiling') histogram.hasProfilingIssues = true;
    else if (row.checkType === 'monitoring') {
      if (monthly) histogram.hasMonthlyMonitoringIssues = true;
      else histogram.hasDailyMonitoringIssues = true;
    } else if (monthly) histogram.hasMonthlyPartitionedIssues = true;
    else histogram.hasDailyPartitionedIssues = true;
  }
  return histogram;
}
