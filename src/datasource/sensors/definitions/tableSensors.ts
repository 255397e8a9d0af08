/**
 * Table sensors measured on the rows: volume, duplicate records and timeliness. Timeliness values are in
 * days (fractional), measured against the run's start time (`now`, bound), and read the table's
 * timestamp_columns.
 */
import { quoteIdent } from '../quoteIdent.js';
import { SensorBuildError, type FailingRowsSql, type FailingRowsContext, type ScanContext, type SensorDefinition } from '../sensorDefinition.js';
import { duplicatedRows } from './shapes.js';

const DAY_SECONDS = 86_400;

function days(ctx: ScanContext, interval: string): string {
  return `extract(epoch from (${interval})) / ${ctx.bind(DAY_SECONDS, 'integer')}`;
}

function recordColumns(ctx: ScanContext): string {
  const columns = ctx.param('columns');
  if (!Array.isArray(columns) || columns.length === 0) throw new SensorBuildError('the sensor parameter "columns" must list at least one column');
  return `row(${columns.map((column) => `analyzed_table.${quoteIdent(String(column))}`).join(', ')})`;
}

/**
 * Records compare by their text form, byte by byte (`collate "C"`): exact (a record's text quotes and separates
 * its fields unambiguously, NULL apart from ''), the same key the error samples group by, and about four times
 * faster than `count(distinct row(…))`, which compares the records field by field (2.0 s -> 0.5 s on 1M rows).
 */
function duplicateRecords(ctx: ScanContext): string {
  return `(${ctx.count()} - ${ctx.aggregate(`count(distinct (${recordColumns(ctx)}::text) collate "C")`)})`;
}

/** Error samples of the duplicate record sensors: every copy of a repeated record, shown as the record's text. */
function duplicateRecordRows(ctx: FailingRowsContext): FailingRowsSql {
  const record = recordColumns(ctx);
  return { condition: duplicatedRows(ctx, `${record}::text`), value: record };
}

export const TABLE_SENSORS: Record<string, SensorDefinition> = {
  'table/volume/row_count': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Rows: `count(*)`.',
    build: (ctx) => ctx.count(),
  },
  'table/uniqueness/duplicate_record_count': {
    kind: 'aggregate',
    needsColumn: false,
    meaning:
      'Rows that repeat an earlier row on the `columns`: rows minus distinct combinations, compared by their text form (NULLs equal, as in GROUP BY; numeric 1.0 and 1.00 differ).',
    build: (ctx) => duplicateRecords(ctx),
    failingRows: duplicateRecordRows,
  },
  'table/uniqueness/duplicate_record_percent': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'duplicate_record_count as a percent of the rows (0 for no rows).',
    build: (ctx) => ctx.percent(duplicateRecords(ctx), ctx.count(), 0),
    failingRows: duplicateRecordRows,
  },
  'table/timeliness/data_freshness': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Days from the newest event timestamp to now: `now - max(event_timestamp_column)`.',
    build: (ctx) => days(ctx, `${ctx.now} - (${ctx.aggregate(`max(${ctx.timestampColumn('event')})`)})::timestamptz`),
  },
  'table/timeliness/data_staleness': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Days from the newest ingestion timestamp to now: `now - max(ingestion_timestamp_column)`.',
    build: (ctx) => days(ctx, `${ctx.now} - (${ctx.aggregate(`max(${ctx.timestampColumn('ingestion')})`)})::timestamptz`),
  },
  'table/timeliness/data_ingestion_delay': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Days between the newest event and the newest ingestion: `max(ingestion) - max(event)`.',
    build: (ctx) =>
      days(
        ctx,
        `(${ctx.aggregate(`max(${ctx.timestampColumn('ingestion')})`)})::timestamptz - ` +
          `(${ctx.aggregate(`max(${ctx.timestampColumn('event')})`)})::timestamptz`,
      ),
  },
  'table/timeliness/partition_reload_lag': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Longest delay of a row, in days: `max(ingestion - event)` over the rows (per partition when partitioned).',
    build: (ctx) =>
      days(
        ctx,
        ctx.aggregate(`max((${ctx.timestampColumn('ingestion')})::timestamptz - (${ctx.timestampColumn('event')})::timestamptz)`),
      ),
  },
};
