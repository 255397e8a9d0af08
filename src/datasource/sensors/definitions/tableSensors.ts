/**
 * Table sensors measured on the rows: volume, duplicate records and timeliness. Timeliness values are in days,
 * measured against the run's start time (`now`, bound), and read the table's timestamp_columns. As in DQOps, the
 * unit follows the columns' type snapshots (see timeKind): a `DATE` snapshot gives whole days (date minus date,
 * today being the run's date in the session's time zone); timestamps give fractional days; a column of another or
 * unknown type is read as `timestamp` (each value cast, then the newest taken).
 */
import { quoteIdent } from '../quoteIdent.js';
import { SensorBuildError, type FailingRowsSql, type FailingRowsContext, type ScanContext, type SensorDefinition, type SubqueryContext } from '../sensorDefinition.js';
import { timestampColumnName, type TableQueryRequest } from '../sensorTypes.js';
import { duplicatedRows } from './shapes.js';

const DAY_SECONDS = 86_400;

/** Days from `earlier` to `later`, fractional. */
function days(ctx: ScanContext, later: string, earlier: string): string {
  return `${ctx.dialect.secondsBetween(later, earlier)} / ${ctx.bind(DAY_SECONDS, 'integer')}`;
}

type TimeKind = 'instant' | 'date' | 'local' | 'other';

/**
 * How DQOps reads a timestamp column, by its type snapshot. DQOps compares the snapshot with upper-case type
 * names as they are, so only an upper-case snapshot (`DATE`, `TIMESTAMPTZ`, …) selects a type; a snapshot as
 * imported from PostgreSQL (`date`, `timestamptz`) is read as `timestamp`, and a date then gives fractional days
 * since its midnight. dqctl follows it, so both give the same number on the same table file.
 */
function timeKind(type: string | undefined): TimeKind {
  if (type === 'TIMESTAMP WITH TIME ZONE' || type === 'TIMESTAMPTZ') return 'instant';
  if (type === 'DATE') return 'date';
  if (type === 'TIMESTAMP WITHOUT TIME ZONE' || type === 'TIMESTAMP') return 'local';
  return 'other';
}

/** The column as compared: itself for a known time type, else cast to `timestamp`. */
function asTime(ctx: ScanContext, column: string, kind: TimeKind): string {
  return kind === 'other' ? ctx.dialect.asTimestamp(column) : column;
}

/**
 * A stored type whose values keep their order when cast to `timestamp`: a date or a timestamp, in any case and
 * precision (`DATE`, `timestamp with time zone`, DuckDB's `TIMESTAMP_NS`, MySQL's `datetime(6)`). Text does not
 * (`'9 May' > '10 May'`). A timestamp with time zone keeps it except within the hour repeated when the session's
 * time zone leaves daylight saving time (the README lists this).
 */
function keepsOrderAsTimestamp(type: string | undefined): boolean {
  return type !== undefined && /^(date|datetime|timestamp(tz|_ns|_ms|_s|_us)?)(\s*\(\d\))?( with(out)? time zone)?$/i.test(type.trim());
}

/**
 * The newest value of a timestamp column as DQOps's templates read it (asTime). A column read as `timestamp`
 * whose stored type keeps its order under the cast takes its newest value first and casts that one: the same
 * value, without a cast of every row (on DuckDB a cast of a timestamp with time zone per row costs more than
 * the rest of a 30-sensor scan).
 */
function newest(ctx: ScanContext, which: 'event' | 'ingestion', kind: TimeKind): string {
  const column = ctx.timestampColumn(which);
  if (kind === 'other' && keepsOrderAsTimestamp(ctx.timestampColumnStoredType(which))) return ctx.dialect.asTimestamp(ctx.aggregate(`max(${column})`));
  return ctx.aggregate(`max(${asTime(ctx, column, kind)})`);
}

