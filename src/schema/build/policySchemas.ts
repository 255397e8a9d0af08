/**
 * Quality policies (DQOps "default check patterns"): patterns/<name>.dqotablepattern.yaml
 * (kind: default_table_checks) and patterns/<name>.dqocolumnpattern.yaml (kind: default_column_checks). A policy
 * holds the checks of its target (table checks or column checks) and a target filter.
 */
import type { CheckCatalog, CheckTarget } from '../../catalog/index.js';
import { checkContainerSchemas, checkOwnerMarker } from './checkContainerSchemas.js';
import { documentSchema } from './documentSchema.js';
import { bool, closedObject, enumOf, int, str, type Schema } from './schemaShapes.js';
import { commentDefs } from './sharedSpecs.js';

export const DATA_TYPE_CATEGORIES = [
  'numeric_integer', 'numeric_decimal', 'numeric_float', 'datetime_timestamp', 'datetime_datetime', 'datetime_date',
  'datetime_time', 'text', 'clob', 'json', 'bool', 'binary', 'array', 'other',
] as const;

const LIST_NOTE = 'Comma-separated list; * wildcards; empty matches all.';

export function policySchema(file: string, target: CheckTarget, catalog: CheckCatalog): Schema {
  const checks = checkContainerSchemas(catalog, target);
  const targetFields: Record<string, Schema> = {
    connection: str(`Connection names. ${LIST_NOTE}`),
    schema: str(`Schema names. ${LIST_NOTE}`),
    table: str(`Table names. ${LIST_NOTE}`),
    stage: str(`Table stages. ${LIST_NOTE}`),
    table_priority: int('Matches tables whose priority is set and at most this value.'),
    label: str(`Labels of the connection or table${target === 'column' ? ' or column' : ''}. ${LIST_NOTE}`),
  };
  if (target === 'column') {
    Object.assign(targetFields, {
      column: str(`Column names. ${LIST_NOTE}`),
      data_type: str(`Column types as in type_snapshot.column_type. ${LIST_NOTE}`),
      data_type_category: enumOf(DATA_TYPE_CATEGORIES, 'Category of the column type.'),
    });
  }
  const spec = closedObject(
    {
      priority: int('Order of application; lower numbers win (DQOps default 1000).'),
      disabled: bool('Turns the policy off.'),
      description: str('What the policy is for.'),
      target: closedObject(targetFields, { description: `Which ${target}s the policy applies to; set fields must all match.` }),
      ...checks.properties,
    },
    { description: `The ${target} quality policy.`, ...checkOwnerMarker(target) },
  );
  const kind = target === 'table' ? 'default_table_checks' : 'default_column_checks';
  const suffix = target === 'table' ? 'dqotablepattern' : 'dqocolumnpattern';
  return documentSchema({
    file,
    title: `dqctl / DQOps ${target} quality policy`,
    description: `Checks applied to every matching ${target}: patterns/<name>.${suffix}.yaml (kind: ${kind}).`,
    apiVersion: 'dqo/v1',
    kind,
    spec,
    defs: { ...commentDefs(), ...checks.defs },
  });
}
