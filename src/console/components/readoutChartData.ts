import type { ResultEntry } from '../api';

/**
 * The readout history of one check shaped for the chart: one series per data group over the time periods (the
 * newest run of each period and group), expected values when the rules compute them, and the failed readouts
 * with their severity. Pure, so the chart component only draws.
 */
export type Severity = 'valid' | 'warning' | 'error' | 'fatal';

export interface ChartReadout {
  /** the time period, in epoch seconds (uPlot's time unit) */
  t: number;
  group: string;
  value: number;
  expected: number | null;
  severity: Severity | null;
}

export interface ChartData {
  times: number[];
  groups: string[];
  /** per group, the value at each time (null: no readout of that group then) */
  values: Array<Array<number | null>>;
  /** the expected values of the only group (none when several groups share the chart) */
  expected: Array<number | null> | null;
  readouts: ChartReadout[];
  /** every readout value is a whole number (counts): the y axis ticks whole numbers too */
  whole: boolean;
}

/** Data groups drawn as their own line; more share the chart's last colour (the tooltip still names each). */
export const MAX_GROUP_LINES = 8;

export function chartDataOf(results: readonly ResultEntry[]): ChartData {
  // the newest run of each time period and data group
  const newest = new Map<string, ResultEntry>();
  for (const r of results) {
    if (r.actual_value === null) continue;
    const key = `${r.time_period}\u0000${r.data_group}`;
    const kept = newest.get(key);
    if (!kept || kept.executed_at < r.executed_at) newest.set(key, r);
  }
  const readouts: ChartReadout[] = [...newest.values()]
    .map((r) => ({ t: Date.parse(r.time_period) / 1000, group: r.data_group, value: r.actual_value as number, expected: r.expected_value, severity: r.severity }))
    .sort((a, b) => a.t - b.t || a.group.localeCompare(b.group));
  const times = [...new Set(readouts.map((r) => r.t))];
  const groups = [...new Set(readouts.map((r) => r.group))].sort();
  const at = new Map(times.map((t, i) => [t, i]));
  const values = groups.map(() => times.map((): number | null => null));
  for (const r of readouts) values[groups.indexOf(r.group)][at.get(r.t)!] = r.value;
  let expected: Array<number | null> | null = null;
  if (groups.length === 1 && readouts.some((r) => r.expected !== null)) {
    expected = times.map(() => null);
    for (const r of readouts) expected[at.get(r.t)!] = r.expected;
  }
  return { times, groups, values, expected, readouts, whole: readouts.every((r) => Number.isInteger(r.value)) };
}

/**
 * The tick steps of a value axis: 1, 2, 5 times a power of ten, from 1 up when the values are whole (no
 * "0.5 rows"), from 1e-6 otherwise.
 */
export function tickSteps(whole: boolean): number[] {
  const steps: number[] = [];
  for (let e = whole ? 0 : -6; e <= 18; e++) for (const m of [1, 2, 5]) steps.push(Number(`${m}e${e}`));
  return steps;
}

const UNITS: Array<[number, string]> = [
  [1e15, 'P'],
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
];

/**
 * A tick label short enough for the axis and exact enough for its step: below a million written whole with
 * thousands separators (1,500); above it in K-less units (166T, 1.25B) with as many decimals as the step needs.
 */
export function formatTick(value: number, step: number): string {
  const abs = Math.abs(value);
  for (const [unit, suffix] of UNITS) {
    if (abs >= unit) {
      const decimals = Math.min(3, Math.max(0, Math.ceil(Math.log10(unit / step) - 1e-9)));
      return `${(value / unit).toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: decimals })}${suffix}`;
    }
  }
  const decimals = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9));
  return value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: decimals });
}

/** A sensor that reads a hash of the table's schema (DQOps's column_list…_hash, column_types_hash): its readouts are compared, never charted. */
export function isSchemaHashSensor(sensorName: string | null | undefined): boolean {
  return typeof sensorName === 'string' && /_hash$/.test(sensorName);
}
