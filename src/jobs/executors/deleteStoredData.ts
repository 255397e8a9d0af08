import { DqError, type JsonObject } from '../../model/index.js';
import type { Store } from '../../store/store.js';
import type { JobExecutor } from '../jobService.js';

/**
 * The delete-stored-data job (DeleteStoredDataQueueJobParameters, camelCase): removes check results, execution
 * errors, error samples and statistics of a connection, narrowed by `fullTableName` and `columnNames` (a column
 * filter leaves table-level statistics such as the row count alone). Sensor readouts kept apart and incidents
 * are not stored by this version, so those flags delete nothing (0 rows).
 */
export const DELETE_STORED_DATA = 'delete_stored_data';

export function deleteStoredDataExecutor(store: Store): JobExecutor {
  return async (job, signal) => {
    const p = job.parameters;
    if (typeof p.connection !== 'string' || p.connection === '') throw new DqError('INVALID_ARGUMENT', 'connection is required');
    signal.throwIfAborted();
    const counts = await store.deleteStoredData({
      connection: p.connection,
      fullTableName: typeof p.fullTableName === 'string' && p.fullTableName !== '' ? p.fullTableName : undefined,
      columnNames: Array.isArray(p.columnNames) ? p.columnNames.filter((c): c is string => typeof c === 'string') : undefined,
      checkResults: p.deleteCheckResults === true || p.deleteSensorReadouts === true,
      errors: p.deleteErrors === true,
      errorSamples: p.deleteErrorSamples === true,
      statistics: p.deleteStatistics === true,
    });
    const partitionResults: JsonObject = {};
    for (const [table, rows] of Object.entries(counts)) partitionResults[table] = { rowsAffectedCount: rows, partitionDeleted: false };
    return { partitionResults } satisfies JsonObject;
  };
}

