/** Plain values for the policy tests: tables, connections and policies as their specs are written in YAML. */
import type { JsonObject } from '../../src/model/index.js';
import type { PolicyObject, TableRef } from '../../src/policy/index.js';

export function table(name: string, spec: JsonObject = {}): TableRef {
  const [connection, rest] = name.split('/');
  const dot = rest.indexOf('.');
  return { connection, schema: rest.slice(0, dot), table: rest.slice(dot + 1), spec };
}

export function tablePolicy(name: string, spec: JsonObject): PolicyObject {
  return { kind: 'default_table_checks', name, spec };
}

export function columnPolicy(name: string, spec: JsonObject): PolicyObject {
  return { kind: 'default_column_checks', name, spec };
}

/** A table policy with one daily monitoring volume check. */
export function rowCountPolicy(name: string, target: JsonObject, extra: JsonObject = {}): PolicyObject {
  return tablePolicy(name, {
    target,
    monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } },
    ...extra,
  });
}
