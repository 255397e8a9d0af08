import { JOB_TYPES } from '../jobs/executors/index.js';
import type { JobService } from '../jobs/jobService.js';
import type { JsonObject, TableIdentity } from '../model/index.js';
import type { JobRecord } from '../store/jobRows.js';

/**
 * The stored data of a deleted connection, table or column (check results, execution errors, error samples,
 * statistics, incidents) is removed by a delete-stored-data job, as in DQOps; the configuration delete is
 * committed first, so a job that fails leaves only data behind, never config.
 */
export interface DeletedTarget {
  connection: string;
  /** The table's exact names (absent: the whole connection). */
  table?: Pick<TableIdentity, 'schema' | 'table'>;
  column?: string;
}

/** The flags of a delete-stored-data job that removes everything stored (and no configuration). */
export const ALL_STORED_DATA = {
  deleteErrors: true,
  deleteStatistics: true,
  deleteCheckResults: true,
  deleteSensorReadouts: true,
  deleteErrorSamples: true,
  deleteIncidents: true,
} as const;

/** Queues the job that removes what was stored about `target`; undefined when this version has no such job. */
export async function submitStoredDataCleanup(jobs: JobService, target: DeletedTarget, createdBy: string): Promise<JobRecord | undefined> {
  if (!jobs.supports(JOB_TYPES.deleteStoredData)) return undefined;
  const parameters: JsonObject = {
    connection: target.connection,
    ...(target.table ? { schemaName: target.table.schema, tableName: target.table.table } : {}),
    ...(target.column !== undefined ? { columnNames: [target.column] } : {}),
    ...ALL_STORED_DATA,
  };
  return jobs.submit(JOB_TYPES.deleteStoredData, parameters, { businessKey: null, createdBy });
}
