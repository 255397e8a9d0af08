import { describe, expect, it } from 'vitest';
import { evaluateCheck, type CheckEvaluationInput } from '../../src/rules/index.js';

const TODAY = '2024-06-30';
const rowCount = (actualValue: number | null, severities: CheckEvaluationInput['severities']) =>
  evaluateCheck({ ruleName: 'comparison/min_count', actualValue, timePeriod: TODAY, severities });
const TIERS = { warning: { min_count: 10 }, error: { min_count: 5 }, fatal: { min_count: 1 } };

describe('evaluateCheck: the highest failed severity', () => {
  it.each([
    [20, 0],
    [10, 0],
    [7, 1],
    [3, 2],
    [0, 3],
  ] as const)('row count %d → severity %d', (actual, severity) => {
    expect(rowCount(actual, TIERS).severity).toBe(severity);
  });

  it("reports the bounds of the failed severity, else of error, warning, fatal; the expected value is DQOps's (warning, error, fatal)", () => {
    expect(rowCount(3, TIERS)).toEqual({
      severity: 2,
      expectedValue: 10,
      newActualValue: null,
      lowerBound: 5,
      upperBound: null,
      perSeverity: {
        warning: { verdict: 'failed', passed: false, expectedValue: 10, lowerBound: 10 },
        error: { verdict: 'failed', passed: false, expectedValue: 5, lowerBound: 5 },
        fatal: { verdict: 'passed', passed: true, expectedValue: 1, lowerBound: 1 },
      },
    });
    expect(rowCount(20, TIERS)).toMatchObject({ severity: 0, expectedValue: 10, lowerBound: 5 });
    expect(rowCount(20, { error: { min_count: 5 }, fatal: { min_count: 1 } })).toMatchObject({ severity: 0, expectedValue: 5, lowerBound: 5 });
    expect(rowCount(20, { warning: { min_count: 10 }, fatal: { min_count: 1 } })).toMatchObject({ severity: 0, expectedValue: 10 });
    expect(rowCount(20, { fatal: { min_count: 1 } })).toMatchObject({ severity: 0, expectedValue: 1 });
  });

  it('only the configured severities are judged; thresholds in any order', () => {
    expect(rowCount(3, { error: { min_count: 5 } })).toMatchObject({ severity: 2, perSeverity: { error: { passed: false } } });
    expect(Object.keys(rowCount(3, { error: { min_count: 5 } }).perSeverity)).toEqual(['error']);
    // a warning stricter than nothing: only the warning fails
    expect(rowCount(3, { warning: { min_count: 5 } }).severity).toBe(1);
    // fatal fails while the looser warning passes: still fatal
    expect(rowCount(3, { warning: { min_count: 1 }, fatal: { min_count: 5 } }).severity).toBe(3);
  });

  it('{} and null enable a severity with the catalog defaults; disabled turns it off', () => {
    expect(rowCount(0, { error: {} }).severity).toBe(2); // default min_count 1
    expect(rowCount(0, { error: null }).severity).toBe(2);
    expect(rowCount(0, { error: { disabled: true }, warning: { min_count: 1 } }).severity).toBe(1);
    expect(rowCount(0, { error: undefined }).severity).toBeNull();
  });

  it('no thresholds, no value or not enough history: no verdict (null), never a failure', () => {
    expect(rowCount(0, {})).toEqual({ severity: null, expectedValue: null, newActualValue: null, lowerBound: null, upperBound: null, perSeverity: {} });
    expect(rowCount(null, TIERS)).toMatchObject({ severity: null, perSeverity: { error: { verdict: 'no_actual_value' } } });
    const anomaly = evaluateCheck({
      ruleName: 'percentile/anomaly_stationary_percentile_moving_average',
      actualValue: 1e12,
      history: [{ timePeriod: '2024-06-29', value: 1 }],
      timePeriod: TODAY,
      severities: { warning: { anomaly_percent: 1 }, error: {} },
    });
    expect(anomaly.severity).toBeNull();
    expect(anomaly.perSeverity.error).toEqual({ verdict: 'not_enough_history', periodsWithReadouts: 1, requiredPeriods: 30 });
  });

  it('import_severity fails every enabled severity for a readout without an imported severity: the highest wins', () => {
    const judged = (severities: Record<string, object>) =>
      evaluateCheck({ ruleName: 'comparison/import_severity', actualValue: 5, timePeriod: TODAY, severities }).severity;
    expect(judged({ warning: {}, error: {}, fatal: {} })).toBe(3);
    expect(judged({ warning: {}, error: {} })).toBe(2);
    expect(judged({ warning: {} })).toBe(1);
  });

  it('the reference value reaches the rule', () => {
    const result = evaluateCheck({
      ruleName: 'comparison/diff_percent',
      actualValue: 95,
      referenceValue: 100,
      timePeriod: TODAY,
      severities: { warning: { max_diff_percent: 1 }, error: { max_diff_percent: 10 } },
    });
    expect(result).toMatchObject({ severity: 1, expectedValue: 100, lowerBound: 99, upperBound: 101 });
  });

  it('a wrong threshold or an unknown rule throws a coded error (stored as the execution error)', () => {
    expect(() => rowCount(3, { error: { min_count: 'five' } })).toThrow(expect.objectContaining({ code: 'RULE_INPUT_INVALID' }));
    expect(() => evaluateCheck({ ruleName: 'custom/my_rule', actualValue: 1, timePeriod: TODAY, severities: { error: {} } })).toThrow(
      expect.objectContaining({ code: 'RULE_UNKNOWN' }),
    );
  });
});
