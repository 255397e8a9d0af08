/**
 * change/*: the readout against one earlier readout. Without a suffix the earlier readout is the previous one
 * (the last readout before the current time period). With `_1_day`, `_7_days`, `_30_days` it is the readout
 * of the day that many days before the current period (`exact_day: true`) or, with `exact_day: false`, the
 * latest readout at least that many days before it (within the 60-day window). No such readout: no verdict.
 *
 * Percent changes are relative to the magnitude of the earlier value: from 200 to 150 is −25 %. From 0, only
 * 0 is no change (any other value is an infinite change). Readouts are judged against the reported bounds.
 * Thresholds are taken as written, as DQOps does (a negative max_percent leaves no value passing).
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

/** The value `percent` percent away from `previous` (relative to its magnitude). */
const shiftedByPercent = (previous: number, percent: number) => previous + (Math.abs(previous) * percent) / 100;

/**
 * Judged against the bounds themselves, so the verdict and the reported bounds always agree. The expected
 * value is the earlier readout, or for the between_* rules the middle of the range (as DQOps reports it);
 * a one-sided range keeps the earlier readout.
 */
function withinReported(actual: number, previous: number, lowerBound: number | undefined, upperBound: number | undefined, midpoint = false): RuleOutcome {
  const expectedValue = midpoint && lowerBound !== undefined && upperBound !== undefined ? (lowerBound + upperBound) / 2 : previous;
  return verdict(withinBounds(actual, lowerBound, upperBound), { expectedValue, lowerBound, upperBound });
}

const changePercent: Compare = (c, actual, previous) => {
  const maxPercent = c.params.requiredNumber('max_percent');
  return withinReported(actual, previous, shiftedByPercent(previous, -maxPercent), shiftedByPercent(previous, maxPercent));
};

const betweenPercentChange: Compare = (c, actual, previous) => {
  const from = c.params.number('from_percent');
  const to = c.params.number('to_percent');
  return withinReported(
    actual,
    previous,
    from === undefined ? undefined : shiftedByPercent(previous, from),
    to === undefined ? undefined : shiftedByPercent(previous, to),
    true,
  );
};

const changeDifference: Compare = (c, actual, previous) => {
  const maxDifference = c.params.requiredNumber('max_difference');
  return withinReported(actual, previous, previous - maxDifference, previous + maxDifference);
};

const betweenChange: Compare = (c, actual, previous) => {
  const from = c.params.number('from');
  const to = c.params.number('to');
  return withinReported(actual, previous, from === undefined ? undefined : previous + from, to === undefined ? undefined : previous + to, true);
};

export const CHANGE_RULES: RuleTable = {
  ...family('change/change_percent', changePercent),
  ...family('change/between_percent_change', betweenPercentChange),
  ...family('change/change_difference', changeDifference),
  ...family('change/between_change', betweenChange),
};
