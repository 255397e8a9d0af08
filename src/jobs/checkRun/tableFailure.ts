import { failureReason, type DataSourceFailure } from '../../datasource/index.js';
import type { DqError } from '../../model/index.js';

/**
 * Which data source errors fail a TABLE in a check run, not just one check: the data source cannot be reached
 * or refuses the credentials, a query ran out of time or lost its connection, the table (or its schema) is gone
 * or may not be read. A column that does not exist or a sensor's SQL that fails stays an execution error of
 * that one check. The job that meets such a failure stores every check's outcome, then ends failed with the
 * tables and reasons.
 */
const TABLE_FAILURES: ReadonlySet<DataSourceFailure> = new Set([
  'refused',
  'unreachable',
  'host_not_found',
  'connect_timeout',
  'database_missing',
  'too_many_connections',
  'tls',
  'auth_failed',
  'statement_timeout',
  'dropped',
  'table_missing',
  'schema_missing',
  'permission_denied',
]);

/** The error as a table failure, when it is one. */
export function asTableFailure(error: unknown): DqError | undefined {
  const reason = failureReason(error);
  return reason !== undefined && TABLE_FAILURES.has(reason) ? (error as DqError) : undefined;
}
