import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isSecretKey, redactValue, SENSITIVE } from '../../diff/secrets.js';
import { DqError, isJsonObject, tableKeyPrefix, type JsonObject, type JsonValue, type LiveObject } from '../../model/index.js';
import { validateDocument, type SchemaViolation } from '../../schema/index.js';
import { refuseInvalidAddresses } from '../../app/incidentSettings.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { capabilitiesOf, type Capabilities, type ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { ALL_STORED_DATA } from '../../app/storedDataCleanup.js';
import { answerWithStoredDataCleanup } from '../storedDataCleanup.js';

/**
 * Connections (objects of kind source, named after their folder under sources/). Responses never carry a
 * secret: literal secret values read `(sensitive)`, `${…}` references are shown as written; a `(sensitive)`
 * sent back in an update keeps the stored value, so a client may PUT what it GOT. Every write is validated with
 * the JSON Schema of connection files, so the API cannot store what `dqctl validate` would refuse. Deleting a
 * connection deletes its tables in the same transaction.
 */
export const SCHEDULING_GROUPS = ['profiling', 'monitoring_daily', 'monitoring_monthly', 'partitioned_daily', 'partitioned_monthly'] as const;
export type SchedulingGroup = (typeof SCHEDULING_GROUPS)[number];

/** The provider blocks a connection spec may hold, one per DQOps provider (we run checks on PostgreSQL only). */
const PROVIDERS = [
  'bigquery', 'clickhouse', 'databricks', 'db2', 'duckdb', 'hana', 'mariadb', 'mysql', 'oracle', 'postgresql',
  'presto', 'questdb', 'redshift', 'snowflake', 'spark', 'sqlserver', 'teradata', 'trino',
] as const;

/** The connection name of a route's `:connectionName`, refused (400) when hostile. */
export function connectionNameOf(request: FastifyRequest): string {
  return checkName('connection name', (request.params as { connectionName: string }).connectionName);
}

export function writerOf(request: FastifyRequest): { caller: string } {
  return { caller: `api:${request.caller.name}` };
}

