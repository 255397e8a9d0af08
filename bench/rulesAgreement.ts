/**
 * `npm run bench:rules`: for every rule of the catalog, ~200 generated cases (missing actual values, short,
 * gappy, constant, growing, negative, percent and zero-holding histories, outliers, set and unset thresholds)
 * judged by dqctl and by DQOps's own Python rule; prints, per rule, the cases that differ in passed /
 * expected_value / lower_bound / upper_bound, and the figure "rules agreeing with DQOps: N of 74".
 *
 * DQOps's rules are read at run time from the mirrored dqops/dqo repository (`git archive` of home/rules and
 * home/lib into a temporary folder); nothing of DQOps is stored here. bench/rulesReference.py calls them the way
 * DQOps's engine does. Needs python3 with numpy and scipy (DQOPS_PYTHON to choose the interpreter); without the
 * mirror or scipy the bench says so and exits 0.
 *
 * Cases where DQOps's rule is defective and dqctl deliberately differs (README, "Deliberate deviations") are
 * counted apart and do not make a rule disagree: DQOps's rule raised an exception; an averages/* rule on a
 * window with a negative mean (DQOps's band is inverted); a moving-window rule with only one of its two
 * thresholds set (DQOps gives no verdict).
 *
 *   npm run bench:rules                       # all rules
 *   npm run bench:rules -- --rule change/     # rules whose name contains the text; --cases 200 --verbose
 *   DQOPS_MIRROR (default /work/.mirror/dqops+dqo/repo)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCheckCatalog, type CatalogParameter, type CatalogRule } from '../src/catalog/index.js';
import { evaluateRule, type Readout, type RuleOutcome } from '../src/rules/index.js';

const MIRROR = process.env.DQOPS_MIRROR ?? '/work/.mirror/dqops+dqo/repo';
const PYTHON = process.env.DQOPS_PYTHON ?? 'python3';
const TODAY = Date.UTC(2024, 5, 30);
const DAY = 86_400_000;

interface Case {
  rule: string;
  actual: number | null;
  params: Record<string, number | boolean | string | null>;
  reference: number | null;
  /** [days before the current period, value], distinct days. */
  history: [number, number][];
  window: { size: number; min: number; grouping: string };
  config: Record<string, unknown>;
}

interface Answer {
  passed: boolean | null;
  expected: number | null;
  lower: number | null;
  upper: number | null;
  window_mean?: number | null;
  error?: string;
}

