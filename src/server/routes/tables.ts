import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DqError,
  isJsonObject,
  tableKey,
  type JsonObject,
  type JsonValue,
  type LiveObject,
  type TableIdentity,
} from '../../model/index.js';
import { columnListModel, columnModel, columnsOf, nameHash, tableListModel } from '../../app/tableModels.js';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { pagingOf, type PagingRequest } from '../../app/listPaging.js';
import { listTables } from '../../app/tableList.js';
import { listColumns } from '../../app/columnList.js';
import { PAGING_QUERY } from '../pagingQuery.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { capabilitiesOf, type Capabilities, type ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { answerWithStoredDataCleanup } from '../storedDataCleanup.js';

/**
 * Tables and their columns: objects of kind table named `connection/schema.table`, whose spec is a
 * .dqotable.yaml spec with the columns as its `columns` map. A column is not an object of its own: every column
 * write is an update of its table through the live objects (read-modify-write under the store lock), so two
 * concurrent writes to columns of one table never lose each other. Every route answers 404 naming the
 * connection when the connection does not exist, before it looks for the table. Incoming specs are validated
 * against the same schema as table files (400 with the violations).
 */

/** A table as its path names it. */
export type TablePath = TableIdentity;

interface TableParams {
  connectionName: string;
  schemaName: string;
  tableName: string;
}

export const TABLE_URL = '/connections/:connectionName/schemas/:schemaName/tables/:tableName';

export const TABLE_PARAMS = {
  type: 'object',
  properties: {
    connectionName: { type: 'string', description: 'connection name' },
    schemaName: { type: 'string', description: 'schema name (no ".")' },
    tableName: { type: 'string', description: 'table name; a "/" in it travels as %2F' },
  },
  required: ['connectionName', 'schemaName', 'tableName'],
};

export function checkConnectionName(name: string, what = 'connection name'): string {
  return checkName(what, name);
}

export function checkSchemaName(name: string, what = 'schema name'): string {
  checkName(what, name, { slashes: true });
  if (name.includes('.')) throw new DqError('INVALID_ARGUMENT', `${what} must not contain "."`);
  return name;
}

export function checkTableName(name: string, what = 'table name'): string {
  return checkName(what, name, { slashes: true });
}

export function tablePathOf(request: FastifyRequest): TablePath {
  const params = request.params as TableParams;
  return {
    connection: checkConnectionName(params.connectionName),
    schema: checkSchemaName(params.schemaName),
    table: checkTableName(params.tableName),
  };
}

export async function requireConnection(context: ServerContext, connection: string): Promise<LiveObject> {
  const found = await context.objects.get('source', connection);
  if (!found) throw new DqError('NOT_FOUND', `connection ${JSON.stringify(connection)} not found`);
  return found;
}

/** The table of a path: 404 naming the connection when it is missing, else naming the table. */
export async function requireTable(context: ServerContext, path: TablePath): Promise<LiveObject> {
  await requireConnection(context, path.connection);
  const name = tableKey(path);
  const found = await context.objects.get('table', name);
  if (!found) throw new DqError('NOT_FOUND', `table ${JSON.stringify(name)} not found`);
  return found;
}

export function writerOf(request: FastifyRequest): { caller: string } {
  return { caller: `api:${request.caller.name}` };
}

export function capabilitiesFor(context: ServerContext, request: FastifyRequest, live?: LiveObject): Capabilities {
  return capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });
}

interface TablePart {
  segment: string;
  operation: string;
  key: string;
  schema: Record<string, unknown>;
  empty: () => JsonValue;
}

const TABLE_PARTS: TablePart[] = [
  { segment: 'labels', operation: 'table_labels', key: 'labels', schema: { type: 'array', items: { type: 'string' } }, empty: () => [] },
  { segment: 'comments', operation: 'table_comments', key: 'comments', schema: arrayOf('CommentSpec'), empty: () => [] },
  { segment: 'timestampcolumns', operation: 'table_timestamp_columns', key: 'timestamp_columns', schema: ref('TimestampColumnsSpec'), empty: () => ({}) },
  { segment: 'incidentgrouping', operation: 'table_incident_grouping', key: 'incident_grouping', schema: ref('TableIncidentGroupingSpec'), empty: () => ({}) },
];

