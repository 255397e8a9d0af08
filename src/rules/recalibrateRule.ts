/**
 * Recalibration: the thresholds of one severity of a check made less sensitive, so that the check raises fewer
 * issues (DQOps's "recalibrate the checks of an incident"). Pure: the caller passes the check's recent results.
 *
 * Each rule has its own way, as DQOps does it (facts read from DQOps's rule parameter classes; the code is ours):
 * - upper limits grow by 30 % (counts of failures, missing values and differences step up instead), lower limits
 *   shrink by 30 %, percentages move 30 % of the way towards 100 %;
 * - a limit of 0 (nothing tolerated) jumps to what the check has seen (the largest recent actual value), or to
 *   the severity's usual value for anomaly rules;
 * - range rules (between_*) widen only the side the recent actual values crossed;
 * - anomaly rules (`percentile/anomaly_*`, `percentile_moving_*`) lower the percentile in the tails by 30 %;
 * - rules with nothing to loosen (equals_0, pass, value_changed, import_severity, min_count_1, custom rules)
 *   are left as they are.
 * New values keep three significant digits, cut towards zero (DQOps's rounding), so YAML stays readable.
 */
import type { CatalogRule } from '../catalog/index.js';
import type { JsonObject, JsonValue } from '../model/index.js';
import { DETECTED_DATATYPES } from './comparisonRules.js';
import type { RuleParameters, Severity } from './ruleTypes.js';

/** What recalibration reads of a check's recent results (all data groups, any severity). */
export interface CalibrationHistory {
  /** The actual values that are not null. */
  actualValues: readonly number[];
  /** The actual value of the newest result (by execution time); null when it has none. */
  newestActualValue: number | null;
}

/** Where a rule sits: which severity, and the check's base name (`nulls_count` for `daily_nulls_count`). */
export interface RuleSlot {
  severity: Severity;
  checkBaseName: string;
}

/**
 * The rule's parameters loosened: `given` with the changed values replaced (a value the YAML left to its default
 * is written out). Undefined when nothing changes (the rule has nothing to loosen, or the values it needs are
 * missing).
 */
export function loosenedRuleParameters(rule: CatalogRule, slot: RuleSlot, given: RuleParameters, history: CalibrationHistory): JsonObject | undefined {
  const loosen = LOOSENERS[rule.name];
  if (!loosen) return undefined;
  const current = (name: string): number | undefined => {
    const value = given?.[name];
    if (typeof value === 'number') return value;
    if (value === null) return undefined;
    const fallback = rule.parameters.find((p) => p.name === name)?.default;
    return typeof fallback === 'number' ? fallback : undefined;
  };
  const changes: Record<string, JsonValue> = {};
  const params: Params = {
    get: current,
    set: (name, value) => {
      if (Number.isFinite(value) && value !== current(name)) changes[name] = value;
    },
    setText: (name, value) => {
      if (value !== given?.[name]) changes[name] = value;
    },
  };
  loosen(params, new Facts(history), slot);
  if (Object.keys(changes).length === 0) return undefined;
  return { ...(given ?? {}), ...changes } as JsonObject;
}

interface Params {
  get(name: string): number | undefined;
  set(name: string, value: number): void;
  setText(name: string, value: string): void;
}

/** min, max and median of the recent actual values (undefined when there are none). */
class Facts {
  readonly min: number | undefined;
  readonly max: number | undefined;
  constructor(readonly history: CalibrationHistory) {
    let min: number | undefined;
    let max: number | undefined;
    for (const value of history.actualValues) {
      if (min === undefined || value < min) min = value;
      if (max === undefined || value > max) max = value;
    }
    this.min = min;
    this.max = max;
  }
  get median(): number | undefined {
    const sorted = [...this.history.actualValues].sort((a, b) => a - b);
    if (sorted.length === 0) return undefined;
    const middle = sorted.length >> 1;
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }
}

type Loosener = (p: Params, facts: Facts, slot: RuleSlot) => void;

/**
 * Keeps the first three significant digits of a number and sets the rest to zero (towards zero), working on its
 * decimal text at 13 decimals as DQOps does, so that 13.000000000000002 (10 × 1.3) becomes 13, not 12.9.
 */
