import { isJsonObject, type JsonObject, type JsonValue } from '../model/index.js';
import { COLLECT_ERROR_SAMPLES } from './executors/collectErrorSamples.js';
import { COLLECT_STATISTICS } from './executors/collectStatistics.js';
import { DELETE_STORED_DATA } from './executors/deleteStoredData.js';
import { IMPORT_TABLES } from './executors/importTables.js';
import { RUN_CHECKS, RUN_CHECKS_ON_TABLE } from './executors/runChecks.js';

/**
 * A job's parameters as DQOps's job history answers them (DqoJobEntryParametersModel): nested under the key of
 * the job's kind (`runChecksParameters`, `collectStatisticsParameters`, `collectErrorSamplesParameters`,
 * `deleteStoredDataParameters`, `importTableParameters`; a table's job of a run: `runChecksOnTableParameters`), in that kind's model, with the job's result inside
 * them where DQOps puts it (`run_checks_result`, `collect_statistics_result`, `error_sampler_result`). DQOps's
 * clients read a job's parameters only there; a flat object shows them none.
 *
 * The executors keep their own spelling in the store (a statistics job's filters flat beside `samplesLimit`,
 * an import's `connection`/`schema`); this is the one place that turns it into DQOps's. Keys dqctl adds to a
 * kind's parameters (a scheduled run's `scheduled` and `schedule_override`, a delete's exact `schemaName` and
 * `tableName`) stay beside DQOps's keys: DQOps's clients keep unknown keys aside. A job type this version has no
 * model for (a newer dqctl's, on a shared store) answers `{}`.
 */
export function jobEntryParameters(job: { jobType: string; parameters: JsonObject; result: JsonObject | null }): JsonObject {
  const p = job.parameters;
  switch (job.jobType) {
    case RUN_CHECKS:
      return { runChecksParameters: withDefined({ ...p, run_checks_result: countsOf(job.result, 'executed_checks') }) };
    case RUN_CHECKS_ON_TABLE: {
      // a child job of a run, as DQOps's RunChecksOnTableParameters: the connection and the table (`table`:
      // PhysicalTableName) beside the run's filters; a child of several tables of one connection lists them in
      // `tables` (dqctl's: DQOps runs one table per job), each as a PhysicalTableName
      const { table, tables, run_time, ...rest } = p;
      const listed = (Array.isArray(tables) ? tables : [table]).filter(isJsonObject);
      const physical = listed.map((t) => ({ schema_name: t.schema ?? null, table_name: t.table ?? null }));
      return {
        runChecksOnTableParameters: withDefined({
          connection: listed[0]?.connection,
          ...(Array.isArray(tables) ? { tables: physical } : { table: physical[0] }),
          ...rest,
          run_time,
          run_checks_result: countsOf(job.result, 'executed_checks'),
        }),
      };
    }
    case COLLECT_ERROR_SAMPLES:
      return { collectErrorSamplesParameters: withDefined({ ...p, error_sampler_result: countsOf(job.result, 'executed_error_samplers') }) };
    case COLLECT_STATISTICS: {
      const { samplesLimit, configureTable, dataScope, ...filters } = p;
      return {
        collectStatisticsParameters: withDefined({
          statistics_collector_search_filters: filters,
          data_scope: dataScope,
          configure_table: configureTable,
          samples_limit: samplesLimit,
          collect_statistics_result: countsOf(job.result, 'executed_statistics_collectors'),
        }),
      };
    }
    case DELETE_STORED_DATA: {
      // the exact table of a DELETE of a table or column, named as DQOps names a table
      const exact = typeof p.schemaName === 'string' && typeof p.tableName === 'string' && p.fullTableName === undefined;
      return { deleteStoredDataParameters: exact ? { ...p, fullTableName: `${p.schemaName}.${p.tableName}` } : { ...p } };
    }
    case IMPORT_TABLES: {
      const { connection, schema, table_contains, table_names, ...rest } = p;
      return {
        importTableParameters: withDefined({ connectionName: connection, schemaName: schema, tableNameContains: table_contains, tableNames: table_names, ...rest }),
      };
    }
    default:
      return {};
  }
}

/** The counts of a job's result: the result itself, or (a failed run's details) the counts inside it. */
function countsOf(result: JsonObject | null, countKey: string): JsonObject | undefined {
  if (!result) return undefined;
  if (typeof result[countKey] === 'number') return result;
  return isJsonObject(result.result) && typeof result.result[countKey] === 'number' ? result.result : undefined;
}

function withDefined(object: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(object)) if (value !== undefined) out[key] = value;
  return out;
}
