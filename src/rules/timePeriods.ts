/**
 * Time periods as rules count them: an ISO-8601 date or date-time (no zone means UTC, so one day is the same
 * day wherever dqctl runs) turned into the index of its hour, day, ISO week (Monday first), month, quarter or
 * year. Consecutive periods have consecutive indexes, so a window of N periods is a range of indexes.
 */
import { DqError } from '../model/index.js';

export type HistoryGrouping = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year' | 'last_n_readouts';

export const CALENDAR_GROUPINGS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type CalendarGrouping = (typeof CALENDAR_GROUPINGS)[number];

const MS_PER_HOUR = 3_600_000;
const MS_PER_DAY = 86_400_000;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** Milliseconds since the epoch of an ISO-8601 time period; a coded error for anything else. */
export function timePeriodMillis(timePeriod: string): number {
  const match = ISO.exec(timePeriod.trim());
  if (match) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone] = match;
    let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.round(Number(`0${fraction}`) * 1000));
    if (zone && zone.toUpperCase() !== 'Z') {
      const sign = zone.startsWith('-') ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
    }
    if (Number.isFinite(ms)) return ms;
  }
  throw new DqError('RULE_INPUT_INVALID', `not an ISO-8601 time period: "${timePeriod}"`);
}

/** The index of the period of `grouping` that holds the instant `ms`. */
export function periodIndex(ms: number, grouping: CalendarGrouping): number {
  switch (grouping) {
    case 'hour':
      return Math.floor(ms / MS_PER_HOUR);
    case 'day':
      return Math.floor(ms / MS_PER_DAY);
    case 'week':
      // 1970-01-01 was a Thursday; day -3 is the Monday that starts week 0.
      return Math.floor((Math.floor(ms / MS_PER_DAY) + 3) / 7);
    case 'month':
    case 'quarter':
    case 'year': {
      const date = new Date(ms);
      const month = date.getUTCFullYear() * 12 + date.getUTCMonth();
      if (grouping === 'month') return month;
      return grouping === 'quarter' ? Math.floor(month / 3) : Math.floor(month / 12);
    }
    default: {
      const unreachable: never = grouping;
      throw new Error(`unknown grouping ${String(unreachable)}`);
    }
  }
}

/** The calendar grouping named by a check's time gradient (`day`, `daily`, `month`, …); undefined if none. */
export function groupingOfGradient(timeGradient: string | undefined): CalendarGrouping | undefined {
  if (!timeGradient) return undefined;
  const name = timeGradient.toLowerCase().replace(/ly$/, '').replace(/^dai$/, 'day');
  return (CALENDAR_GROUPINGS as readonly string[]).includes(name) ? (name as CalendarGrouping) : undefined;
}

/** The coarser of two calendar groupings. */
export function coarserGrouping(a: CalendarGrouping, b: CalendarGrouping): CalendarGrouping {
  return CALENDAR_GROUPINGS.indexOf(a) >= CALENDAR_GROUPINGS.indexOf(b) ? a : b;
}
