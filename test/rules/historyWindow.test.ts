import { describe, expect, it } from 'vitest';
import type { RuleTimeWindow } from '../../src/catalog/index.js';
import { pickHistory } from '../../src/rules/historyWindow.js';
import { periodIndex, timePeriodMillis } from '../../src/rules/timePeriods.js';

const window = (historicDataPointGrouping: string, predictionTimeWindow: number): RuleTimeWindow => ({
  historicDataPointGrouping,
  predictionTimeWindow,
  minPeriodsWithReadouts: 0,
});
const values = (picked: ReturnType<typeof pickHistory>) => picked.points.map((point) => point.value);

describe('time periods', () => {
  it('dates and date-times without a zone are UTC; offsets are applied', () => {
    expect(timePeriodMillis('2024-05-01')).toBe(Date.UTC(2024, 4, 1));
    expect(timePeriodMillis('2024-05-01T10:30:00')).toBe(Date.UTC(2024, 4, 1, 10, 30));
    expect(timePeriodMillis('2024-05-01T10:30:00.250Z')).toBe(Date.UTC(2024, 4, 1, 10, 30, 0, 250));
    expect(timePeriodMillis('2024-05-01T02:00:00+02:00')).toBe(Date.UTC(2024, 4, 1, 0, 0));
    expect(timePeriodMillis('2024-05-01 02:00:00-0130')).toBe(Date.UTC(2024, 4, 1, 3, 30));
  });

  it('weeks start on Monday; months and quarters by the calendar', () => {
    const monday = periodIndex(Date.UTC(2024, 4, 20), 'week');
    expect(periodIndex(Date.UTC(2024, 4, 26, 23), 'week')).toBe(monday); // Sunday
    expect(periodIndex(Date.UTC(2024, 4, 19), 'week')).toBe(monday - 1);
    expect(periodIndex(Date.UTC(2024, 0, 31), 'month') + 1).toBe(periodIndex(Date.UTC(2024, 1, 1), 'month'));
    expect(periodIndex(Date.UTC(2024, 2, 31), 'quarter') + 1).toBe(periodIndex(Date.UTC(2024, 3, 1), 'quarter'));
  });
});

describe('pickHistory', () => {
  const readouts = [
    { timePeriod: '2024-05-18T08:00:00Z', value: 1 },
    { timePeriod: '2024-05-18T20:00:00Z', value: 2 },
    { timePeriod: '2024-05-19', value: 3 },
    { timePeriod: '2024-05-10', value: 4 },
    { timePeriod: '2024-05-20T01:00:00Z', value: 5 }, // the current day
    { timePeriod: '2024-05-21', value: 6 }, // later
    { timePeriod: '2024-05-19', value: Number.NaN },
  ];

  it('by day: the latest readout of each earlier day within the window, oldest first', () => {
    const picked = pickHistory(readouts, '2024-05-20T12:00:00Z', window('day', 10));
    expect(values(picked)).toEqual([4, 2, 3]);
    expect(picked.points.map((p) => p.period - picked.currentPeriod)).toEqual([-10, -2, -1]);
    expect(values(pickHistory(readouts, '2024-05-20', window('day', 9)))).toEqual([2, 3]);
  });

  it('last_n_readouts: the last N readouts before the current time period', () => {
    expect(values(pickHistory(readouts, '2024-05-20T12:00:00Z', window('last_n_readouts', 2)))).toEqual([3, 5]);
    expect(values(pickHistory(readouts, '2024-05-20', window('last_n_readouts', 60)))).toEqual([4, 1, 2, 3]);
  });

  it('by week and month', () => {
    // May 20 is a Monday: the week of May 13 (latest: May 19) and the week of May 6 (May 10)
    expect(values(pickHistory(readouts, '2024-05-20', window('week', 4)))).toEqual([4, 3]);
    expect(values(pickHistory(readouts, '2024-05-20', window('week', 1)))).toEqual([3]);
    expect(values(pickHistory(readouts, '2024-06-03', window('month', 1)))).toEqual([6]);
  });

  it("a coarser time gradient groups by the check's periods", () => {
    const monthly = [
      { timePeriod: '2024-01-01', value: 1 },
      { timePeriod: '2024-02-01', value: 2 },
      { timePeriod: '2024-03-01', value: 3 },
    ];
    expect(values(pickHistory(monthly, '2024-04-01', window('day', 2), { timeGradient: 'month' }))).toEqual([2, 3]);
    expect(values(pickHistory(monthly, '2024-04-01', window('day', 2), { timeGradient: 'month', fixedGrouping: true }))).toEqual([]);
    // January 1 is 91 days before April 1 (a leap year)
    expect(values(pickHistory(monthly, '2024-04-01', window('day', 90), { timeGradient: 'day' }))).toEqual([2, 3]);
    expect(values(pickHistory(monthly, '2024-04-01', window('day', 91), { timeGradient: 'daily' }))).toEqual([1, 2, 3]);
  });
});
