import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseInvalidTableSpec } from '../../app/tableSpecValidation.js';
import { DqError, isJsonObject, tableKey, type JsonObject, type JsonValue } from '../../model/index.js';
import { arrayOf } from '../apiSchemas.js';
import type { ServerContext } from '../context.js';
import { checkName } from '../names.js';
import { requireTable, TABLE_PARAMS, TABLE_URL, tablePathOf, writerOf } from './tables.js';

/**
 * The labels and comments of one column, served on their own as DQOps serves them (GET answers the part or its
 * empty value, PUT replaces it; 404 when the column is not in the table spec). A write is an update of the
 * column's table, validated as a table spec.
 */
const COLUMN_PARTS = [
  { segment: 'labels', operation: 'column_labels', key: 'labels', schema: { type: 'array', items: { type: 'string' } } },
  { segment: 'comments', operation: 'column_comments', key: 'comments', schema: arrayOf('CommentSpec') },
] as const;

export async function columnPartsRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['columns'];
  const params = {
    type: 'object',
    properties: { ...TABLE_PARAMS.properties, columnName: { type: 'string', description: 'column name; a "/" in it travels as %2F' } },
    required: [...TABLE_PARAMS.required, 'columnName'],
  };
  const columnNameOf = (request: FastifyRequest) => checkName('column name', (request.params as { columnName: string }).columnName, { slashes: true });
  const columnOf = (spec: JsonObject, column: string, table: string): JsonObject => {
    const found = isJsonObject(spec.columns) ? spec.columns[column] : undefined;
    if (!isJsonObject(found)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${JSON.stringify(table)}`);
    return found;
  };

  for (const part of COLUMN_PARTS) {
    api.get(
      `${TABLE_URL}/columns/:columnName/${part.segment}`,
      { schema: { tags, operationId: `get_${part.operation}`, summary: `get_${part.operation}: the ${part.key} of the column ([] when none)`, params, response: { 200: part.schema } } },
      async (request) => {
        const live = await requireTable(context, tablePathOf(request));
        return columnOf(live.spec, columnNameOf(request), live.name)[part.key] ?? [];
      },
    );
    api.put(
      `${TABLE_URL}/columns/:columnName/${part.segment}`,
      { schema: { tags, operationId: `update_${part.operation}`, summary: `update_${part.operation}: replaces the ${part.key} of the column; 204`, params, body: part.schema } },
      async (request, reply) => {
        const path = tablePathOf(request);
        const column = columnNameOf(request);
        await requireTable(context, path);
        const value = request.body as JsonValue;
        refuseInvalidTableSpec({ columns: { [column]: { [part.key]: value } } }, ['columns', column, part.key], part.key);
        await context.objects.update('table', tableKey(path), writerOf(request), (current) => {
          const columns: JsonObject = isJsonObject(current.spec.columns) ? { ...current.spec.columns } : {};
          columns[column] = { ...columnOf(current.spec, column, current.name), [part.key]: value };
          return { spec: { ...current.spec, columns } };
        });
        return reply.status(204).send();
      },
    );
  }
}
