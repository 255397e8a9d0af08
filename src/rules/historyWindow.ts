/**
 * Picks the history a rule looks at, as its time window says: the readouts before the current time period,
 * one per period of the grouping (the latest readout of a period stands for it) within the last
 * `prediction_time_window` periods, or, for `last_n_readouts`, the last N readouts. The current period itself
 * is never history: a re-run of today's check must not compare today with today.
 */
import type { RuleTimeWindow } from '../catalog/index.js';
import type { Readout } from './ruleTypes.js';
import {
  coarserGrouping,
  groupingOfGradient,
  periodIndex,
  timePeriodMillis,
  type HistoryGrouping,
} from './timePeriods.js';

/** One point of the picked history; `period` is the period index (or the readout's position for last_n_readouts). */
export interface HistoryPoint {
  period: number;
  millis: number;
  value: number;
}

export interface PickedHistory {
  grouping: HistoryGrouping;
  /** The current time period's index in `grouping` (the number of picked readouts for last_n_readouts). */
  currentPeriod: number;
  /** Oldest first. */
  points: HistoryPoint[];
}

export interface PickHistoryOptions {
  /** The check's time gradient: groups by it when it is coarser than the window's grouping. */
  timeGradient?: string;
  /** Keep the window's own grouping whatever the gradient (rules whose names count days). */
  fixedGrouping?: boolean;
}

export function pickHistory(
  history: readonly Readout[],
  timePeriod: string,
  window: RuleTimeWindow,
  options: PickHistoryOptions = {},
): PickedHistory {
  const currentMillis = timePeriodMillis(timePeriod);
  const earlier: HistoryPoint[] = [];
  for (const readout of history) {
    if (typeof readout.value !== 'number' || !Number.isFinite(readout.value)) continue;
    const millis = timePeriodMillis(readout.timePeriod);
    if (millis < currentMillis) earlier.push({ period: 0, millis, value: readout.value });
  }
  // stable: readouts of one instant keep their order, so the last one given wins below
  earlier.sort((a, b) => a.millis - b.millis);

  const grouping = windowGrouping(window.historicDataPointGrouping, options);
  const size = Math.max(0, window.predictionTimeWindow);
  if (grouping === 'last_n_readouts') {
    const distinct: HistoryPoint[] = [];
    for (const point of earlier) {
      if (distinct.length > 0 && distinct[distinct.length - 1].millis === point.millis) distinct[distinct.length - 1] = point;
      else distinct.push(point);
    }
    const points = distinct.slice(Math.max(0, distinct.length - size)).map((point, index) => ({ ...point, period: index }));
    return { grouping, currentPeriod: points.length, points };
  }

  const currentPeriod = periodIndex(currentMillis, grouping);
  const byPeriod = new Map<number, HistoryPoint>();
  for (const point of earlier) {
    const period = periodIndex(point.millis, grouping);
    if (period < currentPeriod && period >= currentPeriod - size) byPeriod.set(period, { ...point, period });
  }
  const points = [...byPeriod.values()].sort((a, b) => a.period - b.period);
  return { grouping, currentPeriod, points };
}

function windowGrouping(name: string, options: PickHistoryOptions): HistoryGrouping {
  const grouping = normalizeGrouping(name);
  if (grouping === 'last_n_readouts' || options.fixedGrouping) return grouping;
  const gradient = groupingOfGradient(options.timeGradient);
  return gradient ? coarserGrouping(grouping, gradient) : grouping;
}

function normalizeGrouping(name: string): HistoryGrouping {
  const lower = name.toLowerCase();
  if (lower === 'last_n_readouts') return 'last_n_readouts';
  return groupingOfGradient(lower) ?? 'day';
}
