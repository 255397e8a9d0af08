import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jobEntryParameters } from '../../app/jobHistory.js';
import { JOB_LIST_DEFAULT_LIMIT, JOB_LIST_MAX_LIMIT, listJobPage } from '../../app/jobList.js';
import { isJobOfKind, startJob, type JobKind } from '../../app/jobStarts.js';
import type { JobRecord } from '../../app/services.js';
import { DqError, type JsonObject } from '../../model/index.js';
import { ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';

/**
 * Jobs: a job's parameters answer nested under its kind as DQOps's DqoJobEntryParametersModel nests them
 * (`{runChecksParameters: {check_search_filters, …, run_checks_result}}`: src/jobs/jobEntryParameters.ts).
 * Start (201 with `{jobId: {jobId, jobBusinessKey, createdAt}, result?, status}`), look up by id or
 * business key, wait, cancel. `wait` defaults to true and `waitTimeout` (seconds) to 120: the answer holds the
 * result when the job ends in time, only the id and status otherwise. Job types whose executor this version
 * does not have answer 501 naming what is missing.
 */
const START_QUERY = {
  type: 'object',
  properties: {
    job_business_key: { type: 'string', maxLength: 256 },
    jobBusinessKey: { type: 'string', maxLength: 256 },
    wait: { type: 'boolean' },
    wait_timeout: { type: 'integer', minimum: 0, maximum: 3600 },
    waitTimeout: { type: 'integer', minimum: 0, maximum: 3600 },
    samples_limit: { type: 'integer', minimum: 1 },
    samplesLimit: { type: 'integer', minimum: 1 },
    configure_table: { type: 'boolean' },
    configureTable: { type: 'boolean' },
  },
} as const;

type StartQuery = Partial<Record<keyof (typeof START_QUERY)['properties'], string | number | boolean>>;

/** How many jobs the job list shows (DQOps keeps a bounded list of recent jobs too). */
const RECENT_JOBS = 200;

function pick<T>(query: Record<string, unknown>, snake: string, camel: string): T | undefined {
  const a = query[snake];
  const b = query[camel];
  if (a !== undefined && b !== undefined && a !== b) throw new DqError('INVALID_ARGUMENT', `${snake} and ${camel} disagree`);
  return (a ?? b) as T | undefined;
}

export function jobIdModel(job: JobRecord): JsonObject {
  const id: JsonObject = { jobId: job.id, createdAt: job.createdAt };
  if (job.businessKey) id.jobBusinessKey = job.businessKey;
  // DQOps's DqoQueueJobId names the job a child job is part of (a table's job of a check run)
  if (job.parentId !== null) id.parentJobId = job.parentId;
  return id;
}

function startAnswer(job: JobRecord): JsonObject {
  const answer: JsonObject = { jobId: jobIdModel(job), status: job.status };
  if (job.status === 'finished' && job.result) answer.result = job.result;
  if (job.errorMessage) answer.errorMessage = job.errorMessage;
  return answer;
}

function historyEntry(job: JobRecord): JsonObject {
  const entry: JsonObject = {
    jobId: jobIdModel(job),
    jobType: job.jobType,
    parameters: jobEntryParameters(job),
    status: job.status,
    statusChangedAt: job.statusChangedAt,
  };
  if (job.errorMessage) entry.errorMessage = job.errorMessage;
  if (job.result) entry.result = job.result;
  return entry;
}

/** A job in the list: its history entry with who queued it, when it started and ended, and a run's jobs by status. */
function listEntry(job: JobRecord, children: Partial<Record<string, number>> | undefined): JsonObject {
  const entry = historyEntry(job);
  if (job.createdBy) entry.createdBy = job.createdBy;
  if (job.startedAt) entry.startedAt = job.startedAt;
  if (job.finishedAt) entry.finishedAt = job.finishedAt;
  if (job.pendingChildren !== null) {
    const counts: JsonObject = { total: Object.values(children ?? {}).reduce<number>((a, b) => a + (b ?? 0), 0) };
    for (const [status, count] of Object.entries(children ?? {})) counts[status] = count ?? 0;
    entry.childJobs = counts;
  }
  return entry;
}

export async function jobsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  {
    const jobs = context.jobs;
    const tags = ['jobs'];
    /** `prepare` turns the client's spelling of the parameters into the executor's. */
    const start = (kind: JobKind, what: string, fixed: JsonObject = {}, prepare?: (parameters: JsonObject) => void) => async (request: FastifyRequest, reply: FastifyReply) => {
      const query = request.query as StartQuery;
      const wait = pick<boolean>(query, 'wait', 'wait') ?? true;
      const timeoutSeconds = pick<number>(query, 'wait_timeout', 'waitTimeout') ?? 120;
      const parameters: JsonObject = { ...((request.body as JsonObject | undefined) ?? {}) };
      for (const [snake, camel] of [['samples_limit', 'samplesLimit'], ['configure_table', 'configureTable']] as const) {
        const value = pick<number | boolean>(query, snake, camel);
        if (value !== undefined) parameters[camel] = value;
      }
      Object.assign(parameters, fixed);
      const outcome = await startJob(jobs, context.store, {
        kind,
        what,
        parameters,
        prepare,
        businessKey: pick<string>(query, 'job_business_key', 'jobBusinessKey') ?? null,
        createdBy: request.caller.name,
        waitMs: wait ? timeoutSeconds * 1000 : null,
      });
      return reply.status(201).send(startAnswer(outcome));
    };
    const startSchema = (summary: string, operationId: string, body?: string) => ({
      tags,
      summary,
      operationId,
      querystring: START_QUERY,
      ...(body ? { body: ref(body) } : {}),
      response: { 201: ref('JobStartResult') },
    });

    api.post('/jobs/runchecks', { schema: startSchema('run_checks: run the checks a filter selects', 'run_checks', 'RunChecksParameters'), config: { role: 'operator' } }, start('runChecks', 'running checks'));
    api.post('/jobs/collectstatistics/table', { schema: startSchema('collect_statistics_on_table', 'collect_statistics_on_table', 'StatisticsCollectorSearchFilters'), config: { role: 'operator' } }, start('collectStatistics', 'collecting statistics', { dataScope: 'table' }));
    api.post('/jobs/collectstatistics/withgrouping', { schema: startSchema('collect_statistics_on_data_groups', 'collect_statistics_on_data_groups', 'StatisticsCollectorSearchFilters'), config: { role: 'operator' } }, start('collectStatistics', 'collecting statistics', { dataScope: 'data_group' }));
    api.post('/jobs/collecterrorsamples', { schema: startSchema('collect_error_samples', 'collect_error_samples', 'CollectErrorSamplesParameters'), config: { role: 'operator' } }, start('collectErrorSamples', 'collecting error samples'));
    api.post('/jobs/deletestoreddata', { schema: startSchema('delete_stored_data', 'delete_stored_data', 'DeleteStoredDataQueueJobParameters'), config: { role: 'operator' } }, start('deleteStoredData', 'deleting stored data'));

    // DQOps's import job names its parameters differently; the executor takes {connection, schema, table_contains, table_names}
    const importParameters = (parameters: JsonObject) => {
      const { connectionName, schemaName, tableNameContains, tableNames } = parameters;
      for (const key of Object.keys(parameters)) delete parameters[key];
      if (typeof connectionName !== 'string' || connectionName === '') throw new DqError('INVALID_ARGUMENT', 'connectionName is required');
      Object.assign(parameters, { connection: connectionName });
      if (typeof schemaName === 'string') parameters.schema = schemaName;
      if (typeof tableNameContains === 'string') parameters.table_contains = tableNameContains;
      if (Array.isArray(tableNames) && tableNames.length > 0) parameters.table_names = tableNames;
    };
    api.post(
      '/jobs/importtables',
      {
        schema: {
          ...startSchema('import_tables: imports tables of a schema of the connection (all, those whose name contains a text, or the named ones)', 'import_tables'),
          body: {
            type: 'object',
            properties: {
              connectionName: { type: 'string' },
              schemaName: { type: 'string' },
              tableNameContains: { type: 'string' },
              tableNames: { type: 'array', items: { type: 'string' } },
              tablesImportLimit: { type: 'integer', description: 'accepted and ignored' },
            },
            required: ['connectionName'],
          },
        },
        config: { role: 'editor' },
      },
      start('importTables', 'importing tables', {}, importParameters),
    );

    const jobListEntry = { type: 'object', additionalProperties: true };
    const jobStatusEnum = { type: 'string', enum: ['queued', 'running', 'waiting', 'finished', 'failed', 'cancel_requested', 'cancelled'] };
    api.get(
      '/jobs/jobs',
      {
        schema: {
          tags,
          summary:
            'get_all_jobs: one page of jobs, the newest first (queued, running and finished): `limit` rows (default 100, at most 1,000) of `page` (the first is 1); `status` keeps some statuses only; `top_level` lists the runs without the jobs of their tables (each run with `childJobs` counted by status), `parent_job_id` the jobs of one run; `hasMore` says a next page holds more',
          operationId: 'get_all_jobs',
          querystring: {
            type: 'object',
            properties: {
              limit: { type: 'integer', minimum: 1, maximum: JOB_LIST_MAX_LIMIT, default: JOB_LIST_DEFAULT_LIMIT },
              page: { type: 'integer', minimum: 1, default: 1 },
              status: { type: 'array', items: jobStatusEnum },
              top_level: { type: 'boolean' },
              topLevel: { type: 'boolean' },
              parent_job_id: { type: 'integer', minimum: 1 },
              parentJobId: { type: 'integer', minimum: 1 },
            },
          },
          response: {
            200: {
              type: 'object',
              properties: {
                jobs: { type: 'array', items: ref('JobHistoryEntryModel') },
                lastSequenceNumber: { type: 'integer' },
                page: { type: 'integer' },
                limit: { type: 'integer' },
                hasMore: { type: 'boolean' },
              },
            },
          },
        },
      },
      async (request) => {
        const query = request.query as Record<string, unknown> & { limit?: number; page?: number; status?: string[] };
        const list = await listJobPage(context.store, {
          limit: query.limit,
          page: query.page,
          statuses: query.status,
          topLevel: pick<boolean>(query, 'top_level', 'topLevel'),
          parentJobId: pick<number>(query, 'parent_job_id', 'parentJobId'),
        });
        return {
          jobs: list.jobs.map((job) => listEntry(job, list.children.get(job.id))),
          lastSequenceNumber: list.jobs.reduce((n, j) => Math.max(n, j.id), 0),
          page: list.page,
          limit: list.limit,
          hasMore: list.hasMore,
        };
      },
    );
    api.get(
      '/jobs/jobchangessince/:sequenceNumber',
      {
        schema: {
          tags,
          summary: 'get_job_changes_since: the jobs created after a job id (dqctl numbers changes by job id), with their current state',
          operationId: 'get_job_changes_since',
          params: { type: 'object', properties: { sequenceNumber: { type: 'integer', minimum: 0 } }, required: ['sequenceNumber'] },
          response: { 200: { type: 'object', properties: { jobChanges: { type: 'array', items: jobListEntry }, lastSequenceNumber: { type: 'integer' } } } },
        },
      },
      async (request) => {
        const after = (request.params as { sequenceNumber: number }).sequenceNumber;
        const recent = (await context.store.jobs.list({ limit: RECENT_JOBS, afterId: after })).reverse();
        return {
          jobChanges: recent.map((job) => ({ jobId: jobIdModel(job), status: job.status, changeSequence: job.id, statusChangedAt: job.statusChangedAt, updatedModel: historyEntry(job) })),
          lastSequenceNumber: recent.at(-1)?.id ?? after,
        };
      },
    );

    const jobIdParams = { type: 'object', properties: { jobId: { type: 'string', minLength: 1, maxLength: 256 } }, required: ['jobId'] };
    api.get('/jobs/jobs/:jobId', { schema: { tags, summary: 'get_job: by id or business key', operationId: 'get_job', params: jobIdParams, response: { 200: ref('JobHistoryEntryModel') } } }, async (request) =>
      historyEntry(await jobs.get((request.params as { jobId: string }).jobId)),
    );
    const waitQuery = { type: 'object', properties: { waitTimeout: { type: 'integer', minimum: 0, maximum: 3600 }, wait_timeout: { type: 'integer', minimum: 0, maximum: 3600 } } };
    api.get('/jobs/jobs/:jobId/wait', { schema: { tags, summary: 'wait_for_job', operationId: 'wait_for_job', params: jobIdParams, querystring: waitQuery, response: { 200: ref('JobHistoryEntryModel') } } }, async (request) => {
      const seconds = pick<number>(request.query as Record<string, unknown>, 'wait_timeout', 'waitTimeout') ?? 120;
      return historyEntry(await jobs.wait((request.params as { jobId: string }).jobId, seconds * 1000));
    });
    api.get('/jobs/runchecks/:jobId/wait', { schema: { tags, summary: 'wait_for_run_checks_job', operationId: 'wait_for_run_checks_job', params: jobIdParams, querystring: waitQuery, response: { 200: ref('JobStartResult') } } }, async (request) => {
      const seconds = pick<number>(request.query as Record<string, unknown>, 'wait_timeout', 'waitTimeout') ?? 120;
      const job = await jobs.wait((request.params as { jobId: string }).jobId, seconds * 1000);
      if (!isJobOfKind(job, 'runChecks')) throw new DqError('NOT_FOUND', `job ${job.id} is not a run-checks job`);
      return startAnswer(job);
    });
    api.get('/jobs/collecterrorsamples/:jobId/wait', { schema: { tags, summary: 'wait_for_collect_error_samples_job', operationId: 'wait_for_collect_error_samples_job', params: jobIdParams, querystring: waitQuery, response: { 200: ref('JobStartResult') } } }, async (request) => {
      const seconds = pick<number>(request.query as Record<string, unknown>, 'wait_timeout', 'waitTimeout') ?? 120;
      const job = await jobs.wait((request.params as { jobId: string }).jobId, seconds * 1000);
      if (!isJobOfKind(job, 'collectErrorSamples')) throw new DqError('NOT_FOUND', `job ${job.id} is not an error samples job`);
      return startAnswer(job);
    });
    api.delete('/jobs/jobs/:jobId', { schema: { tags, summary: 'cancel_job', operationId: 'cancel_job', params: jobIdParams }, config: { role: 'operator' } }, async (request, reply) => {
      await jobs.cancel((request.params as { jobId: string }).jobId);
      return reply.status(204).send();
    });
  }
}
