/**
 * The edge cases, for every rule of the catalog: no readout, too short a history, a constant history, and an
 * outlying readout after a constant history. Each expectation is worked out by hand from the rule's definition
 * (README, "Rules"): on a constant history of 100 the mean and median are 100 and the standard deviation 0, so
 * every moving-window and anomaly bound collapses onto 100 and only the percent- and difference-based rules keep
 * a band (100 ∓ 10 % = 90 … 110, 100 ∓ 5 = 95 … 105).
 */
import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { evaluateRule, type Readout, type RuleOutcome } from '../../src/rules/index.js';

const catalog = getCheckCatalog();
const TODAY_MS = Date.UTC(2024, 5, 30);
const TODAY = '2024-06-30';
const daysBack = (count: number, value: number): Readout[] =>
  Array.from({ length: count }, (_, i) => ({ timePeriod: new Date(TODAY_MS - (count - i) * 86_400_000).toISOString().slice(0, 10), value }));

/** Thresholds that give every rule something to judge (the catalog defaults where they exist). */
function thresholdsOf(rule: string): Record<string, number | string> {
  if (rule.startsWith('averages/percent_moving_average')) return { max_percent_above: 10, max_percent_below: 10 };
  if (/multiply_moving_stdev_within/.test(rule)) return { multiply_stdev: 2 };
  if (/multiply_moving_stdev_\d/.test(rule)) return { multiply_stdev_above: 2, multiply_stdev_below: 2 };
  if (/percentile_moving_\d/.test(rule)) return { percentile_above: 5, percentile_below: 5 };
  if (rule.startsWith('change/change_difference')) return { max_difference: 5 };
  if (rule.startsWith('change/between_change')) return { from: -5, to: 5 };
  if (rule.startsWith('change/between_percent_change')) return { from_percent: -10, to_percent: 10 };
  if (rule === 'comparison/detected_datatype_equals') return { expected_datatype: 'integers' };
  if (['comparison/equals', 'comparison/max', 'comparison/max_value', 'comparison/min', 'comparison/min_value'].includes(rule)) {
    return rule === 'comparison/equals' ? { expected_value: 100, error_margin: 0 } : { [rule.includes('max') ? 'max_value' : 'min_value']: 100 };
  }
  if (rule.startsWith('comparison/between') || rule === 'comparison/count_between') {
    return rule === 'comparison/count_between' ? { min_count: 0, max_count: 200 } : rule === 'comparison/between_percent' ? { min_percent: 0, max_percent: 100 } : { from: 0, to: 200 };
  }
  return {};
}

const judge = (rule: string, actualValue: number | null, history: Readout[], referenceValue: number | null = 100): RuleOutcome =>
  evaluateRule(rule, { actualValue, parameters: thresholdsOf(rule), history, timePeriod: TODAY, referenceValue, severity: 'error' });

const rules = [...catalog.rules.values()];
const lookBack = rules.filter((rule) => rule.mode === 'previous_readouts');

describe('every rule: no readout', () => {
  // DQOps's max_missing and max_failures pass a missing readout; diff_percent fails it when the reference has a value
  const judgedMissing: Record<string, RuleOutcome> = {
    'comparison/max_missing': { verdict: 'passed', passed: true },
    'comparison/max_failures': { verdict: 'passed', passed: true },
    'comparison/diff_percent': { verdict: 'failed', passed: false, expectedValue: 100, lowerBound: 100, upperBound: 100 },
  };
  it.each(rules.map((rule) => rule.name))('%s', (name) => {
    expect(judge(name, null, daysBack(90, 100))).toEqual(judgedMissing[name] ?? { verdict: 'no_actual_value' });
  });
});

describe('every rule that looks back: too short a history gives no verdict', () => {
  it.each(lookBack.filter((rule) => (rule.timeWindow?.minPeriodsWithReadouts ?? 0) > 1).map((rule) => [rule.name, rule.timeWindow!.minPeriodsWithReadouts] as const))(
    '%s with %d − 1 days',
    (name, required) => {
      const value = name.endsWith('percent_values') ? 50 : 100;
      expect(judge(name, value, daysBack(required - 1, value))).toEqual({ verdict: 'not_enough_history', periodsWithReadouts: required - 1, requiredPeriods: required });
    },
  );
  it.each(lookBack.filter((rule) => rule.name.startsWith('change/')).map((rule) => rule.name))('%s without an earlier readout', (name) => {
    expect(judge(name, 100, [])).toMatchObject({ verdict: 'not_enough_history' });
  });
});

