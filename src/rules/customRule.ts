/**
 * A custom rule as dqctl runs it: the definition of `rules/<name>.dqorule.yaml` (mode, time window, its fixed
 * `parameters`) with the Python source beside it, and the argument object DQOps gives `evaluate_rule` for one
 * readout at one severity (DQOps's RuleExecutionRunParameters, snake_case, null fields left out):
 * `actual_value`, `expected_value` (the sensor's), `parameters` (the severity's thresholds as written),
 * `time_period_local_epoch`, `data_group`, `previous_readouts`, `time_window`, `configuration_parameters`.
 *
 * `previous_readouts` of a `previous_readouts` rule is DQOps's array: one slot per period of the time window
 * (`prediction_time_window` slots, oldest first), null where the period has no readout, each readout as
 * `{timestamp_utc_epoch, local_datetime_epoch, back_periods_index, sensor_readout, expected_value}`; for
 * `last_n_readouts` the last N readouts, packed at the end. With fewer readouts than `min_periods_with_readouts`
 * the rule is not called (no verdict yet), as in DQOps. A `current_value` rule gets an empty array.
 * Pure: the history is passed in, the call is made by src/pythonrules.
 */
import type { RuleTimeWindow } from '../catalog/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../model/index.js';
import { type NotEnoughHistory, type Readout, type RuleOutcome, noVerdict, verdict } from './ruleTypes.js';
import { groupingOfGradient, periodIndex, timePeriodMillis, type CalendarGrouping } from './timePeriods.js';

export interface CustomRuleDefinition {
  /** `myrules/my_rule`: the path under rules/ without the extension. */
  name: string;
  type: 'python' | 'java_class';
  mode: 'current_value' | 'previous_readouts';
  timeWindow: RuleTimeWindow | null;
  /** The definition's fixed `parameters` (DQOps's configuration_parameters). */
  configurationParameters: Record<string, string>;
  /** The module's Python source; undefined when the .py file is missing. */
  source: string | undefined;
  /** Why this rule may not run here (a preview server refusing a pull request's changed code); its checks get this error. */
  unavailable?: string;
}

/** The definition of a stored rule object (spec of the .dqorule.yaml, attachments.python_module). */
export function customRuleOf(name: string, spec: JsonObject, attachments: JsonObject | undefined): CustomRuleDefinition {
  const window = isJsonObject(spec.time_window) ? spec.time_window : undefined;
  const configuration: Record<string, string> = {};
  if (isJsonObject(spec.parameters)) for (const [key, value] of Object.entries(spec.parameters)) if (value !== null) configuration[key] = String(value);
  return {
    name,
    type: spec.type === 'java_class' ? 'java_class' : 'python',
    mode: spec.mode === 'previous_readouts' ? 'previous_readouts' : 'current_value',
    timeWindow: window
      ? {
          predictionTimeWindow: numberOr(window.prediction_time_window, 0),
          minPeriodsWithReadouts: numberOr(window.min_periods_with_readouts, 0),
          historicDataPointGrouping: typeof window.historic_data_point_grouping === 'string' ? window.historic_data_point_grouping : 'day',
        }
      : null,
    configurationParameters: configuration,
    source: typeof attachments?.python_module === 'string' ? attachments.python_module : undefined,
  };
}

export interface CustomRuleReadout {
  actualValue: number | null;
  /** The sensor's expected value (accuracy sensors). */
  expectedValue?: number | null;
  /** Start of the readout's period, ISO-8601. */
  timePeriod: string;
  dataGroup: string;
  /** Earlier readouts of the same check and data group (stored ones and this run's), any order; later ones win per period. */
  history?: readonly Readout[];
}

