import { DqError, type JsonObject, type JsonValue } from '../../model/index.js';
import type { DeleteStoredDataRequest, Store } from '../../store/store.js';
import type { JobExecutor } from '../jobService.js';

/**
 * The delete-stored-data job (DeleteStoredDataQueueJobParameters, camelCase): removes check results, execution
 * errors, error samples and statistics of a connection, narrowed by every filter the job gives
 * (src/store/deleteStoredData.ts): tables, columns, data group, days, the check filters and the collector
 * filters. A filter is never ignored, since an ignored filter would delete more than asked. Sensor readouts are
 * stored with the results (deleteSensorReadouts deletes the results), incidents are not stored by this version
 * (0 rows), and check configuration lives in the repository: deleteChecksConfiguration is refused.
 * `schemaName` + `tableName` (not DQOps's; the jobs a DELETE of a table or column submits) name one table
 * exactly, where fullTableName would read `*` in a name as a wildcard.
 */
export const DELETE_STORED_DATA = 'delete_stored_data';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function text(p: JsonObject, key: string): string | undefined {
  const value: JsonValue | undefined = p[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new DqError('INVALID_ARGUMENT', `${key} must be a string`);
  return value;
}

function date(p: JsonObject, key: string): string | undefined {
  const value = text(p, key);
  if (value === undefined) return undefined;
  const day = value.slice(0, 10);
  if (!ISO_DATE.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) {
    throw new DqError('INVALID_ARGUMENT', `${key} must be a date (YYYY-MM-DD), not ${JSON.stringify(value)}`);
  }
  return day;
}

/** The job's parameters as a store request; INVALID_ARGUMENT for a parameter it cannot honour (checked before the job is queued). */
export function deleteStoredDataRequest(p: JsonObject): DeleteStoredDataRequest {
  const connection = text(p, 'connection');
  if (!connection) throw new DqError('INVALID_ARGUMENT', 'connection is required');
  if (p.deleteChecksConfiguration === true) {
    throw new DqError(
      'INVALID_ARGUMENT',
      'deleteChecksConfiguration is not done by this job: the checks are configuration, kept in the repository (remove them there and apply) or changed through the API',
    );
  }
  const target = text(p, 'collectorTarget');
  if (target !== undefined && target !== 'table' && target !== 'column') throw new DqError('INVALID_ARGUMENT', 'collectorTarget must be table or column');
  const schemaName = text(p, 'schemaName');
  const tableName = text(p, 'tableName');
  if ((schemaName === undefined) !== (tableName === undefined)) throw new DqError('INVALID_ARGUMENT', 'schemaName and tableName go together');
  const dateStart = date(p, 'dateStart');
  const dateEnd = date(p, 'dateEnd');
  if (dateStart && dateEnd && dateStart > dateEnd) throw new DqError('INVALID_ARGUMENT', `dateStart ${dateStart} is after dateEnd ${dateEnd}`);
  return {
    connection,
    fullTableName: text(p, 'fullTableName'),
    ...(schemaName !== undefined && tableName !== undefined ? { table: { schema: schemaName, table: tableName } } : {}),
    columnNames: Array.isArray(p.columnNames) ? p.columnNames.filter((c): c is string => typeof c === 'string') : undefined,
    dateStart,
    dateEnd,
    dataGroup: text(p, 'dataGroupTag'),
    check: {
      checkType: text(p, 'checkType'),
      timeGradient: text(p, 'timeGradient'),
      checkCategory: text(p, 'checkCategory'),
      checkName: text(p, 'checkName'),
      sensorName: text(p, 'sensorName'),
      qualityDimension: text(p, 'qualityDimension'),
      tableComparisonName: text(p, 'tableComparisonName'),
    },
    collector: { collectorCategory: text(p, 'collectorCategory'), collectorName: text(p, 'collectorName'), collectorTarget: target as 'table' | 'column' | undefined },
    checkResults: p.deleteCheckResults === true || p.deleteSensorReadouts === true,
    errors: p.deleteErrors === true,
    errorSamples: p.deleteErrorSamples === true,
    statistics: p.deleteStatistics === true,
    incidents: p.deleteIncidents === true,
  };
}

export function deleteStoredDataExecutor(store: Store): JobExecutor {
  return async (job, signal) => {
    const request = deleteStoredDataRequest(job.parameters);
    signal.throwIfAborted();
    const counts = await store.deleteStoredData(request);
    const partitionResults: JsonObject = {};
    for (const [table, rows] of Object.entries(counts)) partitionResults[table] = { rowsAffectedCount: rows, partitionDeleted: false };
    return { partitionResults } satisfies JsonObject;
  };
}
