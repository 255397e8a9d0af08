import { judgeReadouts } from '../../jobs/checkRun/judgeReadouts.js';
import { resolveRule, ruleTimeWindow, type CheckRules } from '../../jobs/checkRun/checkRules.js';
import { outcomeOf, periodOf } from '../../jobs/checkRun/resultRows.js';
import type { PlannedCheck } from '../../jobs/checkRun/plannedChecks.js';
import { severityName, type CheckType } from '../../model/index.js';
import type { Readout } from '../../rules/index.js';
import type { BacktestReadoutKey, BacktestReadoutRow, Store } from '../../store/store.js';
import { zeroCounts, type Backtest } from './previewDocument.js';

/**
 * The backtest of a preview: the head settings of each changed check judged on the readouts already stored for
 * it (or for the check that stands for it, previewRequest.ts) whose time period lies in the window, the newest
 * readout of each period and data group, as the rules' own history reads them. Before: the severity stored
 * (for a check read through another one's readouts, which raised nothing itself: no readout counted); after: the head rule's verdict, with the earlier stored readouts as the rule's history (read back as far as
 * the rule's time window looks, so an anomaly rule on the first day of the window sees what it saw then). A
 * readout the rules give no verdict on (not enough history) is counted in neither, as a check run stores it as
 * a readout only (a check with no thresholds at all is valid). Gaps in the history are
 * gaps: a missing day is neither a readout nor a verdict.
 *
 * The rule judges as in a check run (jobs/checkRun/judgeReadouts, the same resolution): a custom rule of the
 * head revision (also one replacing a built-in rule) in the Python workers, with its own time window deciding
 * how far back the history is read. A rule that fails on any readout leaves the check without a backtest, with
 * the error.
 *
 * One read of the store per check type, whatever the number of checks (a policy may reach thousands of tables).
 */
export interface BacktestItem {
  check: PlannedCheck;
  /** The check name whose readouts are read; null: none (the backtest is null). */
  historyCheckName: string | null;
}

export interface BacktestAnswer {
  backtest: Backtest | null;
  /** Set when the head rule could not judge the stored readouts (the backtest is then null). */
  error?: string;
}

const DAY_MS = 86_400_000;
/** The longest look back of a rule's history read (10 years): enough for any window DQOps configures. */
const MAX_LOOKBACK_DAYS = 3660;

export async function backtestChecks(
  items: readonly BacktestItem[],
  context: { store: Pick<Store, 'backtestReadouts'>; now: Date; days: number; rules?: CheckRules },
): Promise<BacktestAnswer[]> {
  const answers: BacktestAnswer[] = items.map(() => ({ backtest: null }));
  const windowStart = Date.UTC(context.now.getUTCFullYear(), context.now.getUTCMonth(), context.now.getUTCDate()) - (context.days - 1) * DAY_MS;
  const byType = new Map<CheckType, number[]>();
  items.forEach((item, index) => {
    if (item.historyCheckName === null) return;
    const list = byType.get(item.check.checkType) ?? [];
    list.push(index);
    byType.set(item.check.checkType, list);
  });
  for (const [checkType, indexes] of byType) {
    const keys: BacktestReadoutKey[] = indexes.map((index) => keyOf(items[index]));
    const lookback = Math.max(0, ...indexes.map((index) => lookbackDays(items[index].check, context.rules)));
    // a monthly period that started before the window still overlaps it: read from a month earlier
    const from = new Date(windowStart - (lookback + 31) * DAY_MS).toISOString();
    const rows = await context.store.backtestReadouts(checkType, keys, from);
    const rowsByKey = new Map<number, BacktestReadoutRow[]>();
    for (const row of rows) {
      const list = rowsByKey.get(row.key) ?? [];
      list.push(row);
      rowsByKey.set(row.key, list);
    }
    for (const [keyIndex, index] of indexes.entries()) {
      const item = items[index];
      answers[index] = await judge(item.check, item.historyCheckName === item.check.checkName, rowsByKey.get(keyIndex) ?? [], windowStart, context.rules);
    }
  }
  return answers;
}

function keyOf(item: BacktestItem): BacktestReadoutKey {
  const { check } = item;
  return {
    connectionName: check.table.connection,
    schemaName: check.table.schema,
    tableName: check.table.table,
    columnName: check.column,
    timeGradient: periodOf(check.checkType, check.timeScale, new Date(0)).timeGradient,
    checkName: item.historyCheckName!,
    tableComparison: check.comparison?.name ?? null,
  };
}

/** Whether a period (its start, and the check's gradient) overlaps the window that starts at `windowStart`. */
function inWindow(timePeriod: string, gradient: string, windowStart: number): boolean {
  const start = new Date(timePeriod);
  const end = gradient === 'day' ? start.getTime() + DAY_MS : Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  return end > windowStart;
}

async function judge(
  check: PlannedCheck,
  own: boolean,
  rows: readonly BacktestReadoutRow[],
  windowStart: number,
  rules: CheckRules | undefined,
): Promise<BacktestAnswer> {
  const gradient = periodOf(check.checkType, check.timeScale, new Date(0)).timeGradient;
  const counted = rows.filter((row) => inWindow(row.timePeriod, gradient, windowStart));
  if (counted.length === 0) return { backtest: null };
  // the readouts before the window are the rules' stored history; those in it are judged (and history too)
  const earlier = new Map<string, Readout[]>();
  for (const row of rows) {
    if (row.actualValue === null || inWindow(row.timePeriod, gradient, windowStart)) continue;
    const list = earlier.get(row.dataGroup) ?? [];
    list.push({ timePeriod: row.timePeriod, value: row.actualValue, expectedValue: row.expectedValue });
    earlier.set(row.dataGroup, list);
  }
  const judged = await judgeReadouts(
    check,
    counted.map((row) => ({ dataGroup: row.dataGroup, timePeriod: row.timePeriod, actualValue: row.actualValue, expectedValue: row.expectedValue })),
    { storedHistory: async () => earlier, ...(rules ? { rules } : {}), timeGradient: gradient, defaultTimePeriod: counted[0].timePeriod },
  );
  const failed = judged.filter((judgement) => 'error' in judgement);
  if (failed.length > 0) {
    const first = failed[0] as { error: string };
    const where = failed.length === judged.length ? 'every readout' : `${failed.length} of ${judged.length} readouts`;
    return { backtest: null, error: `${first.error} (on ${where})` };
  }
  const before = zeroCounts();
  const after = zeroCounts();
  for (const row of counted) if (own && row.verdict) before[severityName(row.severity)]++;
  for (const judgement of judged) {
    if ('error' in judgement) continue;
    const outcome = outcomeOf(judgement.evaluation);
    if (outcome.verdict) after[severityName(outcome.severity ?? 0)]++;
  }
  return { backtest: { readouts: counted.length, before, after } };
}

const GROUPING_DAYS: Record<string, number> = { hour: 1, day: 1, week: 7, month: 31, quarter: 92, year: 366 };

/** How many days before the window the rule of a check reads history (0 for rules that judge one readout). */
function lookbackDays(check: PlannedCheck, rules: CheckRules | undefined): number {
  const window = ruleTimeWindow(resolveRule(check.catalog.rule, rules?.custom));
  if (!window) return 0;
  const gradientDays = check.timeScale === 'daily' && check.checkType !== 'profiling' ? 1 : 31;
  const groupingDays = GROUPING_DAYS[window.historicDataPointGrouping.toLowerCase()] ?? gradientDays;
  return Math.min(MAX_LOOKBACK_DAYS, window.predictionTimeWindow * Math.max(gradientDays, groupingDays) + 1);
}
