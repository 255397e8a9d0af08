import { DqError, type ErrorCode } from '../model/index.js';
import { redactSecrets } from './secretReferences.js';

/**
 * Whatever goes wrong on a data source becomes ONE coded DqError naming the connection and the reason, with
 * every resolved secret redacted from the driver's message: callers (jobs, the CLI, the API) store and show it
 * and carry on; nothing a data source does crashes the process.
 *
 * `details.reason` is one of the DataSourceFailure values below, `details.sqlstate` the server's code if any.
 */
export type DataSourceFailure =
  | 'refused'
  | 'unreachable'
  | 'host_not_found'
  | 'connect_timeout'
  | 'database_missing'
  | 'too_many_connections'
  | 'tls'
  | 'auth_failed'
  | 'statement_timeout'
  | 'dropped'
  | 'table_missing'
  | 'column_missing'
  | 'schema_missing'
  | 'permission_denied'
  | 'read_only'
  | 'cancelled'
  | 'query_failed';

const PHRASES: Record<DataSourceFailure, [ErrorCode, string]> = {
  refused: ['DATASOURCE_UNREACHABLE', 'the data source refused the connection'],
  unreachable: ['DATASOURCE_UNREACHABLE', 'the data source cannot be reached'],
  host_not_found: ['DATASOURCE_UNREACHABLE', 'the host of the data source is unknown'],
  connect_timeout: ['DATASOURCE_UNREACHABLE', 'connecting to the data source timed out'],
  database_missing: ['DATASOURCE_UNREACHABLE', 'the database does not exist on the data source'],
  too_many_connections: ['DATASOURCE_UNREACHABLE', 'the data source has no free connection slot'],
  tls: ['DATASOURCE_UNREACHABLE', 'the TLS handshake with the data source failed'],
  auth_failed: ['DATASOURCE_AUTH_FAILED', 'authentication to the data source failed'],
  statement_timeout: ['DATASOURCE_TIMEOUT', 'the query ran longer than the statement timeout and was stopped'],
  dropped: ['DATASOURCE_CONNECTION_LOST', 'the connection to the data source dropped during the query'],
  table_missing: ['DATASOURCE_QUERY_FAILED', 'the table does not exist on the data source'],
  column_missing: ['DATASOURCE_QUERY_FAILED', 'a column does not exist on the data source'],
  schema_missing: ['DATASOURCE_QUERY_FAILED', 'the schema does not exist on the data source'],
  permission_denied: ['DATASOURCE_QUERY_FAILED', 'the data source denied permission'],
  read_only: ['DATASOURCE_QUERY_FAILED', 'the statement tried to write in a read-only transaction'],
  cancelled: ['QUERY_CANCELLED', 'the query was cancelled'],
  query_failed: ['DATASOURCE_QUERY_FAILED', 'the query failed on the data source'],
};

/** A DqError for `reason` on `connection`; `detail` is appended in parentheses (redacted by the caller). */
export function dataSourceFailure(connection: string, reason: DataSourceFailure, detail?: string, extra: Record<string, unknown> = {}): DqError {
  const [code, phrase] = PHRASES[reason];
  const message = `connection ${JSON.stringify(connection)}: ${phrase}${detail ? ` (${detail})` : ''}`;
  return new DqError(code, message, { connection, reason, ...extra });
}

/** The reason of a DqError made by dataSourceFailure, if it is one. */
export function failureReason(error: unknown): DataSourceFailure | undefined {
  if (!(error instanceof DqError)) return undefined;
  const reason = error.details?.reason;
  return typeof reason === 'string' && reason in PHRASES ? (reason as DataSourceFailure) : undefined;
}

interface DriverError {
  code?: unknown;
  message?: unknown;
  errno?: unknown;
}

/**
 * Translates a driver or network error. `phase` tells a failure to connect (host, port, credentials) from a
 * failure of a query on an open connection (lost connection, timeout, SQL error).
 */
export function classifyDataSourceError(error: unknown, connection: string, phase: 'connect' | 'query', secrets: readonly string[]): DqError {
  if (error instanceof DqError) return error;
  const driver = (typeof error === 'object' && error !== null ? error : {}) as DriverError;
  const code = typeof driver.code === 'string' ? driver.code : undefined;
  const raw = typeof driver.message === 'string' && driver.message !== '' ? driver.message : String(error);
  const detail = redactSecrets(raw, secrets);
  const sqlstate = code && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
  const fail = (reason: DataSourceFailure) => dataSourceFailure(connection, reason, detail, sqlstate ? { sqlstate } : {});

  switch (code) {
    case 'ECONNREFUSED':
      return fail('refused');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fail('host_not_found');
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return fail(phase === 'connect' ? 'connect_timeout' : 'dropped');
    case 'ECONNRESET':
    case 'EPIPE':
      return fail(phase === 'connect' ? 'refused' : 'dropped');
    case '28P01':
    case '28000':
      return fail('auth_failed');
    case '3D000':
      return fail('database_missing');
    case '53300':
    case '57P03':
      return fail('too_many_connections');
    case '57014':
      return fail(/statement timeout/i.test(raw) ? 'statement_timeout' : 'cancelled');
    case '57P01':
    case '57P02':
    case '08000':
    case '08003':
    case '08006':
      return fail('dropped');
    case '42P01':
      return fail('table_missing');
    case '42703':
      return fail('column_missing');
    case '3F000':
      return fail('schema_missing');
    case '42501':
      return fail('permission_denied');
    case '25006':
      return fail('read_only');
    default:
      break;
  }
  if (/timeout/i.test(raw) && phase === 'connect') return fail('connect_timeout');
  if (/SSL|TLS|certificate/i.test(raw) && phase === 'connect') return fail('tls');
  if (/Connection terminated|connection ended|terminating connection|Client has encountered a connection error/i.test(raw)) {
    return fail(phase === 'connect' ? 'unreachable' : 'dropped');
  }
  return fail(phase === 'connect' ? 'unreachable' : 'query_failed');
}
