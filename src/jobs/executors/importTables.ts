import { autoImportTables, importTables } from '../importTables.js';
import { DqError, type JsonObject } from '../../model/index.js';
import type { JobExecutor } from '../jobService.js';
import type { ExecutorDependencies } from './executorDependencies.js';

/**
 * The import-tables job: the tables of a connection's data source into the live store (src/app/importTables.ts).
 * Parameters `{connection, schema?, table_contains?, table_names?}`, or `{connection, auto: true}` for the connection's
 * `auto_import_tables` (only tables not in the store yet), which is what the auto-import schedule submits.
 * Result: the counts and names of the tables created, updated, unchanged and skipped.
 */
export const IMPORT_TABLES = 'import_tables';

export function importTablesExecutor(deps: ExecutorDependencies): JobExecutor {
  return async (job, signal) => {
    const p = job.parameters;
    if (typeof p.connection !== 'string' || p.connection === '') throw new DqError('INVALID_ARGUMENT', 'import_tables needs the connection');
    const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
    const names = (value: unknown) => (Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : undefined);
    const caller = job.createdBy ? `job:${job.id}:${job.createdBy}` : `job:${job.id}`;
    const result =
      p.auto === true
        ? await autoImportTables(deps, p.connection, { caller, signal })
        : await importTables(deps, { connection: p.connection, schema: text(p.schema), tableContains: text(p.table_contains), tableNames: names(p.table_names), caller, signal });
    if (!result) return { connection: p.connection, created: 0, updated: 0, unchanged: 0, skipped: 0, tables_created: [], message: 'the connection has no auto_import_tables' };
    return {
      connection: result.connection,
      created: result.created.length,
      updated: result.updated.length,
      unchanged: result.unchanged.length,
      skipped: result.skipped.length,
      tables_created: result.created,
    } as JsonObject;
  };
}