export function keepThreeDigits(value: number): number {
  if (!Number.isFinite(value)) return value;
  const text = Math.abs(value) < 1e21 ? value.toFixed(13) : value.toLocaleString('en-US', { useGrouping: false, minimumFractionDigits: 13, maximumFractionDigits: 13 });
  let significant = 0;
  let out = '';
  for (const char of text) {
    if (char >= '0' && char <= '9') {
      if (significant > 0 || char !== '0') significant++;
      out += significant > 3 ? '0' : char;
    } else out += char;
  }
  return Number(out);
}

/** The same for whole numbers: the first three digits kept, the rest zero. */
function keepThreeDigitsWhole(value: number): number {
  return Math.trunc(keepThreeDigits(Math.trunc(value)));
}

const scaled = (name: string, factor: number): Loosener => (p) => {
  const value = p.get(name);
  if (value !== undefined) p.set(name, keepThreeDigits(value * factor));
};

/** An upper limit: 0 or less (nothing tolerated) catches up with the largest recent value; else × 1.3. */
const upperLimit = (name: string, atZero: 'largest seen' | 'keep'): Loosener => (p, facts) => {
  const value = p.get(name);
  if (value === undefined) return;
  if (value <= 0 && atZero === 'largest seen') {
    if (facts.max !== undefined) p.set(name, facts.max);
    return;
  }
  p.set(name, keepThreeDigits(value * 1.3));
};

const both = (...parts: Loosener[]): Loosener => (p, facts, slot) => parts.forEach((part) => part(p, facts, slot));

/** `percentile/anomaly_*`: the tail percentage shrinks by 30 %; at 0 it takes the usual value of its severity. */
const anomalyPercent = (atZero: (severity: Severity) => number): Loosener => (p, _facts, slot) => {
  const value = p.get('anomaly_percent');
  if (value === undefined) return;
  if (value === 0) p.set('anomaly_percent', atZero(slot.severity));
  else p.set('anomaly_percent', keepThreeDigits(value * 0.7));
};
const BY_SEVERITY = (severity: Severity) => ({ warning: 1.0, error: 0.5, fatal: 0.1 })[severity];

/** A percentage that should stay high: 30 % of the way to 100 %. */
const towardsHundred = (name: string): Loosener => (p) => {
  const value = p.get(name);
  if (value !== undefined) p.set(name, keepThreeDigits(value + 0.3 * (100 - value)));
};

/** A value that should stay above a limit: a positive limit × 0.7, a negative one × 1.3 (both lower it). */
const lowerLimit = (name: string): Loosener => (p) => {
  const value = p.get(name);
  if (value !== undefined) p.set(name, keepThreeDigits(value * (value > 0 ? 0.7 : 1.3)));
};
/** A value that should stay below a limit: a positive limit × 1.3, a negative one × 0.7 (both raise it). */
const upperValue = (name: string): Loosener => (p) => {
  const value = p.get(name);
  if (value !== undefined) p.set(name, keepThreeDigits(value * (value > 0 ? 1.3 : 0.7)));
};

/** between_floats / between_ints: only a crossed side moves, by 15 % of the range (or to the value seen). */
const range = (whole: boolean): Loosener => (p, facts) => {
  const from = p.get('from');
  const to = p.get('to');
  if (facts.min === undefined || facts.max === undefined) return;
  const spread = from !== undefined && to !== undefined ? to - from : undefined;
  const round = (value: number) => (whole ? keepThreeDigitsWhole(value) : keepThreeDigits(value));
  if (from !== undefined && facts.min < from) {
    p.set('from', spread !== undefined ? round(whole ? Math.trunc(from - spread * 0.15) + 1 : from - spread * 0.15) : round(facts.min));
  }
  if (to !== undefined && facts.max > to) {
    p.set('to', spread !== undefined ? round(whole ? Math.trunc(to + spread * 0.15) + 1 : to + spread * 0.15) : round(facts.max));
  }
};

