import { request, type JobStartResult } from './api';

/** The operator actions the console offers: jobs started without waiting (the Jobs view follows them). */
export function runChecks(connection: string, schema: string, table: string) {
  return request<JobStartResult>('POST', '/api/jobs/runchecks?wait=false', {
    body: { check_search_filters: { connection, fullTableName: `${schema}.${table}` } },
  });
}

export function collectStatistics(connection: string, schema: string, table: string) {
  return request<JobStartResult>('POST', '/api/jobs/collectstatistics/table?wait=false', {
    body: { connection, fullTableName: `${schema}.${table}` },
  });
}
