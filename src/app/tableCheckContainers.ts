import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { DqError, isJsonObject, parseTableKey, tableKey, type Capabilities, type JsonObject, type LiveObject, type TableIdentity } from '../model/index.js';
import {
  applyCheckContainerModel,
  checkContainerModel,
  compilePolicies,
  containerComparisons,
  effectiveColumnChecks,
  effectiveContainer,
  effectiveTableChecks,
  tableComparisonNames,
  type CheckContainerModel,
  type EffectiveContainer,
} from '../policy/index.js';
import { containerSpecOf, withContainerSpec, type CheckContainerAddress } from './checkContainerSpec.js';
import { refuseInvalidTableSpec } from './tableSpecValidation.js';

/**
 * The check containers of a table and of its columns: the container as the table file holds it, and the
 * CheckContainerModel of every catalog check with the EFFECTIVE configuration (the table's own checks plus what
 * matching policies add, the latter marked `default_check: true`). A model written back writes only what the
 * caller changed: a policy's check sent back untouched is not copied into the table.
 */
export type { CheckContainerModel };

/** A table's container, or (column given) one of its columns'. */
export interface CheckContainerSubject {
  table: LiveObject;
  column?: string;
  container: CheckContainerAddress;
}

/** The spec of the subject: the table's, or the column's (404 when the table has no such column). */
export function subjectSpecOf(table: LiveObject, column: string | undefined): JsonObject {
  if (column === undefined) return table.spec;
  const columns = isJsonObject(table.spec.columns) ? table.spec.columns : {};
  const spec = columns[column];
  if (!isJsonObject(spec)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${table.name}`);
  return spec;
}

/** The container as the table file holds it. */
export function ownCheckContainer(subject: CheckContainerSubject): JsonObject {
  return containerSpecOf(subjectSpecOf(subject.table, subject.column), subject.container);
}

async function effectiveOf(objects: LiveObjects, subject: CheckContainerSubject): Promise<EffectiveContainer> {
  const { table, column, container } = subject;
  const identity = parseTableKey(table.name);
  if (!identity) throw new DqError('INTERNAL', `table name ${table.name} cannot be split`);
  const ref = { ...identity, spec: table.spec };
  const [connection, tablePolicies, columnPolicies] = await Promise.all([
    objects.get('source', ref.connection),
    objects.list('default_table_checks'),
    objects.list('default_column_checks'),
  ]);
  const policies = compilePolicies([...tablePolicies, ...columnPolicies]);
  const checks = column === undefined ? effectiveTableChecks(ref, connection?.spec, policies) : effectiveColumnChecks(ref, column, connection?.spec, policies);
  return effectiveContainer(checks, container.checkType, container.timeScale);
}

/** Every catalog check of the container with its effective configuration. */
export async function checkContainerModelOf(objects: LiveObjects, subject: CheckContainerSubject, capabilities: Capabilities): Promise<CheckContainerModel> {
  const { container } = subject;
  // the table's comparisons whose checks belong in this container, as DQOps lists them (category comparisons/<name>)
  const comparisons = containerComparisons(subject.table.spec, subject.column ?? null, container.checkType, container.timeScale);
  return checkContainerModel(subject.column === undefined ? 'table' : 'column', container.checkType, container.timeScale, await effectiveOf(objects, subject), capabilities, { comparisons });
}

/**
 * Replaces the container of the table (or of one of its columns) in a read-modify-write of the table; `make`
 * gets the container as stored. The table is validated as its file would be.
 */
export async function replaceCheckContainer(
  objects: LiveObjects,
  target: { table: TableIdentity; column?: string; container: CheckContainerAddress },
  make: (current: JsonObject, table: LiveObject) => JsonObject,
  writer: WriteContext,
): Promise<void> {
  const { column, container } = target;
  await objects.update('table', tableKey(target.table), writer, (current) => {
    let spec: JsonObject;
    if (column === undefined) {
      spec = withContainerSpec(current.spec, container, make(containerSpecOf(current.spec, container), current));
    } else {
      const columns = isJsonObject(current.spec.columns) ? current.spec.columns : {};
      const columnSpec = columns[column];
      if (!isJsonObject(columnSpec)) throw new DqError('NOT_FOUND', `column ${JSON.stringify(column)} not found in table ${current.name}`);
      const next = withContainerSpec(columnSpec, container, make(containerSpecOf(columnSpec, container), current));
      spec = { ...current.spec, columns: { ...columns, [column]: next } };
    }
    refuseInvalidTableSpec(spec);
    return { spec };
  });
}

/** Writes a CheckContainerModel into the container: only what differs from the effective configuration it was built from. */
export async function writeCheckContainerModel(objects: LiveObjects, subject: CheckContainerSubject & { tablePath: TableIdentity }, model: CheckContainerModel, writer: WriteContext): Promise<void> {
  const inherited = await effectiveOf(objects, subject);
  await replaceCheckContainer(objects, { table: subject.tablePath, column: subject.column, container: subject.container }, (previous, table) => applyCheckContainerModel(model, { previous, inherited, tableComparisons: tableComparisonNames(table.spec) }),
    writer,
  );
}
