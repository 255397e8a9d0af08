import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { entriesOf, entryNames, lineageSources, lineageTargets, lineageTree } from '../../app/lineageIndex.js';
import { CHECK_TYPES, DqError, tableKey, type JsonObject, type JsonValue } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import {
  TABLE_PARAMS,
  TABLE_URL,
  capabilitiesFor,
  checkConnectionName,
  checkSchemaName,
  checkTableName,
  requireConnection,
  requireTable,
  tablePathOf,
  writerOf,
  type TablePath,
} from './tables.js';

/**
 * Data lineage of a table. A flow is stored in its TARGET table, as an entry of the spec's `source_tables` (as in
 * the table file), so every write here is an update of the target table. The targets of a table and the lineage
 * tree are found by reading the specs of all tables (no index: a scan of every table). `check_type` is accepted
 * on the lists and ignored. Quality statuses in the tree come from each table's latest check results.
 */
interface SourceParams {
  sourceConnection: string;
  sourceSchema: string;
  sourceTable: string;
}

function sourcePathOf(request: FastifyRequest): TablePath {
  const params = request.params as SourceParams;
  return {
    connection: checkConnectionName(params.sourceConnection, 'source connection name'),
    schema: checkSchemaName(params.sourceSchema, 'source schema name'),
    table: checkTableName(params.sourceTable, 'source table name'),
  };
}