/** mulberry32: a small seeded generator, so every run judges the same cases. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(text: string): number {
  let hash = 2166136261;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return hash >>> 0;
}

const SHAPES = ['noise', 'walk', 'constant', 'outlier', 'negative', 'zeros', 'percent', 'percent_edges', 'small_ints', 'mixed_sign'] as const;
type Shape = (typeof SHAPES)[number];

function shapesOf(rule: CatalogRule): readonly Shape[] {
  const name = rule.name;
  if (name.endsWith('anomaly_stationary_percent_values')) return ['percent', 'percent', 'percent_edges', 'constant', 'outlier'];
  if (name.endsWith('anomaly_stationary_count_values') || name.endsWith('anomaly_timeliness_delay') || name.endsWith('anomaly_partition_row_count')) {
    return ['noise', 'walk', 'constant', 'outlier', 'zeros', 'small_ints'];
  }
  if (name === 'comparison/max_failures' || name === 'comparison/value_changed') return ['small_ints', 'constant', 'zeros'];
  return SHAPES;
}

function makeHistory(rng: () => number, shape: Shape, count: number, maxDay: number): [number, number][] {
  const days = new Set<number>();
  const wanted = Math.min(count, maxDay);
  while (days.size < wanted) days.add(1 + Math.floor(rng() * maxDay));
  const ordered = [...days].sort((a, b) => b - a); // oldest first
  const level = [1000, 50, 7, 120_000][Math.floor(rng() * 4)];
  let walk = level;
  return ordered.map((day, index) => {
    let value: number;
    switch (shape) {
      case 'noise':
        value = level + (rng() - 0.5) * level * 0.2;
        break;
      case 'walk':
        walk += level * 0.01 * (0.5 + rng());
        value = walk;
        break;
      case 'constant':
        value = level;
        break;
      case 'outlier':
        value = index === Math.floor(ordered.length / 2) ? level * 20 : level + (rng() - 0.5) * level * 0.1;
        break;
      case 'negative':
        value = -level + (rng() - 0.5) * level * 0.2;
        break;
      case 'zeros':
        value = rng() < 0.3 ? 0 : Math.round(level + (rng() - 0.5) * level * 0.2);
        break;
      case 'percent':
        value = Math.min(99.9, Math.max(0.1, 90 + (rng() - 0.5) * 15));
        break;
      case 'percent_edges':
        value = rng() < 0.2 ? (rng() < 0.5 ? 0 : 100) : 40 + rng() * 40;
        break;
      case 'small_ints':
        value = Math.floor(rng() * 3);
        break;
      case 'mixed_sign':
        value = (rng() - 0.5) * 20;
        break;
    }
    return [day, Math.round(value * 1000) / 1000];
  });
}

function parameterValue(rng: () => number, rule: CatalogRule, parameter: CatalogParameter): number | boolean | string | null {
  const optional = !parameter.required;
  if (optional && rng() < 0.15) return null; // unset: the default (if any) applies
  if (rng() < 0.1 && parameter.default !== null && parameter.default !== undefined) return null;
  const name = parameter.name;
  const pick = <T>(values: readonly T[]): T => values[Math.floor(rng() * values.length)];
  switch (name) {
    case 'use_ai':
      return null;
    case 'anomaly_percent':
      return pick([0.05, 0.1, 0.5, 1, 2, 5, 10]);
    case 'exact_day':
      return rng() < 0.5;
    case 'expected_datatype':
      return pick(parameter.allowedValues ?? ['integers']);
    case 'percentile_above':
    case 'percentile_below':
      return pick([1, 2.5, 5, 10, 20]);
    case 'multiply_stdev':
    case 'multiply_stdev_above':
    case 'multiply_stdev_below':
      return pick([0.5, 1, 2, 3, 4]);
    case 'from':
    case 'from_percent':
      return -Math.round(rng() * 50);
    case 'to':
    case 'to_percent':
      return Math.round(rng() * 50);
    case 'max_missing':
    case 'max_failures':
      return Math.floor(rng() * 4);
    default:
      if (parameter.type === 'long' || parameter.type === 'integer') return Math.floor(rng() * 20);
      if (parameter.type === 'double') return Math.round(rng() * 3000) / 100;
      if (parameter.type === 'boolean') return rng() < 0.5;
      return null;
  }
  void rule;
}

function makeCases(rule: CatalogRule, count: number): Case[] {
  const rng = random(seedOf(rule.name));
  const window = rule.mode === 'previous_readouts' && rule.timeWindow
    ? { size: rule.timeWindow.predictionTimeWindow, min: rule.timeWindow.minPeriodsWithReadouts, grouping: rule.timeWindow.historicDataPointGrouping }
    : { size: 0, min: 0, grouping: 'day' };
  const shapes = shapesOf(rule);
  const cases: Case[] = [];
  for (let i = 0; i < count; i += 1) {
    const shape = shapes[i % shapes.length];
    const span = window.grouping === 'last_n_readouts' ? 80 : window.size + 5;
    // mostly enough history, sometimes too little (around the minimum) or none
    const roll = rng();
    const size = window.size === 0 ? 0 : roll < 0.1 ? Math.floor(rng() * Math.max(1, window.min)) : roll < 0.2 ? window.min + Math.floor(rng() * 2) : Math.floor(window.min + rng() * (span - window.min));
    const history = makeHistory(rng, shape, Math.max(0, size), Math.max(1, span));
    const values = history.map(([, value]) => value);
    const last = values.at(-1) ?? 100;
    const spread = values.length > 1 ? Math.max(...values) - Math.min(...values) : Math.abs(last) * 0.1 + 1;
    const actualRoll = rng();
    let actual: number | null;
    if (actualRoll < 0.06) actual = null;
    else if (actualRoll < 0.2) actual = last;
    else if (actualRoll < 0.3) actual = values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] : 0;
    else if (actualRoll < 0.4) actual = last + spread * 10;
    else if (actualRoll < 0.45) actual = 0;
    else if (rule.name.includes('datatype')) actual = 1 + Math.floor(rng() * 8);
    else actual = Math.round((last + (rng() - 0.5) * spread * 1.5) * 1000) / 1000;
    if (shape === 'percent' || shape === 'percent_edges') actual = actual === null ? null : Math.min(100, Math.max(0, actual));
    const params: Case['params'] = {};
    for (const parameter of rule.parameters) {
      const value = parameterValue(rng, rule, parameter);
      params[parameter.name] = value ?? (parameter.default as Case['params'][string] | undefined) ?? null;
    }
    const referenceRoll = rng();
    const reference = referenceRoll < 0.15 ? null : referenceRoll < 0.25 ? 0 : Math.round(last * (0.8 + rng() * 0.4) * 100) / 100;
    cases.push({ rule: rule.name, actual, params, reference, history, window, config: rule.config });
  }
  return cases;
}

function dqctlAnswer(item: Case): Answer {
  const history: Readout[] = item.history.map(([days, value]) => ({ timePeriod: new Date(TODAY - days * DAY).toISOString().slice(0, 10), value }));
  const parameters = Object.fromEntries(Object.entries(item.params).filter(([, value]) => value !== null));
  let outcome: RuleOutcome;
  try {
    outcome = evaluateRule(item.rule, {
      actualValue: item.actual,
      parameters,
      history,
      timePeriod: new Date(TODAY).toISOString().slice(0, 10),
      referenceValue: item.reference,
      severity: 'error',
    });
  } catch (error) {
    return { passed: null, expected: null, lower: null, upper: null, error: (error as Error).message };
  }
  const values = 'expectedValue' in outcome || 'lowerBound' in outcome || 'upperBound' in outcome ? (outcome as { expectedValue?: number; lowerBound?: number; upperBound?: number }) : {};
  return {
    passed: outcome.verdict === 'passed' ? true : outcome.verdict === 'failed' ? false : null,
    expected: values.expectedValue ?? null,
    lower: values.lowerBound ?? null,
    upper: values.upperBound ?? null,
  };
}

function same(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

const MOVING_TWO_SIDED = /^(averages\/(percent_moving_average|between_percent_moving_average_)|stdev\/(change_)?multiply_moving_stdev_\d|percentile\/(change_)?percentile_moving_)/;
const SIDES: Record<string, [string, string]> = {
  averages: ['max_percent_above', 'max_percent_below'],
  stdev: ['multiply_stdev_above', 'multiply_stdev_below'],
  percentile: ['percentile_above', 'percentile_below'],
};

/** Why DQOps's answer is its own defect (README, deliberate deviations), or undefined. */
function dqopsDefect(item: Case, reference: Answer): string | undefined {
  if (reference.error !== undefined) return 'DQOps raises an exception';
  if (item.actual === null) return undefined;
  if (MOVING_TWO_SIDED.test(item.rule)) {
    const [above, below] = SIDES[item.rule.split('/')[0]];
    if ((item.params[above] === null) !== (item.params[below] === null)) return 'one-sided threshold';
  }
  if (item.rule.startsWith('averages/') && reference.passed !== null && (reference.window_mean ?? 0) < 0) return 'negative window mean';
  return undefined;
}

