import type { SensorReadout } from '../../datasource/sensors/index.js';
import {
  combineOutcomes,
  customRuleArguments,
  evaluateCheck,
  outcomeOfRuleResult,
  type CheckEvaluation,
  type CustomRuleDefinition,
  type Readout,
  type RuleOutcome,
  type Severity,
} from '../../rules/index.js';
import type { JsonObject } from '../../model/index.js';
import { resolveRule, ruleLooksBack, type CheckRules } from './checkRules.js';
import { ruleSeveritiesOf, type PlannedCheck } from './plannedChecks.js';

/**
 * Judges every readout of one check by its rule at each configured severity: a built-in rule in this process, a
 * custom rule (`rules/<name>.py`, also one that replaces a built-in rule) in the Python workers, all readouts of
 * the check in one request. A rule that looks back sees the stored readouts of the same check and data group AND
 * the readouts of earlier periods computed in this run (a partitioned check's older partitions), as DQOps does;
 * this run's readout of a period wins over a stored one. What fails (a wrong parameter, a rule that raises, hangs
 * or prints) is the error of that readout, never an exception.
 */
export type ReadoutJudgement = { readout: SensorReadout; timePeriod: string; evaluation: CheckEvaluation } | { readout: SensorReadout; timePeriod: string; error: string };

export interface JudgeContext {
  /** The stored readouts of the check (every data group), for rules that look back. */
  storedHistory: () => Promise<ReadonlyMap<string, readonly Readout[]>>;
  rules?: CheckRules;
  timeGradient: string;
  /** The period of a readout that has none of its own (not partitioned). */
  defaultTimePeriod: string;
}

export async function judgeReadouts(check: PlannedCheck, readouts: readonly SensorReadout[], context: JudgeContext): Promise<ReadoutJudgement[]> {
  const ruleName = check.catalog.rule;
  const resolution = resolveRule(ruleName, context.rules?.custom);
  const looksBack = ruleLooksBack(resolution);
  const timed = readouts.map((readout) => ({ readout, timePeriod: timePeriodOf(readout, context.defaultTimePeriod) }));
  let histories: Map<string, Readout[]> | undefined;
  if (looksBack) {
    let stored: ReadonlyMap<string, readonly Readout[]>;
    try {
      stored = await context.storedHistory();
    } catch (error) {
      return timed.map((t) => ({ ...t, error: `rule ${ruleName}: cannot read the history: ${(error as Error).message}` }));
    }
    histories = new Map();
    for (const [group, list] of stored) histories.set(group, [...list]);
    // this run's readouts come after the stored ones: for one period, the later given wins
    for (const { readout, timePeriod } of timed) {
      if (typeof readout.actualValue !== 'number' || !Number.isFinite(readout.actualValue)) continue;
      const list = histories.get(readout.dataGroup) ?? [];
      list.push({ timePeriod, value: readout.actualValue, expectedValue: readout.expectedValue ?? null });
      histories.set(readout.dataGroup, list);
    }
  }
  const severities = ruleSeveritiesOf(check.spec);
  if (resolution.kind === 'custom') return judgeWithCustomRule(resolution.rule, timed, severities, histories, context.rules!);
  return timed.map(({ readout, timePeriod }) => {
    try {
      const history = histories?.get(readout.dataGroup);
      const evaluation = evaluateCheck({
        ruleName,
        actualValue: readout.actualValue,
        ...(history ? { history } : {}),
        timePeriod,
        severities,
        referenceValue: readout.expectedValue ?? null,
        timeGradient: context.timeGradient,
      });
      return { readout, timePeriod, evaluation };
    } catch (error) {
      return { readout, timePeriod, error: `rule ${ruleName}: ${(error as Error).message}` };
    }
  });
}

async function judgeWithCustomRule(
  rule: CustomRuleDefinition,
  timed: ReadonlyArray<{ readout: SensorReadout; timePeriod: string }>,
  severities: Record<string, JsonObject | null>,
  histories: Map<string, Readout[]> | undefined,
  rules: CheckRules,
): Promise<ReadoutJudgement[]> {
  const cannot =
    rule.unavailable !== undefined
      ? `rule ${rule.name}: ${rule.unavailable}`
      : rule.type !== 'python'
      ? `rule ${rule.name}: dqctl runs Python rules only (type: java_class is DQOps's own)`
      : rule.source === undefined
        ? `rule ${rule.name}: rules/${rule.name}.py is missing`
        : undefined;
  if (cannot) return timed.map((t) => ({ ...t, error: cannot }));
  // DQOps calls fatal, then error, then warning
  const order = (['fatal', 'error', 'warning'] as const).filter((s) => s in severities && (severities[s] === null || severities[s]!.disabled !== true));
  const calls: JsonObject[] = [];
  const plans = timed.map(({ readout, timePeriod }) => {
    const perSeverity: Partial<Record<Severity, RuleOutcome | number>> = {};
    for (const severity of order) {
      const prepared = customRuleArguments(
        rule,
        { actualValue: readout.actualValue, expectedValue: readout.expectedValue, timePeriod, dataGroup: readout.dataGroup, history: histories?.get(readout.dataGroup) },
        severities[severity],
      );
      if ('notEnoughHistory' in prepared) perSeverity[severity] = prepared.notEnoughHistory;
      else perSeverity[severity] = calls.push(prepared.arguments) - 1;
    }
    return { readout, timePeriod, perSeverity };
  });
  const outcomes = await rules.python.evaluate({ name: rule.name, source: rule.source! }, calls);
  return plans.map(({ readout, timePeriod, perSeverity }) => {
    const judged: Partial<Record<Severity, RuleOutcome>> = {};
    for (const [severity, planned] of Object.entries(perSeverity) as Array<[Severity, RuleOutcome | number]>) {
      if (typeof planned !== 'number') {
        judged[severity] = planned;
        continue;
      }
      const outcome = outcomes[planned];
      if ('error' in outcome) return { readout, timePeriod, error: `rule ${rule.name} (${severity}): ${outcome.error}` };
      judged[severity] = outcomeOfRuleResult(outcome.result);
    }
    return { readout, timePeriod, evaluation: combineOutcomes(judged) };
  });
}

/** A partition's readout stands for its own day (or month); the others for the run's period. */
function timePeriodOf(readout: SensorReadout, fallback: string): string {
  return readout.timePeriod ? new Date(`${readout.timePeriod.slice(0, 10)}T00:00:00.000Z`).toISOString() : fallback;
}
