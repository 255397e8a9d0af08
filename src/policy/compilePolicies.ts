/**
 * Policies (kinds `default_table_checks` and `default_column_checks`) made ready for matching many tables:
 * the target's text filters are compiled once into patterns, disabled policies are flagged, and the policies
 * are put in the order they apply, ascending `priority` (default 1000), ties broken by policy name so that the
 * result never depends on the order the store returned them in.
 *
 * Target rules: an unset or empty field does not filter; every set field must match. `table_priority` matches
 * tables whose own `priority` is set and not above it. `label` matches a label of the connection or the table
 * (column policies: or the column). `data_type` matches `type_snapshot.column_type` as written;
 * `data_type_category` matches the category `dataTypeCategoryOf` derives from it. A column without a type never
 * matches a policy filtering on either.
 */
import { isJsonObject, type JsonObject, type ObjectKind } from '../model/index.js';
import type { CheckTarget } from '../catalog/index.js';
import { policyOrigin, type CheckOrigin } from './checkOrigin.js';
import { numberCheckPlaces, type CheckPlaces } from './checkPlaces.js';
import { flattenChecks, type FlatCheck, type PlaceNumbering } from './checkSlots.js';
import { compileNamePattern, type NamePattern } from './namePattern.js';
import { numberOf, type ColumnSubject, type TableSubject } from './subjects.js';

export const DEFAULT_POLICY_PRIORITY = 1000;

/** A policy as the store or the repository holds it; objects of other kinds are ignored. */
export interface PolicyObject {
  kind: ObjectKind;
  name: string;
  spec: JsonObject;
}

export interface CompiledPolicy {
  readonly name: string;
  readonly target: CheckTarget;
  readonly priority: number;
  readonly disabled: boolean;
  readonly spec: JsonObject;
  /** The origin recorded on the checks this policy contributes (one object, shared). */
  readonly origin: CheckOrigin;
  /** The checks the policy writes, flattened once. */
  readonly checks: readonly FlatCheck[];
  /** The whole target of a table policy; for a column policy, its table part with the table's labels. */
  matchesTable(table: TableSubject): boolean;
  /** The fields of the target about the table, without `label`: the same answer for every column of a table. */
  matchesTableFields(table: TableSubject): boolean;
  /** The rest of a column policy's target (`label` over the column's labels too, column, data type). */
  matchesColumnFields(column: ColumnSubject): boolean;
  /** The whole target of a column policy. */
  matchesColumn(column: ColumnSubject): boolean;
}

export interface CompiledPolicies {
  /** Table policies in the order they apply, disabled ones included (flagged). */
  readonly table: readonly CompiledPolicy[];
  /** Column policies in the order they apply, disabled ones included (flagged). */
  readonly column: readonly CompiledPolicy[];
  /** The numbered places the policies write checks to (used while evaluating; one evaluation at a time). */
  readonly places: CheckPlaces;
}

export function compilePolicies(policies: readonly PolicyObject[]): CompiledPolicies {
  const table: CompiledPolicy[] = [];
  const column: CompiledPolicy[] = [];
  const numbering = numberCheckPlaces();
  for (const policy of policies) {
    if (policy.kind === 'default_table_checks') table.push(compilePolicy(policy, 'table', numbering.number));
    else if (policy.kind === 'default_column_checks') column.push(compilePolicy(policy, 'column', numbering.number));
  }
  table.sort(byApplicationOrder);
  column.sort(byApplicationOrder);
  return { table, column, places: numbering.places() };
}

/** Accepts policies compiled already or not; compiling is the caller's job when many tables are evaluated. */
export function asCompiled(policies: CompiledPolicies | readonly PolicyObject[]): CompiledPolicies {
  return isCompiled(policies) ? policies : compilePolicies(policies);
}

function isCompiled(policies: CompiledPolicies | readonly PolicyObject[]): policies is CompiledPolicies {
  return !Array.isArray(policies);
}

function byApplicationOrder(a: CompiledPolicy, b: CompiledPolicy): number {
  return a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function compilePolicy(policy: PolicyObject, target: CheckTarget, numbering: PlaceNumbering): CompiledPolicy {
  const spec = policy.spec;
  const rawTarget = isJsonObject(spec.target) ? spec.target : {};
  const text = (key: string): NamePattern | undefined => {
    const value = rawTarget[key];
    return compileNamePattern(typeof value === 'number' || typeof value === 'boolean' ? String(value) : value);
  };
  const connection = text('connection');
  const schema = text('schema');
  const tableName = text('table');
  const stage = text('stage');
  const label = text('label');
  const tablePriority = numberOf(rawTarget.table_priority);
  const column = target === 'column' ? text('column') : undefined;
  const dataType = target === 'column' ? text('data_type') : undefined;
  const dataTypeCategory = target === 'column' ? text('data_type_category') : undefined;

  const matchesTableFields = (t: TableSubject): boolean =>
    (connection === undefined || connection.matches(t.connection)) &&
    (schema === undefined || schema.matches(t.schema)) &&
    (tableName === undefined || tableName.matches(t.table)) &&
    (stage === undefined || (t.stage !== undefined && stage.matches(t.stage))) &&
    (tablePriority === undefined || (t.priority !== undefined && t.priority <= tablePriority));

  const priority = numberOf(spec.priority) ?? DEFAULT_POLICY_PRIORITY;
  const origin = policyOrigin(policy.name, priority);
  const matchesColumnFields = (c: ColumnSubject): boolean =>
    (label === undefined || label.matchesAny(c.labels)) &&
    (column === undefined || column.matches(c.column)) &&
    (dataType === undefined || (c.columnType !== undefined && dataType.matches(c.columnType))) &&
    (dataTypeCategory === undefined || (c.category !== undefined && dataTypeCategory.matches(c.category)));

  return {
    name: policy.name,
    target,
    priority,
    disabled: spec.disabled === true,
    spec,
    origin,
    checks: flattenChecks(spec, origin, numbering),
    matchesTable: (t) => matchesTableFields(t) && (label === undefined || label.matchesAny(t.labels)),
    matchesTableFields,
    matchesColumnFields,
    matchesColumn: (c) => matchesTableFields(c.table) && matchesColumnFields(c),
  };
}
