import type { ErrorSampleRow } from '../../store/store.js';
import type { Target } from './checkResults.js';

/** The CSV download of error samples: a header row, RFC 4180 quoting, and a guard against spreadsheet formulas. */
const CSV_COLUMNS: Array<[string, (row: ErrorSampleRow) => string | number | null]> = [
  ['checkName', (r) => r.checkName],
  ['checkCategory', (r) => r.checkCategory],
  ['checkType', (r) => r.checkType],
  ['timeGradient', (r) => r.timeGradient],
  ['columnName', (r) => r.columnName],
  ['dataGroup', (r) => r.dataGroup],
  ['sampleIndex', (r) => r.sampleIndex],
  ['result', (r) => r.result],
  ['resultDataType', (r) => r.resultDataType],
  ['rowId1', (r) => r.rowId1],
  ['rowId2', (r) => r.rowId2],
  ['rowId3', (r) => r.rowId3],
  ['rowId4', (r) => r.rowId4],
  ['rowId5', (r) => r.rowId5],
  ['collectedAt', (r) => r.collectedAt],
  ['executedAt', (r) => r.executedAt],
  ['sensorName', (r) => r.sensorName],
  ['qualityDimension', (r) => r.qualityDimension],
  ['tableComparison', (r) => r.tableComparison],
];

/**
 * One CSV field. RFC 4180: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled. Formula
 * guard: sampled values come from the monitored data, so a value a spreadsheet would run as a formula (starting
 * with `=`, `+`, `-`, `@`, a tab or CR) gets a leading `'`, which spreadsheets show as text; plain numbers such
 * as `-5` or `+1.5e3` are left alone, since no spreadsheet evaluates them as formulas.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let field = String(value);
  if (/^[=+\-@\t\r]/.test(field) && !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(field)) field = `'${field}`;
  return /[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** The error samples as CSV: a header row, then one line per sample, CRLF line ends (RFC 4180). */
export function toCsv(rows: ErrorSampleRow[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const row of rows) lines.push(CSV_COLUMNS.map(([, get]) => csvField(get(row))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

export function csvFileName(target: Target): string {
  const parts = [target.connection, target.schema, target.table, ...(target.column === undefined ? [] : [target.column])];
  return `${parts.join('_').replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 150)}_error_samples.csv`;
}