/** The grouping named by default_grouping_name (`default` when unnamed). */
function defaultGroupingName(spec: JsonObject): string {
  return typeof spec.default_grouping_name === 'string' && spec.default_grouping_name !== '' ? spec.default_grouping_name : 'default';
}

export async function tablesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tableModelTexts = new WeakMap<LiveObject, { key: string; text: string }>();
  const tags = ['tables'];
  const columnTags = ['columns'];
  const schemaParams = {
    type: 'object',
    properties: { connectionName: { type: 'string' }, schemaName: { type: 'string' } },
    required: ['connectionName', 'schemaName'],
  };
  const columnParams = {
    type: 'object',
    properties: { ...TABLE_PARAMS.properties, columnName: { type: 'string', description: 'column name; a "/" in it travels as %2F' } },
    required: [...TABLE_PARAMS.required, 'columnName'],
  };
  const COLUMN_URL = `${TABLE_URL}/columns/:columnName`;

  const columnNameOf = (request: FastifyRequest) => checkName('column name', (request.params as { columnName: string }).columnName, { slashes: true });

  // ---- tables -------------------------------------------------------------------------------------------

  api.get(
    '/connections/:connectionName/schemas/:schemaName/tables',
    {
      schema: {
        tags,
        operationId: 'get_tables',
        summary: 'get_tables: the enabled tables of a schema whose names match filter (DQOps’s patterns) and that carry every label, sorted by name; one page with page or limit',
        params: schemaParams,
        querystring: {
          type: 'object',
          properties: {
            ...PAGING_QUERY,
            filter: { type: 'string', description: 'table name pattern: name, prefix*, *suffix, *contains*, pre*post; case is ignored' },
            label: { type: 'array', items: { type: 'string' }, description: 'labels (or label patterns) the table or its connection must all carry' },
          },
        },
        response: { 200: arrayOf('TableListModel') },
      },
    },
    async (request) => {
      const params = request.params as { connectionName: string; schemaName: string };
      const query = request.query as PagingRequest & { filter?: string; label?: string[] };
      const connection = checkConnectionName(params.connectionName);
      const schema = checkSchemaName(params.schemaName);
      const paging = pagingOf(query);
      await requireConnection(context, connection);
      return listTables(context.objects, { connection, schema, filter: query.filter, labels: query.label, paging }, (live) => capabilitiesFor(context, request, live));
    },
  );

  api.get(
    TABLE_URL,
    { schema: { tags, operationId: 'get_table', summary: 'get_table: a table with its full spec', params: TABLE_PARAMS, response: { 200: ref('TableModel') } } },
    async (request, reply) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      // The most read route: its JSON is kept per cached live object (a new object after any write) and caller
      // capabilities, so a repeated GET sends the same text without building and serializing the model again.
      const capabilities = capabilitiesFor(context, request, live);
      const key = JSON.stringify(capabilities);
      const cached = tableModelTexts.get(live);
      let text = cached?.key === key ? cached.text : undefined;
      if (text === undefined) {
        text = JSON.stringify({ connection_name: path.connection, table_hash: nameHash(live.name), spec: live.spec, ...capabilities });
        tableModelTexts.set(live, { key, text });
      }
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );

  api.get(
    `${TABLE_URL}/basic`,
    { schema: { tags, operationId: 'get_table_basic', summary: 'get_table_basic: the list model of one table', params: TABLE_PARAMS, response: { 200: ref('TableListModel') } } },
    async (request) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      return tableListModel(live, path, capabilitiesFor(context, request, live));
    },
  );

  api.post(
    TABLE_URL,
    { schema: { tags, operationId: 'create_table', summary: 'create_table: 201; 404 without the connection, 409 when the table exists', params: TABLE_PARAMS, body: ref('TableSpec') } },
    async (request, reply) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      const spec = request.body as JsonObject;
      refuseInvalidTableSpec(spec);
      await context.objects.create('table', tableKey(path), spec, writerOf(request));
      return reply.status(201).send();
    },
  );

  api.put(
    TABLE_URL,
    { schema: { tags, operationId: 'update_table', summary: 'update_table: replaces the whole spec; 204, 404 when missing', params: TABLE_PARAMS, body: ref('TableSpec') } },
    async (request, reply) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      const spec = request.body as JsonObject;
      refuseInvalidTableSpec(spec);
      await context.objects.update('table', tableKey(path), writerOf(request), () => ({ spec }));
      return reply.status(204).send();
    },
  );

  api.delete(
    TABLE_URL,
    {
      schema: {
        tags,
        operationId: 'delete_table',
        summary: "delete_table: 200 with the id of the job that deletes the table's stored results, errors, samples and statistics",
        params: TABLE_PARAMS,
        response: { 200: ref('DqoQueueJobId') },
      },
    },
    async (request, reply) => {
      const path = tablePathOf(request);
      await requireConnection(context, path.connection);
      await context.objects.delete('table', tableKey(path), writerOf(request));
      return answerWithStoredDataCleanup(context, request, reply, { connection: path.connection, table: path });
    },
  );

  // ---- parts of a table ---------------------------------------------------------------------------------

  for (const part of TABLE_PARTS) {
    api.get(
      `${TABLE_URL}/${part.segment}`,
      { schema: { tags, operationId: `get_${part.operation}`, summary: `get_${part.operation}`, params: TABLE_PARAMS, response: { 200: part.schema } } },
      async (request) => {
        const live = await requireTable(context, tablePathOf(request));
        return live.spec[part.key] ?? part.empty();
      },
    );
    api.put(
      `${TABLE_URL}/${part.segment}`,
      { schema: { tags, operationId: `update_${part.operation}`, summary: `update_${part.operation}: replaces ${part.key}; 204`, params: TABLE_PARAMS, body: part.schema } },
      async (request, reply) => {
        const path = tablePathOf(request);
        await requireTable(context, path);
        const value = request.body as JsonValue;
        refuseInvalidTableSpec({ [part.key]: value }, [part.key], part.key);
        await context.objects.update('table', tableKey(path), writerOf(request), (current) => ({ spec: { ...current.spec, [part.key]: value } }));
        return reply.status(204).send();
      },
    );
  }

  api.get(
    `${TABLE_URL}/defaultgroupingconfiguration`,
    {
      schema: {
        tags,
        operationId: 'get_table_default_grouping_configuration', summary: 'get_table_default_grouping_configuration: the grouping named by default_grouping_name ("default" when unnamed)',
        params: TABLE_PARAMS,
        response: { 200: ref('DataGroupingConfigurationSpec') },
      },
    },
    async (request) => {
      const live = await requireTable(context, tablePathOf(request));
      const groupings = isJsonObject(live.spec.groupings) ? live.spec.groupings : {};
      return groupings[defaultGroupingName(live.spec)] ?? {};
    },
  );

  api.put(
    `${TABLE_URL}/defaultgroupingconfiguration`,
    {
      schema: {
        tags,
        operationId: 'update_table_default_grouping_configuration', summary: 'update_table_default_grouping_configuration: sets the default grouping (and names it "default" when unnamed); 204',
        params: TABLE_PARAMS,
        body: ref('DataGroupingConfigurationSpec'),
      },
    },
    async (request, reply) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      const grouping = request.body as JsonObject;
      refuseInvalidTableSpec({ groupings: { default: grouping } }, ['groupings', 'default'], 'grouping configuration');
      await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
        const name = defaultGroupingName(current.spec);
        const groupings = isJsonObject(current.spec.groupings) ? current.spec.groupings : {};
        return { spec: { ...current.spec, default_grouping_name: name, groupings: { ...groupings, [name]: grouping } } };
      });
      return reply.status(204).send();
    },
  );

  // ---- columns ------------------------------------------------------------------------------------------

  api.get(
    `${TABLE_URL}/columns`,
    {
      schema: {
        tags: columnTags,
        operationId: 'get_columns',
        summary: 'get_columns: the columns of a table, sorted by name; dqctl also takes filter (a column name pattern) and page or limit',
        params: TABLE_PARAMS,
        querystring: { type: 'object', properties: { ...PAGING_QUERY, filter: { type: 'string', description: 'column name pattern: name, prefix*, *suffix, *contains*, pre*post; case is ignored' } } },
        response: { 200: arrayOf('ColumnListModel') },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      const query = request.query as PagingRequest & { filter?: string };
      const paging = pagingOf(query);
      const live = await requireTable(context, path);
      return listColumns(live, path, { filter: query.filter, paging }, capabilitiesFor(context, request, live));
    },
  );

  const requireColumn = (live: LiveObject, column: string): JsonObject => {
    const found = columnsOf(live.spec)[column];
    if (!found) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${JSON.stringify(live.name)}`);
    return found;
  };

  api.get(
    COLUMN_URL,
    { schema: { tags: columnTags, operationId: 'get_column', summary: 'get_column: a column with its full spec', params: columnParams, response: { 200: ref('ColumnModel') } } },
    async (request) => {
      const path = tablePathOf(request);
      const column = columnNameOf(request);
      const live = await requireTable(context, path);
      return columnModel(path, column, requireColumn(live, column), capabilitiesFor(context, request, live));
    },
  );

  api.get(
    `${COLUMN_URL}/basic`,
    { schema: { tags: columnTags, operationId: 'get_column_basic', summary: 'get_column_basic: the list model of one column', params: columnParams, response: { 200: ref('ColumnListModel') } } },
    async (request) => {
      const path = tablePathOf(request);
      const column = columnNameOf(request);
      const live = await requireTable(context, path);
      return columnListModel(path, column, requireColumn(live, column), capabilitiesFor(context, request, live));
    },
  );

  /** A column write: validated as part of a table spec, then applied to the table's current spec. */
  const writeColumn = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status: 201 | 204 | 'cleanup',
    change: (columns: Record<string, JsonValue>, column: string, tableName: string) => void,
  ) => {
    const path = tablePathOf(request);
    const column = columnNameOf(request);
    await requireTable(context, path);
    if (request.body !== undefined) refuseInvalidTableSpec({ columns: { [column]: request.body as JsonObject } }, ['columns', column], 'column spec');
    await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
      const columns: Record<string, JsonValue> = isJsonObject(current.spec.columns) ? { ...current.spec.columns } : {};
      change(columns, column, current.name);
      return { spec: { ...current.spec, columns } };
    });
    if (status === 'cleanup') return answerWithStoredDataCleanup(context, request, reply, { connection: path.connection, table: path, column });
    return reply.status(status).send();
  };

  api.post(
    COLUMN_URL,
    { schema: { tags: columnTags, operationId: 'create_column', summary: 'create_column: adds the column to the table spec; 201, 409 when present', params: columnParams, body: ref('ColumnSpec') } },
    async (request, reply) =>
      writeColumn(request, reply, 201, (columns, column, tableName) => {
        if (column in columns) throw new DqError('ALREADY_EXISTS', `column ${JSON.stringify(column)} already exists in table ${JSON.stringify(tableName)}`);
        columns[column] = request.body as JsonObject;
      }),
  );

  api.put(
    COLUMN_URL,
    { schema: { tags: columnTags, operationId: 'update_column', summary: 'update_column: replaces the column spec; 204, 404 when missing', params: columnParams, body: ref('ColumnSpec') } },
    async (request, reply) =>
      writeColumn(request, reply, 204, (columns, column, tableName) => {
        if (!(column in columns)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${JSON.stringify(tableName)}`);
        columns[column] = request.body as JsonObject;
      }),
  );

  api.delete(
    COLUMN_URL,
    {
      schema: {
        tags: columnTags,
        operationId: 'delete_column',
        summary: "delete_column: removes the column from the table spec; 200 with the id of the job that deletes the column's stored data",
        params: columnParams,
        response: { 200: ref('DqoQueueJobId') },
      },
    },
    async (request, reply) =>
      writeColumn(request, reply, 'cleanup', (columns, column, tableName) => {
        if (!(column in columns)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${JSON.stringify(tableName)}`);
        delete columns[column];
      }),
  );
}