export async function lineageRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['lineage'];
  const SOURCE_URL = `${TABLE_URL}/lineage/sources/:sourceConnection/schemas/:sourceSchema/tables/:sourceTable`;
  const sourceParams = {
    type: 'object',
    properties: {
      ...TABLE_PARAMS.properties,
      sourceConnection: { type: 'string', description: 'connection of the source table' },
      sourceSchema: { type: 'string', description: 'schema of the source table' },
      sourceTable: { type: 'string', description: 'name of the source table; a "/" in it travels as %2F' },
    },
    required: [...TABLE_PARAMS.required, 'sourceConnection', 'sourceSchema', 'sourceTable'],
  };
  const checkTypeEnum = { type: 'string', enum: [...CHECK_TYPES], description: 'accepted and ignored until check results exist' };
  const listQuery = { type: 'object', properties: { check_type: checkTypeEnum, checkType: checkTypeEnum } };
  const treeQuery = {
    type: 'object',
    properties: {
      upstream: { type: 'boolean', default: true, description: 'follow source tables (true unless false)' },
      downstream: { type: 'boolean', default: true, description: 'follow tables loaded from this one (true unless false)' },
    },
  };

  /** The entry a request body describes, with the names of the path; 400 when the body names another table. */
  const entryOf = (request: FastifyRequest, source: TablePath): JsonObject => {
    const body = (request.body ?? {}) as JsonObject;
    const names = { source_connection: source.connection, source_schema: source.schema, source_table: source.table };
    for (const [key, value] of Object.entries(names)) {
      if (body[key] !== undefined && body[key] !== value) {
        throw new DqError('INVALID_ARGUMENT', `the body names ${key} ${JSON.stringify(body[key])}, but the path names ${JSON.stringify(value)}`);
      }
    }
    const entry: JsonObject = { ...body, ...names };
    refuseInvalidTableSpec({ source_tables: [entry] }, ['source_tables', 0], 'lineage source');
    return entry;
  };

  const describe = (target: TablePath, source: TablePath) =>
    `lineage source ${JSON.stringify(tableKey(source))} of table ${JSON.stringify(tableKey(target))}`;

  api.get(
    `${TABLE_URL}/lineage/sources`,
    {
      schema: {
        tags,
        operationId: 'get_table_source_tables', summary: 'get_table_source_tables: the tables this one is loaded from (check_type is accepted and ignored: no results exist yet)',
        params: TABLE_PARAMS,
        querystring: listQuery,
        response: { 200: arrayOf('TableLineageTableListModel') },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      const live = await requireTable(context, path);
      return lineageSources(live, path, capabilitiesFor(context, request, live).can_edit);
    },
  );

  api.get(
    `${TABLE_URL}/lineage/targets`,
    {
      schema: {
        tags,
        operationId: 'get_table_target_tables', summary: 'get_table_target_tables: the tables loaded from this one, found by reading every table (check_type is accepted and ignored: no results exist yet)',
        params: TABLE_PARAMS,
        querystring: listQuery,
        response: { 200: arrayOf('TableLineageTableListModel') },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      return lineageTargets(context.objects, path, (target) => capabilitiesFor(context, request, target).can_edit);
    },
  );

  api.get(
    `${TABLE_URL}/lineage/tree`,
    {
      schema: {
        tags,
        operationId: 'get_table_data_lineage_graph', summary: 'get_table_data_lineage_graph: every flow upstream and downstream of the table, transitively, with the current quality status (null until it has results) and the combined status upstream',
        params: TABLE_PARAMS,
        querystring: treeQuery,
        response: { 200: ref('TableLineageModel') },
      },
    },
    async (request) => {
      const path = tablePathOf(request);
      await requireTable(context, path);
      const query = request.query as { upstream?: boolean; downstream?: boolean };
      return lineageTree(context.objects, context.store, path, { upstream: query.upstream !== false, downstream: query.downstream !== false });
    },
  );

  api.get(
    SOURCE_URL,
    { schema: { tags, operationId: 'get_table_source_table', summary: 'get_table_source_table: one source of the table', params: sourceParams, response: { 200: ref('TableLineageSourceSpec') } } },
    async (request) => {
      const target = tablePathOf(request);
      const source = sourcePathOf(request);
      const live = await requireTable(context, target);
      const entry = entriesOf(live.spec).find((e) => entryNames(e, source));
      if (!entry) throw new DqError('NOT_FOUND', `${describe(target, source)} not found`);
      return entry;
    },
  );

  /**
   * Writes the flow of the request's body into the target table's source_tables: `place` gets the current entries,
   * the new entry and where the flow already is (-1: not there) and answers the new list. 404 without the target
   * table or the source connection.
   */
  const writeSourceEntry = async (
    request: FastifyRequest,
    place: (entries: JsonValue[], entry: JsonValue, at: number, name: string) => JsonValue[],
  ): Promise<void> => {
    const target = tablePathOf(request);
    const source = sourcePathOf(request);
    await requireTable(context, target);
    await requireConnection(context, source.connection);
    const entry = entryOf(request, source);
    await context.objects.update('table', tableKey(target), writerOf(request), (current) => {
      const entries = entriesOf(current.spec);
      const at = entries.findIndex((e) => entryNames(e, source));
      return { spec: { ...current.spec, source_tables: place(entries, entry, at, describe(target, source)) } };
    });
  };

  api.post(
    SOURCE_URL,
    {
      schema: {
        tags,
        operationId: 'create_table_source_table', summary: 'create_table_source_table: 201; 404 without the target table or the source connection, 409 when the flow exists',
        params: sourceParams,
        body: ref('TableLineageSourceSpec'),
      },
    },
    async (request, reply) => {
      await writeSourceEntry(request, (entries, entry, at, name) => {
        if (at >= 0) throw new DqError('ALREADY_EXISTS', `${name} already exists`);
        return [...entries, entry];
      });
      return reply.status(201).send();
    },
  );

  api.put(
    SOURCE_URL,
    {
      schema: {
        tags,
        operationId: 'update_table_source_table', summary: 'update_table_source_table: creates or replaces the flow; 204, 404 without the target table or the source connection',
        params: sourceParams,
        body: ref('TableLineageSourceSpec'),
      },
    },
    async (request, reply) => {
      await writeSourceEntry(request, (entries, entry, at) => (at < 0 ? [...entries, entry] : entries.map((e, i) => (i === at ? entry : e))));
      return reply.status(204).send();
    },
  );

  api.delete(
    SOURCE_URL,
    { schema: { tags, operationId: 'delete_table_source_table', summary: 'delete_table_source_table: 204, 404 when the flow does not exist', params: sourceParams } },
    async (request, reply) => {
      const target = tablePathOf(request);
      const source = sourcePathOf(request);
      await requireTable(context, target);
      await context.objects.update('table', tableKey(target), writerOf(request), (current) => {
        const entries = entriesOf(current.spec);
        const kept = entries.filter((e) => !entryNames(e, source));
        if (kept.length === entries.length) throw new DqError('NOT_FOUND', `${describe(target, source)} not found`);
        return { spec: { ...current.spec, source_tables: kept } };
      });
      return reply.status(204).send();
    },
  );
}