const LOOSENERS: Record<string, Loosener> = {
  'comparison/max_count': (p, _facts, slot) => {
    const value = p.get('max_count');
    if (value === undefined) return;
    if (value < 5) return p.set('max_count', 5);
    // DQOps's warning thresholds (and the error threshold of lookup_key_not_found_count) grow by half
    const factor = slot.severity === 'warning' || (slot.severity === 'error' && slot.checkBaseName === 'lookup_key_not_found') ? 1.5 : 1.3;
    p.set('max_count', Math.trunc(value * factor));
  },
  'comparison/max_failures': (p) => {
    const value = p.get('max_failures');
    if (value !== undefined) p.set('max_failures', value + 1);
  },
  'comparison/max_missing': (p) => {
    const value = p.get('max_missing');
    if (value !== undefined) p.set('max_missing', value + 1 + Math.trunc(value * 0.25));
  },
  'comparison/max_percent': (p, facts) => {
    const value = p.get('max_percent');
    if (value === undefined) return;
    if (value <= 0) {
      if (facts.max !== undefined) p.set('max_percent', facts.max);
    } else if (value < 70) p.set('max_percent', keepThreeDigits(value * 1.3));
    else towardsHundred('max_percent')(p, facts, { severity: 'error', checkBaseName: '' });
  },
  'comparison/min_percent': towardsHundred('min_percent'),
  'comparison/diff_percent': scaled('max_diff_percent', 1.3),
  'comparison/max_days': upperLimit('max_days', 'largest seen'),
  'comparison/max': upperValue('max_value'),
  'comparison/max_value': upperValue('max_value'),
  'comparison/min': lowerLimit('min_value'),
  'comparison/min_value': lowerLimit('min_value'),
  'comparison/min_count': (p, facts) => {
    let value = p.get('min_count');
    if (value === undefined) return;
    if (facts.min !== undefined && value < Math.trunc(facts.min)) value = Math.trunc(facts.min);
    let lowered = keepThreeDigitsWhole(value * 0.7);
    // DQOps's rule: when 30 % less rounds back to the same count, the count goes one up
    if (lowered === value) lowered++;
    p.set('min_count', lowered);
  },
  'comparison/between_floats': range(false),
  'comparison/between_ints': range(true),
  'comparison/between_percent': (p, facts) => {
    const min = p.get('min_percent');
    const max = p.get('max_percent');
    if (min !== undefined && facts.min !== undefined && facts.min < min) {
      p.set('min_percent', keepThreeDigits(facts.min - Math.min((min - facts.min) * 0.3, facts.min * 0.3)));
    }
    if (max !== undefined && facts.max !== undefined && facts.max > max) {
      p.set('max_percent', keepThreeDigits(facts.max + Math.min((facts.max - max) * 0.3, (100 - facts.max) * 0.3)));
    }
  },
  'comparison/count_between': (p, facts) => {
    const min = p.get('min_count');
    const max = p.get('max_count');
    if (min !== undefined && facts.min !== undefined && facts.min < min) {
      const seen = Math.trunc(facts.min);
      p.set('min_count', Math.max(0, keepThreeDigitsWhole(seen - Math.trunc((min - seen) * 0.3))));
    }
    if (max !== undefined && facts.max !== undefined && facts.max > max) {
      const seen = Math.trunc(facts.max);
      p.set('max_count', keepThreeDigitsWhole(seen + Math.trunc((seen - max) * 0.3)));
    }
  },
  'comparison/equals': (p, facts) => {
    const margin = p.get('error_margin');
    if (margin === undefined) {
      if (facts.median !== undefined) p.set('expected_value', facts.median);
    } else if (margin <= 0) {
      if (facts.min !== undefined && facts.max !== undefined) p.set('error_margin', (facts.max - facts.min) / 2);
    } else p.set('error_margin', margin * 1.3);
  },
  'comparison/equals_integer': (p, facts) => {
    if (facts.max !== undefined) p.set('expected_value', Math.trunc(facts.max));
  },
  'comparison/detected_datatype_equals': (p, facts) => {
    const code = facts.history.newestActualValue;
    const name = code === null ? undefined : DETECTED_DATATYPES[Math.trunc(code) - 1];
    if (name !== undefined) p.setText('expected_datatype', name);
  },
  'change/change_difference': upperLimit('max_difference', 'largest seen'),
  'change/change_percent': (p, facts) => {
    const value = p.get('max_percent');
    if (value === undefined) return;
    if (value === 0) {
      if (facts.max !== undefined) p.set('max_percent', facts.max * 0.7);
    } else p.set('max_percent', keepThreeDigits(value * 1.3));
  },
  'stdev/change_multiply_moving_stdev_within_7_days': upperLimitOrOne('multiply_stdev'),
  'stdev/change_multiply_moving_stdev_within_30_days': upperLimitOrOne('multiply_stdev'),
  'stdev/change_multiply_moving_stdev_within_60_days': upperLimitOrOne('multiply_stdev'),
  'percentile/anomaly_differencing_percentile_moving_average': anomalyPercent(() => 1.0),
};

