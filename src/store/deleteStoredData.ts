import { deleteIncidents } from './incidentRows.js';
import type { SqlParam, SqlQueryable } from './sql/sqlClient.js';
import { refreshTableStatus } from './tableStatus.js';

/**
 * The delete-stored-data job's SQL: removes check results, execution errors, error samples and statistics of a
 * connection, narrowed by every filter the request gives (a filter never widens what is deleted):
 * - tables (`schema.table` with `*` wildcards), columns, data group, and the days `dateStart`…`dateEnd`
 *   (inclusive; results by their time period, samples and statistics by when they were collected): all kinds;
 * - the check filters (check type, time gradient, category, name, sensor, quality dimension, table comparison)
 *   narrow check results, execution errors and error samples; statistics belong to no check and are not
 *   filtered by them;
 * - the collector filters (category, name, target table or column) narrow statistics only.
 * Patterns become LIKE patterns with `%`, `_` and `\` escaped; every value is bound.
 */
export interface DeleteStoredDataRequest {
  connection: string;
  /** `schema.table`, `*` wildcards; absent: every table of the connection. */
  fullTableName?: string;
  /** One table by its exact names (a name may hold `*` or `.`); wins over fullTableName. */
  table?: { schema: string; table: string };
  columnNames?: readonly string[];
  /** ISO dates (YYYY-MM-DD), both days included. */
  dateStart?: string;
  dateEnd?: string;
  dataGroup?: string;
  check?: {
    checkType?: string;
    timeGradient?: string;
    checkCategory?: string;
    checkName?: string;
    sensorName?: string;
    qualityDimension?: string;
    tableComparisonName?: string;
  };
  collector?: { collectorCategory?: string; collectorName?: string; collectorTarget?: 'table' | 'column' };
  checkResults: boolean;
  errors: boolean;
  errorSamples: boolean;
  /** Statistics (every collector, every data group). */
  statistics?: boolean;
  /**
   * Incidents of the tables (and their sent or failed messages; pending ones still go out), by the day they were
   * first seen. An incident belongs to a table, not to a column: a request naming columns leaves them alone.
   */
  incidents?: boolean;
}

export interface DeleteStoredDataCounts {
  check_results: number;
  errors: number;
  error_samples: number;
  statistics: number;
  /** Present when the request asked for incidents. */
  incidents?: number;
}

function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

/** A WHERE clause built from optional equality filters, each bound. */
class Conditions {
  readonly sql: string[] = [];
  readonly params: SqlParam[] = [];
  add(condition: (placeholder: string) => string, value: SqlParam | undefined): void {
    if (value === undefined || value === null) return;
    this.params.push(value);
    this.sql.push(condition(`$${this.params.length}`));
  }
  where(): string {
    return this.sql.join(' and ');
  }
}

export async function deleteStoredData(sql: SqlQueryable, request: DeleteStoredDataRequest): Promise<DeleteStoredDataCounts> {
  const full = request.fullTableName ?? '*.*';
  const dot = full.indexOf('.');
  const schema = dot >= 0 ? full.slice(0, dot) : '*';
  const table = dot >= 0 ? full.slice(dot + 1) : full;
  const columns = request.columnNames && request.columnNames.length > 0 ? JSON.stringify(request.columnNames) : null;

  /** The conditions every kind shares, with the column that dates its rows. */
  const shared = (dated: string) => {
    const c = new Conditions();
    c.add((p) => `connection_name = ${p}`, request.connection);
    if (request.table) {
      c.add((p) => `schema_name = ${p}`, request.table.schema);
      c.add((p) => `table_name = ${p}`, request.table.table);
    } else {
      c.add((p) => `schema_name like ${p} escape '\\'`, likePattern(schema));
      c.add((p) => `table_name like ${p} escape '\\'`, likePattern(table));
    }
    c.add((p) => `column_name in (select jsonb_array_elements_text(${p}::text::jsonb))`, columns);
    c.add((p) => `data_group = ${p}`, request.dataGroup);
    c.add((p) => `(${dated} at time zone 'UTC')::date >= ${p}::date`, request.dateStart);
    c.add((p) => `(${dated} at time zone 'UTC')::date <= ${p}::date`, request.dateEnd);
    return c;
  };
  const checkRows = (dated: string) => {
    const c = shared(dated);
    const f = request.check ?? {};
    c.add((p) => `check_type = ${p}`, f.checkType);
    c.add((p) => `time_gradient = ${p}`, f.timeGradient);
    c.add((p) => `check_category = ${p}`, f.checkCategory);
    c.add((p) => `check_name = ${p}`, f.checkName);
    c.add((p) => `sensor_name = ${p}`, f.sensorName);
    c.add((p) => `quality_dimension = ${p}`, f.qualityDimension);
    c.add((p) => `table_comparison = ${p}`, f.tableComparisonName);
    return c;
  };

  const counts: DeleteStoredDataCounts = { check_results: 0, errors: 0, error_samples: 0, statistics: 0 };
  const touched: Touched[] = [];
  if (request.checkResults) {
    const c = checkRows('time_period');
    const deleted = await sql.query<Touched>(`delete from dqctl.check_results where ${c.where()} and error_message is null returning ${TOUCHED}`, c.params);
    counts.check_results = deleted.length;
    touched.push(...deleted);
  }
  if (request.errors) {
    const c = checkRows('time_period');
    const deleted = await sql.query<Touched>(`delete from dqctl.check_results where ${c.where()} and error_message is not null returning ${TOUCHED}`, c.params);
    counts.errors = deleted.length;
    touched.push(...deleted);
  }
  if (request.errorSamples) {
    const c = checkRows('collected_at');
    counts.error_samples = (await sql.query(`delete from dqctl.error_samples where ${c.where()} returning 1`, c.params)).length;
  }
  if (request.statistics) {
    const c = shared('collected_at');
    const f = request.collector ?? {};
    c.add((p) => `collector_category = ${p}`, f.collectorCategory);
    c.add((p) => `collector_name = ${p}`, f.collectorName);
    if (f.collectorTarget === 'table') c.sql.push('column_name is null');
    if (f.collectorTarget === 'column') c.sql.push('column_name is not null');
    counts.statistics = (await sql.query(`delete from dqctl.statistics where ${c.where()} returning 1`, c.params)).length;
  }
  if (request.incidents) {
    counts.incidents = 0;
    if (!request.columnNames || request.columnNames.length === 0) {
      counts.incidents = await deleteIncidents(sql, {
        connection: request.connection,
        schemaPattern: likePattern(schema),
        tablePattern: likePattern(table),
        ...(request.table ? { exactTable: request.table } : {}),
        ...(request.dateStart ? { firstSeenFrom: request.dateStart } : {}),
        ...(request.dateEnd ? { firstSeenTo: request.dateEnd } : {}),
      });
    }
  }
  // the status of the tables whose results went (tableStatus.ts)
  await refreshTableStatus(sql, touched.map((t) => ({ connection: t.connection_name, schema: t.schema_name, table: t.table_name })));
  return counts;
}

type Touched = { connection_name: string; schema_name: string; table_name: string };
const TOUCHED = 'connection_name, schema_name, table_name';