/** Days from the newest value of a timestamp column to now. */
function sinceNewest(ctx: ScanContext, which: 'event' | 'ingestion'): string {
  const kind = timeKind(ctx.timestampColumnType(which));
  const newestValue = newest(ctx, which, kind);
  return kind === 'date' ? ctx.dialect.daysBetweenDates(ctx.dialect.toDate(ctx.now), newestValue) : days(ctx, ctx.now, newestValue);
}

/** Both columns of one kind are compared as they are; mixed kinds are both cast to `timestamp` (as DQOps). */
function pairKind(ctx: ScanContext): TimeKind {
  const ingestion = timeKind(ctx.timestampColumnType('ingestion'));
  return ingestion === timeKind(ctx.timestampColumnType('event')) ? ingestion : 'other';
}

/**
 * The record's columns: `columns`, or every column of the table (its type snapshot) when the list is empty, as
 * DQOps takes every column of the table's file.
 */
function recordColumnNames(ctx: ScanContext): string[] {
  const columns = ctx.param('columns');
  const names = Array.isArray(columns) && columns.length > 0 ? columns.map(String) : ctx.tableColumns;
  if (names.length === 0) throw new SensorBuildError('the sensor parameter "columns" must list at least one column (the table lists no column types to take all of)');
  return names;
}

function recordColumns(ctx: ScanContext): string {
  return ctx.dialect.recordText(recordColumnNames(ctx).map((column) => `analyzed_table.${quoteIdent(column)}`));
}

/**
 * The duplicate record sensors, as DQOps measures them: the rows whose record columns are not all NULL, grouped
 * by the record (NULLs equal, values compared as values); the count is the number of records that occur more
 * than once (a record in three rows counts once), the percent is 100 x (1 - records / rows). Both are 0 on no rows.
 * A query of its own: a count per record, then an aggregate of the counts.
 */
