import type { Int64 } from '../../model/index.js';
import type { DataSource } from '../../datasource/index.js';
import type { CheckRules } from '../../jobs/checkRun/checkRules.js';
import type { PlannedCheck } from '../../jobs/checkRun/plannedChecks.js';
import { runTableChecks } from '../../jobs/checkRun/runTableChecks.js';
import { severityName } from '../../model/index.js';
import type { CheckResultInput, Store } from '../../store/store.js';
import { zeroCounts, type LiveOutcome } from './previewDocument.js';

/**
 * The live part of a preview: the sensors of one table's changed checks run once now on its data source, as a
 * check run would (the same merged queries and custom sensors' templates, in a READ ONLY snapshot), judged
 * with the head settings and rules (custom ones in the Python workers), and NOTHING is stored: no results, no
 * readouts, no incidents. A check whose sensor or rule fails is `not_run` with the error; a data source that
 * fails makes every check of the table `not_run` with its error.
 */
export async function runLive(
  checks: readonly PlannedCheck[],
  context: { store: Pick<Store, 'checkResults'>; dataSource: DataSource; signal: AbortSignal; now: Date; rules?: CheckRules },
): Promise<Map<number, LiveOutcome>> {
  const outcomes = new Map<number, LiveOutcome>();
  let rows: CheckResultInput[];
  try {
    rows = (await runTableChecks(checks, context)).rows;
  } catch (error) {
    if (context.signal.aborted) throw error;
    for (const check of checks) outcomes.set(check.checkHash, notRun((error as Error).message));
    return outcomes;
  }
  const rowsByCheck = new Map<Int64, CheckResultInput[]>();
  for (const row of rows) {
    const list = rowsByCheck.get(row.checkHash) ?? [];
    list.push(row);
    rowsByCheck.set(row.checkHash, list);
  }
  for (const check of checks) outcomes.set(check.checkHash, outcomeOf(check, rowsByCheck.get(check.checkHash) ?? []));
  return outcomes;
}

export function notRun(reason: string): LiveOutcome {
  return { status: 'not_run', actual_value: null, expected_value: null, severity: null, reason, partitions: null };
}

function outcomeOf(check: PlannedCheck, rows: readonly CheckResultInput[]): LiveOutcome {
  const failed = rows.find((row) => row.severity === null || row.severity === undefined);
  if (failed) return notRun(failed.errorMessage ?? 'the check could not run');
  if (rows.length === 0) return notRun('the sensor returned no readout');
  // a readout the rules give no verdict on (too little history, no actual value) is not a result
  const judged = rows.filter((row) => row.verdict !== false);
  if (judged.length === 0) {
    return {
      status: 'ran',
      actual_value: rows[0].actualValue ?? null,
      expected_value: rows[0].expectedValue ?? null,
      severity: null,
      reason: 'no verdict: the rule needs more history (or an actual value) to judge this readout',
      partitions: null,
    };
  }
  // the most severe partition (or data group) stands for the check; the first of equals
  let worst = judged[0];
  for (const row of judged) if ((row.severity ?? 0) > (worst.severity ?? 0)) worst = row;
  const several = check.checkType === 'partitioned' || rows.length > 1;
  const partitions = several ? zeroCounts() : null;
  if (partitions) for (const row of judged) partitions[severityName(row.severity ?? 0)]++;
  return {
    status: 'ran',
    actual_value: worst.ruleActualValue ?? worst.actualValue ?? null,
    expected_value: worst.expectedValue ?? null,
    severity: severityName(worst.severity ?? 0),
    reason: null,
    partitions,
  };
}