/** An upper limit where 0 or less becomes 1 (a multiple of the standard deviation), else × 1.3. */
function upperLimitOrOne(name: string): Loosener {
  return (p) => {
    const value = p.get(name);
    if (value === undefined) return;
    p.set(name, value <= 0 ? 1.0 : keepThreeDigits(value * 1.3));
  };
}

// the families that share one way, rule by rule
for (const days of ['7', '30', '60']) {
  LOOSENERS[`averages/between_percent_moving_average_${days}_days`] = both(scaled('max_percent_above', 1.3), scaled('max_percent_below', 1.3));
  LOOSENERS[`averages/within_percent_moving_average_${days}_days`] = upperLimit('max_percent_within', 'largest seen');
  LOOSENERS[`percentile/percentile_moving_${days}_days`] = both(scaled('percentile_above', 0.7), scaled('percentile_below', 0.7));
  LOOSENERS[`percentile/change_percentile_moving_${days}_days`] = both(scaled('percentile_above', 0.7), scaled('percentile_below', 0.7));
  LOOSENERS[`stdev/multiply_moving_stdev_${days}_days`] = both(scaled('multiply_stdev_above', 1.3), scaled('multiply_stdev_below', 1.3));
  LOOSENERS[`stdev/change_multiply_moving_stdev_${days}_days`] = both(scaled('multiply_stdev_above', 1.3), scaled('multiply_stdev_below', 1.3));
  LOOSENERS[`stdev/multiply_moving_stdev_within_${days}_days`] = scaled('multiply_stdev', 1.3);
}
LOOSENERS['averages/percent_moving_average'] = both(scaled('max_percent_above', 1.3), scaled('max_percent_below', 1.3));
for (const suffix of ['', '_1_day', '_7_days', '_30_days']) {
  LOOSENERS[`change/between_change${suffix}`] = both(scaled('from', 0.7), scaled('to', 1.3));
  LOOSENERS[`change/between_percent_change${suffix}`] = both(scaled('from_percent', 0.7), scaled('to_percent', 1.3));
  if (suffix !== '') {
    LOOSENERS[`change/change_difference${suffix}`] = upperLimit('max_difference', 'keep');
    LOOSENERS[`change/change_percent${suffix}`] = (p, facts) => {
      const value = p.get('max_percent');
      if (value === undefined) return;
      if (value === 0) {
        if (facts.max !== undefined) p.set('max_percent', facts.max);
      } else p.set('max_percent', keepThreeDigits(value * 1.3));
    };
  }
}
for (const rule of [
  'anomaly_differencing_percentile_moving_average_30_days',
  'anomaly_partition_row_count',
  'anomaly_stationary_count_values',
  'anomaly_stationary_percent_values',
  'anomaly_stationary_percentile_moving_average',
  'anomaly_stationary_percentile_moving_average_30_days',
  'anomaly_timeliness_delay',
]) {
  LOOSENERS[`percentile/${rule}`] = anomalyPercent(BY_SEVERITY);
}

/** Rules recalibration knows (the others, custom rules among them, are left as they are). */
export function recalibratedRuleNames(): string[] {
  return Object.keys(LOOSENERS).sort();
}