function main(): number {
  const args = process.argv.slice(2);
  const filter = args.includes('--rule') ? args[args.indexOf('--rule') + 1] : '';
  const count = args.includes('--cases') ? Number(args[args.indexOf('--cases') + 1]) : 200;
  const verbose = args.includes('--verbose');
  if (!existsSync(MIRROR)) {
    console.log(`skipped: no DQOps mirror at ${MIRROR}`);
    return 0;
  }
  if (spawnSync(PYTHON, ['-c', 'import numpy, scipy']).status !== 0) {
    console.log(`skipped: ${PYTHON} has no numpy/scipy (apt-get install python3-numpy python3-scipy)`);
    return 0;
  }
  const home = mkdtempSync(join(tmpdir(), 'dqops-rules-'));
  try {
    execFileSync('sh', ['-c', `git -C "${MIRROR}" archive HEAD home/rules home/lib 2>/dev/null | tar -x -C "${home}"`]);
    if (!existsSync(join(home, 'home/rules/comparison/min_count.py'))) throw new Error(`no DQOps rules in ${MIRROR}`);
    const rules = [...getCheckCatalog().rules.values()].filter((rule) => rule.name.includes(filter)).sort((a, b) => a.name.localeCompare(b.name));
    const cases = rules.flatMap((rule) => makeCases(rule, count));
    const run = spawnSync(PYTHON, [join(import.meta.dirname, 'rulesReference.py')], {
      input: JSON.stringify({ home: join(home, 'home'), cases }),
      maxBuffer: 1 << 30,
    });
    if (run.status !== 0) throw new Error(`rulesReference.py failed: ${run.stderr.toString()}`);
    const answers = JSON.parse(run.stdout.toString()) as Answer[];
    let agreeing = 0;
    cases.forEach((item, index) => Object.assign(item, { index }));
    for (const rule of rules) {
      const mine = cases.map((item, index) => [item, answers[index]] as const).filter(([item]) => item.rule === rule.name);
      let differing = 0;
      const defects = new Map<string, number>();
      const answered = { passed: 0, failed: 0, none: 0 };
      for (const [item, reference] of mine) {
        const defect = dqopsDefect(item, reference);
        if (defect) {
          defects.set(defect, (defects.get(defect) ?? 0) + 1);
          continue;
        }
        answered[reference.passed === true ? 'passed' : reference.passed === false ? 'failed' : 'none'] += 1;
        const ours = dqctlAnswer(item);
        const agree = ours.error === undefined && ours.passed === reference.passed && same(ours.expected, reference.expected) && same(ours.lower, reference.lower) && same(ours.upper, reference.upper);
        if (!agree) {
          differing += 1;
          if (verbose || differing <= 2) {
            const { rule: _rule, config: _config, window: _window, ...shown } = item;
            console.log(`  ${rule.name}: ${JSON.stringify(shown).slice(0, 600)}\n    dqops ${JSON.stringify(reference)}\n    dqctl ${JSON.stringify(ours)}`);
          }
        }
      }
      if (differing === 0) agreeing += 1;
      const defectText = [...defects].map(([why, n]) => `${n} ${why}`).join(', ');
      const sameCount = mine.length - differing - [...defects.values()].reduce((a, b) => a + b, 0);
      const mix = `DQOps: ${answered.passed} passed, ${answered.failed} failed, ${answered.none} no verdict`;
      console.log(`${differing === 0 ? 'agree' : 'DIFFER'} ${rule.name}: ${sameCount} same, ${differing} different (${mix})${defectText ? `; DQOps defects: ${defectText}` : ''}`);
    }
    console.log(`rules agreeing with DQOps: ${agreeing} of ${rules.length} on ${count} cases each`);
    return 0;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

process.exitCode = main();
