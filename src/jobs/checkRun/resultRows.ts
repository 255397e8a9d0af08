import { defaultQualityDimension } from '../../catalog/index.js';
import type { SeverityNumber } from '../../model/index.js';
import type { CheckResultInput } from '../../store/store.js';
import type { CheckEvaluation } from '../../rules/index.js';
import type { PlannedCheck } from './plannedChecks.js';

/** What names a check in a stored row (a result or an error sample): where it is and which check it is. */
export function checkIdentity(check: PlannedCheck, timeGradient: string) {
  return {
    connectionName: check.table.connection,
    schemaName: check.table.schema,
    tableName: check.table.table,
    columnName: check.column,
    checkType: check.checkType,
    timeGradient,
    checkCategory: check.category,
    checkName: check.checkName,
    checkHash: check.checkHash,
    sensorName: check.catalog.sensor,
    qualityDimension: typeof check.spec.quality_dimension === 'string' ? check.spec.quality_dimension : defaultQualityDimension(check.checkName),
  };
}

/** The fields every result row of a check shares, whatever its readout (or execution error). */
export function resultBase(check: PlannedCheck, timeGradient: string, durationMs: number | null, executedAt: string) {
  return {
    ...checkIdentity(check, timeGradient),
    tableComparison: check.comparison?.name ?? null,
    durationMs,
    executedAt,
  } satisfies Partial<CheckResultInput>;
}

/**
 * The start of the period a (non-partitioned) readout stands for: the day, or the month for monthly and profiling,
 * in UTC. DQOps takes today in its default time zone and gives that zone to the data source session; dqctl's is
 * UTC (DQOps with DQO_DEFAULT_TIME_ZONE=UTC): the sessions run with TimeZone UTC (postgresDataSource.ts), so this
 * date and the partitions the sources compute are the same day, whatever the process's own time zone.
 */
export function periodOf(checkType: PlannedCheck['checkType'], timeScale: PlannedCheck['timeScale'], now: Date): { timePeriod: string; timeGradient: string } {
  const day = timeScale === 'daily' && checkType !== 'profiling';
  const start = day
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return { timePeriod: start.toISOString(), timeGradient: day ? 'day' : 'month' };
}

/**
 * What a judged readout stores besides its values, as DQOps decides it: a severity imported from the data source
 * (import_severity) is the verdict; a check with no thresholds is recorded as valid; a check whose thresholds all
 * gave no verdict (too little history, no actual value) is a readout only, with no result; a rule's own actual
 * value (max_failures: the failure count) is the result's.
 */
export function outcomeOf(evaluation: CheckEvaluation, importedSeverity?: SeverityNumber | null): Pick<CheckResultInput, 'severity' | 'verdict' | 'ruleActualValue'> {
  if (importedSeverity !== undefined && importedSeverity !== null) return { severity: importedSeverity, verdict: true };
  const configured = Object.keys(evaluation.perSeverity).length > 0;
  return {
    severity: evaluation.severity ?? 0,
    verdict: evaluation.severity !== null || !configured,
    ruleActualValue: evaluation.newActualValue,
  };
}
