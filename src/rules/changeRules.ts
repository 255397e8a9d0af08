/**
 * change/*: the readout against one earlier readout. Without a suffix the earlier readout is the previous one
 * (the last readout before the current time period). With `_1_day`, `_7_days`, `_30_days` it is the readout
 * of the day that many days before the current period (`exact_day: true`) or, with `exact_day: false`, the
 * latest readout at least that many days before it (within the 60-day window). No such readout: no verdict.
 *
 * Percent changes are relative to the magnitude of the earlier value: from 200 to 150 is −25 %. From 0, only
 * 0 is no change (any other value is an infinite change).
 */
import type { RuleContext, RuleImplementation, RuleTable } from './ruleImplementation.js';
import { verdict, withinBounds, type NotEnoughHistory, type RuleOutcome } from './ruleTypes.js';

type Compare = (c: RuleContext, actual: number, previous: number) => RuleOutcome;

/** The rule in its four variants: previous readout, 1 day, 7 days, 30 days before. */
function family(base: string, compare: Compare): Record<string, RuleImplementation> {
  return {
    [base]: { evaluate: (c) => withEarlier(c, c.history.points.at(-1)?.value, compare) },
    [`${base}_1_day`]: daysBefore(1, compare),
    [`${base}_7_days`]: daysBefore(7, compare),
    [`${base}_30_days`]: daysBefore(30, compare),
  };
}

function daysBefore(days: number, compare: Compare): RuleImplementation {
  return {
    fixedGrouping: true,
    evaluate: (c) => {
      const target = c.history.currentPeriod - days;
      const exactDay = c.params.boolean('exact_day') ?? false;
      const candidates = c.history.points.filter((point) => (exactDay ? point.period === target : point.period <= target));
      return withEarlier(c, candidates.at(-1)?.value, compare);
    },
  };
}

function withEarlier(c: RuleContext, earlier: number | undefined, compare: Compare): RuleOutcome {
  if (earlier === undefined) {
    const none: NotEnoughHistory = { verdict: 'not_enough_history', periodsWithReadouts: 0, requiredPeriods: 1 };
    return none;
  }
  return compare(c, c.actualValue, earlier);
}

/** (actual − previous) as a percent of |previous|; ±Infinity from 0 to anything else. */
function percentChange(actual: number, previous: number): number {
  if (actual === previous) return 0;
  if (previous === 0) return actual > 0 ? Infinity : -Infinity;
  return ((actual - previous) / Math.abs(previous)) * 100;
}

/** The value `percent` percent away from `previous`. */
const shiftedByPercent = (previous: number, percent: number) => previous + (Math.abs(previous) * percent) / 100;

const changePercent: Compare = (c, actual, previous) => {
  const maxPercent = Math.abs(c.params.requiredNumber('max_percent'));
  return verdict(Math.abs(percentChange(actual, previous)) <= maxPercent, {
    expectedValue: previous,
    lowerBound: shiftedByPercent(previous, -maxPercent),
    upperBound: shiftedByPercent(previous, maxPercent),
  });
};

const betweenPercentChange: Compare = (c, actual, previous) => {
  const from = c.params.number('from_percent');
  const to = c.params.number('to_percent');
  return verdict(withinBounds(percentChange(actual, previous), from, to), {
    expectedValue: previous,
    lowerBound: from === undefined ? undefined : shiftedByPercent(previous, from),
    upperBound: to === undefined ? undefined : shiftedByPercent(previous, to),
  });
};

const changeDifference: Compare = (c, actual, previous) => {
  const maxDifference = Math.abs(c.params.requiredNumber('max_difference'));
  return verdict(Math.abs(actual - previous) <= maxDifference, {
    expectedValue: previous,
    lowerBound: previous - maxDifference,
    upperBound: previous + maxDifference,
  });
};

const betweenChange: Compare = (c, actual, previous) => {
  const from = c.params.number('from');
  const to = c.params.number('to');
  return verdict(withinBounds(actual - previous, from, to), {
    expectedValue: previous,
    lowerBound: from === undefined ? undefined : previous + from,
    upperBound: to === undefined ? undefined : previous + to,
  });
};

export const CHANGE_RULES: RuleTable = {
  ...family('change/change_percent', changePercent),
  ...family('change/between_percent_change', betweenPercentChange),
  ...family('change/change_difference', changeDifference),
  ...family('change/between_change', betweenChange),
};