function duplicateRecordsQuery(ctx: SubqueryContext, value: 'count' | 'percent'): string {
  const keys = recordColumnNames(ctx).map((column) => `analyzed_table.${quoteIdent(column)}`);
  const groups = ctx.source.groups;
  const groupAliases = groups.map((g) => g.alias);
  // not all NULL: `a is not null or b is not null` (no cast to text per row, which costs MariaDB a copy of each value)
  const where = [...ctx.source.where, `(${keys.map((key) => `${key} is not null`).join(' or ')})`];
  if (ctx.checkFilter !== undefined) where.push(`(${ctx.checkFilter})`);
  if (value === 'count' && groups.length === 0) {
    // without data groups, the repeated records alone: `having` keeps the derived table as small as the answer
    // (MariaDB materializes it; a count over every record's row cost it half again the time)
    return [
      'select count(*) as actual_value',
      'from (',
      '  select 1 as repeated',
      `  from ${ctx.source.from}`,
      `  where ${where.join('\n    and ')}`,
      `  group by ${keys.join(', ')}`,
      '  having count(*) > 1',
      ') as records',
    ].join('\n');
  }
  // with data groups every group keeps its row (0 when none of its records repeats)
  const actual = value === 'count' ? ctx.dialect.filtered('count(*)', 'record_rows > 1') : `coalesce((1 - cast(count(*) as ${ctx.dialect.exactNumeric}) / sum(record_rows)) * 100.0, 0)`;
  return [
    `select ${[...groupAliases, `${actual} as actual_value`].join(', ')}`,
    'from (',
    `  select ${[...groups.map((g) => `${g.select} as ${g.alias}`), 'count(*) as record_rows'].join(', ')}`,
    `  from ${ctx.source.from}`,
    `  where ${where.join('\n    and ')}`,
    `  group by ${[...groups.map((g) => g.expression), ...keys].join(', ')}`,
    ') as records',
    groupAliases.length > 0 ? `group by ${groupAliases.join(', ')}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** Error samples of the duplicate record sensors: every copy of a repeated record, shown as the record's text. */
function duplicateRecordRows(ctx: FailingRowsContext): FailingRowsSql {
  const record = recordColumns(ctx);
  return { condition: duplicatedRows(ctx, record), value: record };
}

/** The sensors that read the newest value of a timestamp column (`newest`), by the columns they read. */
const NEWEST_VALUE_SENSORS: Record<string, ReadonlyArray<'event' | 'ingestion'>> = {
  'table/timeliness/data_freshness': ['event'],
  'table/timeliness/data_staleness': ['ingestion'],
  'table/timeliness/data_ingestion_delay': ['event', 'ingestion'],
};

/**
 * Whether the source's column types (SqlTarget.describeColumns) would change a query of the request: a sensor reads
 * the newest value of a timestamp column that has no type snapshot. Asked before planning, so that a source is
 * asked for its types only when they count.
 */
export function sourceColumnTypesWanted(request: TableQueryRequest): boolean {
  if (request.sourceColumnTypes !== undefined) return false;
  return request.sensors.some((sensor) =>
    (NEWEST_VALUE_SENSORS[sensor.sensorName] ?? []).some((which) => {
      const name = timestampColumnName(request, which);
      return name !== undefined && name !== '' && request.columnTypes?.[name] === undefined;
    }),
  );
}

export const TABLE_SENSORS: Record<string, SensorDefinition> = {
  'table/volume/row_count': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Rows: `count(*)`.',
    build: (ctx) => ctx.count(),
  },
  'table/uniqueness/duplicate_record_count': {
    kind: 'subquery',
    needsColumn: false,
    meaning:
      'Records (combinations of the `columns`, all columns when empty; rows with all of them NULL left out) that occur in more than one row; a record in three rows counts once (as DQOps); a query of its own.',
    build: (ctx) => duplicateRecordsQuery(ctx, 'count'),
    failingRows: duplicateRecordRows,
  },
  'table/uniqueness/duplicate_record_percent': {
    kind: 'subquery',
    needsColumn: false,
    meaning: '100 x (1 - distinct records / rows) over the rows whose `columns` are not all NULL (0 for none); a query of its own.',
    build: (ctx) => duplicateRecordsQuery(ctx, 'percent'),
    failingRows: duplicateRecordRows,
  },
  'table/timeliness/data_freshness': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Days from the newest event timestamp to now: `now - max(event_timestamp_column)` (whole days for a `date` column).',
    build: (ctx) => sinceNewest(ctx, 'event'),
  },
  'table/timeliness/data_staleness': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Days from the newest ingestion timestamp to now: `now - max(ingestion_timestamp_column)` (whole days for a `date` column).',
    build: (ctx) => sinceNewest(ctx, 'ingestion'),
  },
  'table/timeliness/data_ingestion_delay': {
    kind: 'aggregate',
    needsColumn: false,
    meaning: 'Days between the newest event and the newest ingestion: `max(ingestion) - max(event)` (whole days when both are `date`).',
    build: (ctx) => {
      const kind = pairKind(ctx);
      const ingestion = newest(ctx, 'ingestion', kind);
      const event = newest(ctx, 'event', kind);
      return kind === 'date' ? `(${ingestion} - ${event})` : days(ctx, ingestion, event);
    },
  },
  'table/timeliness/partition_reload_lag': {
    kind: 'aggregate',
    needsColumn: false,
    meaning:
      'Longest delay of a row, in days: `max(ingestion - event)` over the rows (per partition when partitioned); whole days when both are `date` (where DQOps\'s query fails).',
    build: (ctx) => {
      const kind = pairKind(ctx);
      const ingestion = asTime(ctx, ctx.timestampColumn('ingestion'), kind);
      const event = asTime(ctx, ctx.timestampColumn('event'), kind);
      // the longest delay, then in days: the epoch of each interval (an interval's max compares 1 month = 30 days)
      return kind === 'date' ? ctx.aggregate(`max(${ingestion} - ${event})`) : `${ctx.aggregate(`max(${ctx.dialect.secondsBetween(ingestion, event)})`)} / ${ctx.bind(DAY_SECONDS, 'integer')}`;
    },
  },
};
