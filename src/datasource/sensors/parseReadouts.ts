/**
 * Rows of a sensor query → readouts per sensor. Values arrive as double precision (numbers) from the scans,
 * and possibly as numeric or bigint strings from custom queries; both become numbers.
 */
import { DqError } from '../../model/index.js';
import { TIME_PERIOD_ALIAS, type GroupNamePart } from './rowSource.js';
import { ALL_DATA_GROUP, type SensorReadout, type SensorReadouts } from './sensorTypes.js';

export interface ValueColumns {
  id: string;
  actual: string;
  expected?: string;
}

export function toNumber(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  throw new DqError('INVALID_ARGUMENT', `a sensor query returned ${JSON.stringify(value)} where a number was expected`);
}

export function dataGroupOf(row: Readonly<Record<string, unknown>>, groupName: readonly GroupNamePart[]): string {
  if (groupName.length === 0) return ALL_DATA_GROUP;
  return groupName
    .map((part) => {
      if ('tag' in part) return part.tag;
      const value = row[part.alias];
      return value === null || value === undefined ? 'null' : String(value);
    })
    .join(', ');
}

export function parseGroupedRows(
  rows: readonly Record<string, unknown>[],
  groupName: readonly GroupNamePart[],
  partitioned: boolean,
  columns: readonly ValueColumns[],
): SensorReadouts {
  const readouts: SensorReadouts = new Map(columns.map((c) => [c.id, [] as SensorReadout[]]));
  for (const row of rows) {
    const dataGroup = dataGroupOf(row, groupName);
    for (const column of columns) {
      const readout: SensorReadout = { dataGroup, actualValue: toNumber(row[column.actual]) };
      if (partitioned) readout.timePeriod = String(row[TIME_PERIOD_ALIAS]);
      if (column.expected !== undefined) readout.expectedValue = toNumber(row[column.expected]);
      readouts.get(column.id)!.push(readout);
    }
  }
  return readouts;
}