/** DQOps's argument object for one severity, or why the rule is not called yet. */
export function customRuleArguments(
  rule: CustomRuleDefinition,
  readout: CustomRuleReadout,
  parameters: JsonObject | null,
): { arguments: JsonObject } | { notEnoughHistory: NotEnoughHistory } {
  const periodMillis = timePeriodMillis(readout.timePeriod);
  let previous: Array<JsonObject | null> = [];
  if (rule.mode === 'previous_readouts' && rule.timeWindow) {
    previous = previousReadouts(readout.history ?? [], periodMillis, rule.timeWindow);
    const filled = previous.filter((slot) => slot !== null).length;
    if (filled < rule.timeWindow.minPeriodsWithReadouts) {
      return { notEnoughHistory: { verdict: 'not_enough_history', periodsWithReadouts: filled, requiredPeriods: rule.timeWindow.minPeriodsWithReadouts } };
    }
  }
  const args: JsonObject = {};
  if (isFiniteNumber(readout.actualValue)) args.actual_value = readout.actualValue;
  if (isFiniteNumber(readout.expectedValue)) args.expected_value = readout.expectedValue;
  args.parameters = parameters ?? {};
  args.time_period_local_epoch = Math.floor(periodMillis / 1000);
  args.data_group = readout.dataGroup;
  args.previous_readouts = previous;
  if (rule.timeWindow) {
    args.time_window = {
      prediction_time_window: rule.timeWindow.predictionTimeWindow,
      min_periods_with_readouts: rule.timeWindow.minPeriodsWithReadouts,
      historic_data_point_grouping: rule.timeWindow.historicDataPointGrouping,
    };
  }
  args.configuration_parameters = { ...rule.configurationParameters };
  return { arguments: args };
}

/** What evaluate_rule returned, as a rule outcome: passed null is no verdict (what it computed is kept). */
export function outcomeOfRuleResult(result: {
  passed: boolean | null;
  expected_value?: number;
  lower_bound?: number;
  upper_bound?: number;
  new_actual_value?: number;
}): RuleOutcome {
  const values = {
    ...(result.expected_value !== undefined ? { expectedValue: result.expected_value } : {}),
    ...(result.lower_bound !== undefined ? { lowerBound: result.lower_bound } : {}),
    ...(result.upper_bound !== undefined ? { upperBound: result.upper_bound } : {}),
  };
  if (result.passed === null || result.passed === undefined) return noVerdict('the rule returned passed = None', values);
  return verdict(result.passed, { ...values, ...(result.new_actual_value !== undefined ? { newActualValue: result.new_actual_value } : {}) });
}

function previousReadouts(history: readonly Readout[], currentMillis: number, window: RuleTimeWindow): Array<JsonObject | null> {
  const size = Math.max(0, window.predictionTimeWindow);
  const slots: Array<JsonObject | null> = new Array(size).fill(null);
  if (size === 0) return slots;
  const earlier = history
    .map((readout) => ({ readout, millis: timePeriodMillis(readout.timePeriod) }))
    .filter((point) => point.millis < currentMillis && isFiniteNumber(point.readout.value));
  if (window.historicDataPointGrouping.toLowerCase() === 'last_n_readouts') {
    // the last N readouts, one per instant (the later given wins), packed at the end
    const byInstant = new Map<number, Readout>();
    for (const point of earlier.sort((a, b) => a.millis - b.millis)) byInstant.set(point.millis, point.readout);
    const latest = [...byInstant.entries()].slice(-size);
    latest.forEach(([millis, readout], index) => {
      const back = latest.length - index;
      slots[size - back] = point(readout, millis, -back);
    });
    return slots;
  }
  const grouping: CalendarGrouping = groupingOfGradient(window.historicDataPointGrouping) ?? 'day';
  const current = periodIndex(currentMillis, grouping);
  for (const { readout, millis } of earlier) {
    const back = current - periodIndex(millis, grouping);
    if (back < 1 || back > size) continue;
    slots[size - back] = point(readout, periodStart(millis, grouping), -back);
  }
  return slots;
}

function point(readout: Readout, millis: number, backPeriodsIndex: number): JsonObject {
  const seconds = Math.floor(millis / 1000);
  const entry: JsonObject = { timestamp_utc_epoch: seconds, local_datetime_epoch: seconds, back_periods_index: backPeriodsIndex, sensor_readout: readout.value };
  if (isFiniteNumber(readout.expectedValue)) entry.expected_value = readout.expectedValue;
  return entry;
}

/** The start of the period of `grouping` holding `millis` (UTC). */
function periodStart(millis: number, grouping: CalendarGrouping): number {
  const date = new Date(millis);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  switch (grouping) {
    case 'hour':
      return Math.floor(millis / 3_600_000) * 3_600_000;
    case 'day':
      return Date.UTC(y, m, date.getUTCDate());
    case 'week': {
      const day = Math.floor(millis / 86_400_000);
      return (day - ((day + 3) % 7)) * 86_400_000;
    }
    case 'month':
      return Date.UTC(y, m, 1);
    case 'quarter':
      return Date.UTC(y, m - (m % 3), 1);
    case 'year':
      return Date.UTC(y, 0, 1);
  }
}

function numberOr(value: JsonValue | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