/** The outcome of a readout of 100 after 90 days of 100. */
function onConstant(name: string): RuleOutcome {
  const at = (lowerBound: number, upperBound: number, expectedValue = 100) => ({ verdict: 'passed' as const, passed: true, expectedValue, lowerBound, upperBound });
  if (name.startsWith('averages/') || /^change\/(change_percent|between_percent_change)/.test(name)) return at(90, 110);
  if (/^change\/(change_difference|between_change)/.test(name)) return at(95, 105);
  if (name.startsWith('stdev/') || /percentile_moving_\d/.test(name) || name === 'comparison/value_changed') return at(100, 100);
  if (name === 'percentile/anomaly_timeliness_delay') return { verdict: 'no_verdict', reason: expect.any(String), expectedValue: 100, lowerBound: 0, upperBound: 100 } as RuleOutcome;
  if (name.startsWith('percentile/anomaly_')) return { verdict: 'no_verdict', reason: expect.any(String), expectedValue: 100, lowerBound: 100, upperBound: 100 } as RuleOutcome;
  // 60 readouts above 0 before and the current one: 61 consecutive failures, none allowed
  if (name === 'comparison/max_failures') return { verdict: 'failed', passed: false, expectedValue: 0, upperBound: 0, newActualValue: 61 };
  throw new Error(`no expectation for ${name}`);
}

describe('every rule that looks back: a constant history of 100', () => {
  const constantRules = lookBack.filter((rule) => rule.name !== 'percentile/anomaly_stationary_percent_values').map((rule) => rule.name);
  it.each(constantRules)('%s: a readout of 100', (name) => {
    expect(judge(name, 100, daysBack(90, 100))).toEqual(onConstant(name));
  });

  it.each(constantRules.filter((name) => name !== 'comparison/max_failures'))('%s: an outlier (1000) fails', (name) => {
    expect(judge(name, 1000, daysBack(90, 100))).toMatchObject({ verdict: 'failed', passed: false });
  });

  it('anomaly_stationary_percent_values: a constant 50 %; 50 gets no verdict, 60 fails', () => {
    const rule = 'percentile/anomaly_stationary_percent_values';
    expect(judge(rule, 50, daysBack(90, 50))).toEqual({ verdict: 'no_verdict', reason: expect.any(String), expectedValue: 50, lowerBound: 50, upperBound: 50 });
    expect(judge(rule, 60, daysBack(90, 50))).toEqual({ verdict: 'failed', passed: false, expectedValue: 50, lowerBound: 50, upperBound: 50 });
  });
});

describe('every current-value rule: the readout 100 and an outlier', () => {
  const passing100 = ['comparison/pass', 'comparison/min_count', 'comparison/min_count_1', 'comparison/min', 'comparison/min_value', 'comparison/max', 'comparison/max_value', 'comparison/equals', 'comparison/diff_percent', 'comparison/max_missing', 'comparison/between_floats', 'comparison/between_ints', 'comparison/between_percent', 'comparison/count_between', 'comparison/min_percent'];
  it.each(passing100)('%s passes 100', (name) => {
    expect(judge(name, 100, [])).toMatchObject({ verdict: 'passed' });
  });
  // an outlier: 1000 is over every maximum of 100 or 200 and off the reference 100
  it.each(['comparison/max', 'comparison/max_value', 'comparison/equals', 'comparison/diff_percent', 'comparison/between_floats', 'comparison/between_ints', 'comparison/between_percent', 'comparison/count_between', 'comparison/max_percent', 'comparison/max_count', 'comparison/max_days', 'comparison/equals_0', 'comparison/equals_1', 'comparison/equals_integer', 'comparison/detected_datatype_equals', 'comparison/import_severity'])(
    '%s fails 1000',
    (name) => {
      expect(judge(name, 1000, [])).toMatchObject({ verdict: 'failed' });
    },
  );
});