/** The connection, or 404 naming it. */
export async function requireConnection(context: ServerContext, name: string): Promise<LiveObject> {
  const live = await context.objects.get('source', name);
  if (!live) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(name)} not found`);
  return live;
}

/** The caller's capabilities on a live object (no edit on git-managed objects of a --read-only-managed server). */
export function capabilitiesOn(context: ServerContext, request: FastifyRequest, live?: LiveObject): Capabilities {
  return capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });
}

/** The job templates of a connection (or of a part of it, `fullTableName` = `schema.*`), as DQOps hands them out. */
export function jobTemplates(connection: string, fullTableName?: string): JsonObject {
  const scope: JsonObject = fullTableName === undefined ? { connection } : { connection, fullTableName };
  return {
    run_checks_job_template: { ...scope, enabled: true },
    run_profiling_checks_job_template: { ...scope, enabled: true, checkType: 'profiling' },
    run_monitoring_checks_job_template: { ...scope, enabled: true, checkType: 'monitoring' },
    run_partition_checks_job_template: { ...scope, enabled: true, checkType: 'partitioned' },
    collect_statistics_job_template: { ...scope, enabled: true },
    data_clean_job_template: { ...scope, ...ALL_STORED_DATA, deleteChecksConfiguration: false },
  };
}

/** A spec as a response may show it: secrets redacted at any depth. */
export function redactSpec(spec: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(spec)) out[key] = redactValue([key], value) as JsonValue;
  return out;
}

const pointer = (path: readonly (string | number)[]) =>
  path.length === 0 ? '/' : path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/**
 * A `(sensitive)` placeholder sent back for a secret keeps the stored value; with no stored value it is refused
 * (storing the placeholder as a password would break the connection silently). `at` is where `incoming` sits
 * in the request body, for the error.
 */
function restoreSecrets(incoming: JsonValue, current: JsonValue | undefined, at: (string | number)[]): JsonValue {
  if (Array.isArray(incoming)) {
    return incoming.map((item, i) => restoreSecrets(item, Array.isArray(current) ? current[i] : undefined, [...at, i]));
  }
  if (!isJsonObject(incoming)) return incoming;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(incoming)) {
    const stored = isJsonObject(current) ? current[key] : undefined;
    if (value === SENSITIVE && isSecretKey(key)) {
      if (stored === undefined || stored === null) {
        const where = pointer([...at, key]);
        throw new DqError('BODY_INVALID', `${where}: "${SENSITIVE}" stands for a stored secret, and none is stored here; send the value or a \${ENV_VAR} reference`, {
          violations: [{ path: where, message: `"${SENSITIVE}" is not a value`, code: 'invalid_value' }],
        });
      }
      out[key] = stored;
      continue;
    }
    out[key] = restoreSecrets(value, stored, [...at, key]);
  }
  return out;
}

/** A spec sent in a body with its secret placeholders replaced by the stored values. */
function withSecrets(incoming: JsonObject, current: JsonObject | undefined): JsonObject {
  return restoreSecrets(incoming, current, []) as JsonObject;
}

/**
 * Refuses a spec a connection file could not hold: 400 BODY_INVALID with every violation located by a JSON
 * pointer into the request body. `part` is the path in the spec of what the body replaced (its violations are
 * reported relative to the body); violations elsewhere are reported at `/spec/...`.
 */
export function validateConnectionSpec(spec: JsonObject, part?: readonly string[]): JsonObject {
  const violations = validateDocument('source', { apiVersion: 'dqo/v1', kind: 'source', spec });
  if (violations.length === 0) {
    const grouping = isJsonObject(spec.incident_grouping) ? spec.incident_grouping : {};
    refuseInvalidAddresses(grouping.incident_notification, part?.[0] === 'incident_grouping' ? '/incident_notification' : '/incident_grouping/incident_notification');
    return spec;
  }
  const listed = violations.map((v: SchemaViolation) => {
    const inSpec = v.path[0] === 'spec' ? v.path.slice(1) : v.path;
    const inPart = part !== undefined && part.every((segment, i) => inSpec[i] === segment);
    const path = part === undefined ? pointer(inSpec) : inPart ? pointer(inSpec.slice(part.length)) : `/spec${pointer(inSpec)}`;
    return {
      path,
      message: v.summary,
      code: v.code,
      ...(v.detail ? { detail: v.detail } : {}),
      ...(v.suggestions ? { suggestions: v.suggestions } : {}),
    };
  });
  throw new DqError('BODY_INVALID', `the connection is invalid: ${listed[0].path}: ${listed[0].message}`, { violations: listed });
}

/** ConnectionModel: the basic information, with secrets redacted, job templates and the caller's capabilities. */
function connectionModel(live: LiveObject, caps: Capabilities): JsonObject {
  const spec = live.spec;
  const model: JsonObject = { connection_name: live.name };
  if (spec.parallel_jobs_limit !== undefined) model.parallel_jobs_limit = spec.parallel_jobs_limit;
  if (spec.provider_type !== undefined) model.provider_type = spec.provider_type;
  for (const provider of PROVIDERS) {
    if (isJsonObject(spec[provider])) model[provider] = redactValue([provider], spec[provider]) as JsonValue;
  }
  Object.assign(model, jobTemplates(live.name));
  if (isJsonObject(spec.advanced_properties)) model.advanced_properties = redactValue(['advanced_properties'], spec.advanced_properties) as JsonValue;
  return { ...model, ...caps };
}

/** The parts of a connection spec a ConnectionModel carries. */
const BASIC_KEYS = ['provider_type', ...PROVIDERS, 'parallel_jobs_limit', 'advanced_properties'] as const;

/** A ConnectionModel body → the spec keys it sets (the templates and flags are derived, so ignored). */
function fromBasicModel(body: JsonObject, name: string): JsonObject {
  if (typeof body.connection_name === 'string' && body.connection_name !== name) {
    throw new DqError('INVALID_ARGUMENT', `the body names the connection ${JSON.stringify(body.connection_name)}, the path ${JSON.stringify(name)}`);
  }
  const spec: JsonObject = {};
  for (const key of BASIC_KEYS) if (body[key] !== undefined) spec[key] = body[key];
  return spec;
}

/** A stable number for a connection's content (DQOps's connection_hash is a long). */
function hashNumber(contentHash: string): number {
  return Number.parseInt(contentHash.slice(0, 13), 16);
}

/** The connection spec keys served as their own resources: path segment → spec key, model, empty value. */
const PARTS = [
  { segment: 'incidentgrouping', key: 'incident_grouping', model: ref('ConnectionIncidentGroupingSpec'), empty: {}, op: 'connection_incident_grouping' },
  { segment: 'comments', key: 'comments', model: arrayOf('CommentSpec'), empty: [], op: 'connection_comments' },
  { segment: 'labels', key: 'labels', model: { type: 'array', items: { type: 'string' } }, empty: [], op: 'connection_labels' },
  {
    segment: 'defaultgroupingconfiguration',
    key: 'default_grouping_configuration',
    model: ref('DataGroupingConfigurationSpec'),
    empty: {},
    op: 'connection_default_grouping_configuration',
  },
] as const;

export async function connectionsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['connections'];
  const params = {
    type: 'object',
    properties: { connectionName: { type: 'string', description: 'connection name (the folder under sources/)' } },
    required: ['connectionName'],
  };

  /** Replaces one key of a connection spec (PUT of a part): 404 for an unknown connection, 204. */
  const replacePart = async (request: FastifyRequest, key: string, value: JsonValue): Promise<void> => {
    const name = connectionNameOf(request);
    await context.objects.update('source', name, writerOf(request), (current) => {
      const spec: JsonObject = { ...current.spec, [key]: value };
      const restored = withSecrets(spec, current.spec);
      return { spec: validateConnectionSpec(restored, [key]) };
    });
  };

  api.get(
    '/connections',
    { schema: { tags, operationId: 'get_all_connections', summary: 'get_all_connections: every connection, sorted by name', response: { 200: arrayOf('ConnectionModel') } } },
    async (request) => {
      const sources = await context.objects.list('source');
      return [...sources]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map((live) => connectionModel(live, capabilitiesOn(context, request, live)));
    },
  );

  api.get(
    '/connections/:connectionName',
    { schema: { tags, operationId: 'get_connection', summary: 'get_connection: the full specification', params, response: { 200: ref('ConnectionSpecificationModel') } } },
    async (request) => {
      const live = await requireConnection(context, connectionNameOf(request));
      return {
        connection_name: live.name,
        connection_hash: hashNumber(live.contentHash),
        spec: redactSpec(live.spec),
        can_edit: capabilitiesOn(context, request, live).can_edit,
      };
    },
  );

  api.post(
    '/connections/:connectionName',
    { schema: { tags, operationId: 'create_connection', summary: 'create_connection: from a full specification', params, body: ref('ConnectionSpec') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const spec = validateConnectionSpec(withSecrets(request.body as JsonObject, undefined));
      await context.objects.create('source', name, spec, writerOf(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/connections/:connectionName',
    { schema: { tags, operationId: 'update_connection', summary: 'update_connection: replaces the specification', params, body: ref('ConnectionSpec') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      await context.objects.update('source', name, writerOf(request), (current) => ({
        spec: validateConnectionSpec(withSecrets(request.body as JsonObject, current.spec)),
      }));
      return reply.status(204).send();
    },
  );

  api.delete(
    '/connections/:connectionName',
    {
      schema: {
        tags,
        operationId: 'delete_connection', summary: 'delete_connection: the connection and all its tables, in one transaction',
        description:
          "Answers 200 with the id of the job that then deletes the connection's stored results, errors, error samples and statistics (as DQOps does).",
        params,
        response: { 200: ref('DqoQueueJobId') },
      },
    },
    async (request, reply) => {
      const name = connectionNameOf(request);
      await requireConnection(context, name);
      const deleted = await context.objects.deleteMany([{ kind: 'source', name }], writerOf(request), {
        children: [{ kind: 'table', namePrefix: tableKeyPrefix(name) }],
      });
      if (deleted === 0) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(name)} not found`);
      return answerWithStoredDataCleanup(context, request, reply, { connection: name });
    },
  );

  api.get(
    '/connections/:connectionName/basic',
    { schema: { tags, operationId: 'get_connection_basic', summary: 'get_connection_basic', params, response: { 200: ref('ConnectionModel') } } },
    async (request) => {
      const live = await requireConnection(context, connectionNameOf(request));
      return connectionModel(live, capabilitiesOn(context, request, live));
    },
  );

  api.post(
    '/connections/:connectionName/basic',
    { schema: { tags, operationId: 'create_connection_basic', summary: 'create_connection_basic: from a ConnectionModel', params, body: ref('ConnectionModel') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const spec = validateConnectionSpec(withSecrets(fromBasicModel(request.body as JsonObject, name), undefined));
      await context.objects.create('source', name, spec, writerOf(request));
      return reply.status(201).send();
    },
  );

  api.put(
    '/connections/:connectionName/basic',
    { schema: { tags, operationId: 'update_connection_basic', summary: 'update_connection_basic: the basic settings; the rest of the spec is kept', params, body: ref('ConnectionModel') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const basic = fromBasicModel(request.body as JsonObject, name);
      await context.objects.update('source', name, writerOf(request), (current) => ({
        spec: validateConnectionSpec(withSecrets({ ...current.spec, ...basic }, current.spec)),
      }));
      return reply.status(204).send();
    },
  );

  for (const part of PARTS) {
    api.get(
      `/connections/:connectionName/${part.segment}`,
      { schema: { tags, operationId: `get_${part.op}`, summary: `get_${part.op}`, params, response: { 200: part.model } } },
      async (request) => {
        const live = await requireConnection(context, connectionNameOf(request));
        return live.spec[part.key] ?? part.empty;
      },
    );
    api.put(
      `/connections/:connectionName/${part.segment}`,
      { schema: { tags, operationId: `update_${part.op}`, summary: `update_${part.op}`, params, body: part.model } },
      async (request, reply) => {
        await replacePart(request, part.key, request.body as JsonValue);
        return reply.status(204).send();
      },
    );
  }

  const scheduleParams = {
    type: 'object',
    properties: {
      connectionName: params.properties.connectionName,
      schedulingGroup: { type: 'string', description: SCHEDULING_GROUPS.join(', ') },
    },
    required: ['connectionName', 'schedulingGroup'],
  };
  const groupOf = (request: FastifyRequest): SchedulingGroup => {
    const group = (request.params as { schedulingGroup: string }).schedulingGroup;
    if (!(SCHEDULING_GROUPS as readonly string[]).includes(group)) {
      throw new DqError('INVALID_ARGUMENT', `unknown scheduling group ${JSON.stringify(group)}; one of ${SCHEDULING_GROUPS.join(', ')}`);
    }
    return group as SchedulingGroup;
  };

  api.get(
    '/connections/:connectionName/schedules/:schedulingGroup',
    { schema: { tags, operationId: 'get_connection_scheduling_group', summary: 'get_connection_scheduling_group', params: scheduleParams, response: { 200: ref('CronScheduleSpec') } } },
    async (request) => {
      const name = connectionNameOf(request);
      const group = groupOf(request);
      const live = await requireConnection(context, name);
      const schedules = isJsonObject(live.spec.schedules) ? live.spec.schedules : {};
      return schedules[group] ?? {};
    },
  );

  api.put(
    '/connections/:connectionName/schedules/:schedulingGroup',
    { schema: { tags, operationId: 'update_connection_scheduling_group', summary: 'update_connection_scheduling_group', params: scheduleParams, body: ref('CronScheduleSpec') } },
    async (request, reply) => {
      const name = connectionNameOf(request);
      const group = groupOf(request);
      await context.objects.update('source', name, writerOf(request), (current) => {
        const schedules = isJsonObject(current.spec.schedules) ? current.spec.schedules : {};
        const spec: JsonObject = { ...current.spec, schedules: { ...schedules, [group]: request.body as JsonObject } };
        return { spec: validateConnectionSpec(spec, ['schedules', group]) };
      });
      return reply.status(204).send();
    },
  );

  api.get(
    '/connections/:connectionName/autoimport',
    { schema: { tags, operationId: 'get_connection_auto_import', summary: 'get_connection_auto_import: auto_import_tables of the connection ({} when unset)', params, response: { 200: ref('AutoImportTablesSpec') } } },
    async (request) => {
      const live = await requireConnection(context, connectionNameOf(request));
      return live.spec.auto_import_tables ?? {};
    },
  );

  api.put(
    '/connections/:connectionName/autoimport',
    { schema: { tags, operationId: 'update_connection_auto_import', summary: 'update_connection_auto_import', params, body: ref('AutoImportTablesSpec') } },
    async (request, reply) => {
      await replacePart(request, 'auto_import_tables', request.body as JsonValue);
      return reply.status(204).send();
    },
  );

  api.get(
    '/connections/:connectionName/commoncolumns',
    {
      schema: {
        tags,
        operationId: 'get_connection_common_columns', summary: 'get_connection_common_columns: column names of the connection\'s tables, counted, by name descending',
        params,
        response: { 200: arrayOf('CommonColumnModel') },
      },
    },
    async (request) => {
      const name = connectionNameOf(request);
      await requireConnection(context, name);
      const counts = new Map<string, number>();
      for (const table of await context.objects.list('table', tableKeyPrefix(name))) {
        const columns = table.spec.columns;
        if (!isJsonObject(columns)) continue;
        for (const column of Object.keys(columns)) counts.set(column, (counts.get(column) ?? 0) + 1);
      }
      return [...counts]
        .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
        .map(([column_name, tables_count]) => ({ column_name, tables_count }));
    },
  );
}
