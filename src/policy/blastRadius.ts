/**
 * The blast radius of a policy change: which tables (and, for a column policy, which columns) the policy
 * reached before the change and after it. A reviewer sees "this edit widens the policy from 3 tables to 40"
 * before merging, not after the checks start failing. Only the target decides, as in policiesMatchingTable;
 * a disabled policy reaches nothing (it applies no checks). Pure: tables and policies in, counts out.
 */
import { isJsonObject, tableKey, type JsonObject, type ObjectKind } from '../model/index.js';
import { compilePolicies, type PolicyObject } from './compilePolicies.js';
import { policiesMatchingColumn, policiesMatchingTable } from './effectiveChecks.js';
import { columnNamesOf, tableRefOf, type TableRef } from './subjects.js';

/** How many names of gained and lost tables or columns are listed. */
export const BLAST_RADIUS_EXAMPLES = 5;

export type PolicyKind = Extract<ObjectKind, 'default_table_checks' | 'default_column_checks'>;

export function isPolicyKind(kind: ObjectKind): kind is PolicyKind {
  return kind === 'default_table_checks' || kind === 'default_column_checks';
}

/** The tables policies are matched against, with their connections' specs (for connection labels). */
export interface TableUniverse {
  tables: TableRef[];
  connections: Map<string, JsonObject>;
}

export function tableUniverse(objects: Iterable<{ kind: ObjectKind; name: string; spec: JsonObject }>): TableUniverse {
  const tables: TableRef[] = [];
  const connections = new Map<string, JsonObject>();
  for (const o of objects) {
    if (o.kind === 'source') connections.set(o.name, o.spec);
    if (o.kind !== 'table') continue;
    const ref = tableRefOf(o.name, o.spec);
    if (ref) tables.push(ref);
  }
  return { tables, connections };
}

/** What one policy reaches: table names (`connection/schema.table`), and column names (`….table.column`) for column policies. */
export interface Reach {
  tables: Set<string>;
  /** null for a table policy. */
  columns: Set<string> | null;
}

/** Every policy's reach in one pass over the tables; keyed by `kind\tname`. */
export function policyReach(policies: readonly PolicyObject[], universe: TableUniverse): Map<string, Reach> {
  const reach = new Map<string, Reach>();
  for (const p of policies) {
    if (p.kind === 'default_table_checks') reach.set(reachKey(p.kind, p.name), { tables: new Set(), columns: null });
    if (p.kind === 'default_column_checks') reach.set(reachKey(p.kind, p.name), { tables: new Set(), columns: new Set() });
  }
  if (reach.size === 0) return reach;
  const compiled = compilePolicies(policies);
  const hasColumnPolicies = compiled.column.some((p) => !p.disabled);
  for (const table of universe.tables) {
    const tableName = tableKey(table);
    const connectionSpec = universe.connections.get(table.connection);
    for (const name of policiesMatchingTable(table, connectionSpec, compiled)) {
      reach.get(reachKey('default_table_checks', name))!.tables.add(tableName);
    }
    if (!hasColumnPolicies) continue;
    for (const column of columnNamesOf(table.spec)) {
      for (const name of policiesMatchingColumn(table, column, connectionSpec, compiled)) {
        const r = reach.get(reachKey('default_column_checks', name))!;
        r.tables.add(tableName);
        r.columns!.add(`${tableName}.${column}`);
      }
    }
  }
  return reach;
}

export function reachKey(kind: PolicyKind, name: string): string {
  return `${kind}\t${name}`;
}

export interface ReachCount {
  tables: number;
  /** null for a table policy. */
  columns: number | null;
}

export interface NameDelta {
  count: number;
  /** The first BLAST_RADIUS_EXAMPLES names, sorted. */
  first: string[];
}

/** The reach before and after a change; `before` is null for a new policy, `after` for a deleted one. */
export interface ReachComparison {
  before: ReachCount | null;
  after: ReachCount | null;
  tables_gained: NameDelta;
  tables_lost: NameDelta;
  /** null for a table policy. */
  columns_gained: NameDelta | null;
  columns_lost: NameDelta | null;
}

export function compareReach(before: Reach | undefined, after: Reach | undefined): ReachComparison {
  const empty = new Set<string>();
  const isColumnPolicy = (before ?? after)?.columns != null;
  return {
    before: before ? countOf(before) : null,
    after: after ? countOf(after) : null,
    tables_gained: delta(after?.tables ?? empty, before?.tables ?? empty),
    tables_lost: delta(before?.tables ?? empty, after?.tables ?? empty),
    columns_gained: isColumnPolicy ? delta(after?.columns ?? empty, before?.columns ?? empty) : null,
    columns_lost: isColumnPolicy ? delta(before?.columns ?? empty, after?.columns ?? empty) : null,
  };
}

function countOf(reach: Reach): ReachCount {
  return { tables: reach.tables.size, columns: reach.columns ? reach.columns.size : null };
}

/** Names in `a` and not in `b`. */
function delta(a: Set<string>, b: Set<string>): NameDelta {
  const names: string[] = [];
  for (const name of a) if (!b.has(name)) names.push(name);
  names.sort();
  return { count: names.length, first: names.slice(0, BLAST_RADIUS_EXAMPLES) };
}

/** True when the spec says `disabled: true`. */
export function isDisabledPolicy(spec: JsonObject | undefined): boolean {
  return isJsonObject(spec) && spec.disabled === true;
}
