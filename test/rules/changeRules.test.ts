import { describe, expect, it } from 'vitest';
import { evaluateRule, type Readout, type RuleInput, type RuleOutcome } from '../../src/rules/index.js';

const TODAY = '2024-05-31';
/** Readouts `daysAgo → value` before TODAY. */
function daily(values: Record<number, number>): Readout[] {
  const today = Date.UTC(2024, 4, 31);
  return Object.entries(values).map(([daysAgo, value]) => ({
    timePeriod: new Date(today - Number(daysAgo) * 86_400_000).toISOString().slice(0, 10),
    value,
  }));
}
const judge = (rule: string, actualValue: number, parameters: RuleInput['parameters'], history: Readout[]): RuleOutcome =>
  evaluateRule(rule, { actualValue, parameters, history, timePeriod: TODAY });
const NOT_ENOUGH = expect.objectContaining({ verdict: 'not_enough_history' });

describe('change/change_percent: against the previous readout', () => {
  const history = daily({ 3: 150, 2: 180, 1: 200 });

  it('within max_percent of the previous value (inclusive)', () => {
    // previous 200, 10 % → [180, 220]
    expect(judge('change/change_percent', 220, { max_percent: 10 }, history)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 200, lowerBound: 180, upperBound: 220,
    });
    expect(judge('change/change_percent', 179, { max_percent: 10 }, history)).toMatchObject({ verdict: 'failed', passed: false });
    expect(judge('change/change_percent', 221, { max_percent: 10 }, history)).toMatchObject({ passed: false });
  });

  it('default max_percent 10', () => {
    expect(judge('change/change_percent', 219, {}, history)).toMatchObject({ passed: true, upperBound: 220 });
    expect(judge('change/change_percent', 221, {}, history)).toMatchObject({ passed: false });
  });

  it('the previous readout may be days back (last readout, not yesterday)', () => {
    expect(judge('change/change_percent', 155, { max_percent: 5 }, daily({ 9: 150 }))).toMatchObject({ passed: true, expectedValue: 150 });
  });

  it('negative previous values: percent of the magnitude', () => {
    // previous −200, 10 % → [−220, −180]
    expect(judge('change/change_percent', -185, { max_percent: 10 }, daily({ 1: -200 }))).toMatchObject({
      passed: true, lowerBound: -220, upperBound: -180,
    });
  });

  it('from zero only zero is no change', () => {
    expect(judge('change/change_percent', 0, { max_percent: 10 }, daily({ 1: 0 }))).toMatchObject({ passed: true, expectedValue: 0 });
    expect(judge('change/change_percent', 1, { max_percent: 1000 }, daily({ 1: 0 }))).toMatchObject({ passed: false });
  });

  it('no previous readout: not enough history (no false alarm)', () => {
    expect(judge('change/change_percent', 1000, { max_percent: 10 }, [])).toEqual({
      verdict: 'not_enough_history', periodsWithReadouts: 0, requiredPeriods: 1,
    });
    // a readout of the current period is not a previous one
    expect(judge('change/change_percent', 1000, { max_percent: 10 }, [{ timePeriod: TODAY, value: 1 }])).toEqual(NOT_ENOUGH);
  });
});

describe('change/change_percent_N_days: the readout N days earlier', () => {
  const history = daily({ 31: 50, 30: 100, 8: 140, 7: 160, 2: 190, 1: 200 });

  it('_1_day compares with yesterday (exact_day defaults to true)', () => {
    expect(judge('change/change_percent_1_day', 210, { max_percent: 5 }, history)).toMatchObject({ passed: true, expectedValue: 200 });
    // without yesterday's readout there is no verdict
    expect(judge('change/change_percent_1_day', 210, { max_percent: 5 }, daily({ 2: 190 }))).toEqual(NOT_ENOUGH);
    // exact_day: false takes the latest readout at least a day old
    expect(judge('change/change_percent_1_day', 199, { max_percent: 5, exact_day: false }, daily({ 2: 190 }))).toMatchObject({
      passed: true, expectedValue: 190,
    });
  });

  it('_7_days compares with the readout of 7 days ago', () => {
    // 160 → 176 is +10 %
    expect(judge('change/change_percent_7_days', 176, { max_percent: 10 }, history)).toMatchObject({ passed: true, expectedValue: 160 });
    expect(judge('change/change_percent_7_days', 177, { max_percent: 10 }, history)).toMatchObject({ passed: false });
    // exact_day false (default): the latest readout ≥ 7 days old
    expect(judge('change/change_percent_7_days', 150, { max_percent: 10 }, daily({ 9: 140, 3: 1 }))).toMatchObject({ passed: true, expectedValue: 140 });
    expect(judge('change/change_percent_7_days', 150, { max_percent: 10, exact_day: true }, daily({ 9: 140, 3: 1 }))).toEqual(NOT_ENOUGH);
  });

  it('_30_days compares with the readout of 30 days ago', () => {
    expect(judge('change/change_percent_30_days', 120, { max_percent: 20 }, history)).toMatchObject({ passed: true, expectedValue: 100 });
    expect(judge('change/change_percent_30_days', 121, { max_percent: 20 }, history)).toMatchObject({ passed: false });
    // only readouts younger than 30 days: no verdict
    expect(judge('change/change_percent_30_days', 121, { max_percent: 20 }, daily({ 29: 100, 1: 120 }))).toEqual(NOT_ENOUGH);
  });

  it('the window is 60 days: an older readout does not count', () => {
    expect(judge('change/change_percent_30_days', 121, { max_percent: 20 }, daily({ 61: 100 }))).toEqual(NOT_ENOUGH);
    expect(judge('change/change_percent_30_days', 120, { max_percent: 20 }, daily({ 60: 100 }))).toMatchObject({ passed: true });
  });
});

describe('the other change rules', () => {
  const history = daily({ 1: 200 });

  it('between_percent_change: the signed change within [from, to] percent', () => {
    // 200 → 230 is +15 %; bounds 200 − 5 % = 190 and 200 + 20 % = 240, expected their middle (190 + 240) / 2 = 215
    expect(judge('change/between_percent_change', 230, { from_percent: -5, to_percent: 20 }, history)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 215, lowerBound: 190, upperBound: 240,
    });
    expect(judge('change/between_percent_change', 189, { from_percent: -5, to_percent: 20 }, history)).toMatchObject({ passed: false });
    // one-sided (DQOps's rule raises an error here): the expected value stays the earlier readout
    expect(judge('change/between_percent_change_1_day', 1000, { from_percent: 0 }, history)).toMatchObject({ passed: true, expectedValue: 200, lowerBound: 200 });
  });

  it('change_difference: at most max_difference away', () => {
    expect(judge('change/change_difference', 215, { max_difference: 15 }, history)).toEqual({
      verdict: 'passed', passed: true, expectedValue: 200, lowerBound: 185, upperBound: 215,
    });
    expect(judge('change/change_difference_7_days', 215, { max_difference: 15 }, history)).toEqual(NOT_ENOUGH);
    expect(() => judge('change/change_difference', 215, {}, history)).toThrow(expect.objectContaining({ code: 'RULE_INPUT_INVALID' }));
  });

  it('between_change: the signed difference within [from, to]', () => {
    expect(judge('change/between_change', 195, { from: -5, to: 10 }, history)).toMatchObject({ passed: true, lowerBound: 195, upperBound: 210 });
    expect(judge('change/between_change', 211, { from: -5, to: 10 }, history)).toMatchObject({ passed: false });
    expect(judge('change/between_change_30_days', 211, { from: -5 }, daily({ 30: 200 }))).toMatchObject({ passed: true });
  });
});
