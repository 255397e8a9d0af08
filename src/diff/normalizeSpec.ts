import { isJsonObject, RULE_SEVERITIES, type JsonObject, type JsonValue, type ObjectKind } from '../model/index.js';

/**
 * One canonical form per meaning, applied to desired AND live specs before they are compared or hashed, so
 * that the same meaning never shows up as a change:
 * - `key:` with no value (null) is the same as a missing key;
 * - an empty container (`profiling_checks: {}`, `labels: []`, `columns: {}`) is the same as none;
 * - `disabled: false` is the default;
 * - keys are sorted;
 * - policies get their default `priority: 1000`; a connection's port is a string, as DQOps stores it.
 * Empty objects that MEAN something are kept: a check `{}` (enabled, collects its sensor value only),
 * a severity `{}` inside a check (the rule enabled with defaults), and a column `{}` (the column is declared).
 */
export const DEFAULT_POLICY_PRIORITY = 1000;

export function normalizeSpec(kind: ObjectKind, spec: JsonValue | undefined): JsonObject {
  const raw = isJsonObject(spec) ? spec : {};
  const normalized = (normalizeValue(raw, [], keepEmptyFor(kind)) as JsonObject | undefined) ?? {};
  if (kind === 'default_table_checks' || kind === 'default_column_checks') {
    if (normalized.priority === undefined) normalized.priority = DEFAULT_POLICY_PRIORITY;
    return sortKeys(normalized);
  }
  if (kind === 'source') {
    for (const block of Object.values(normalized)) {
      if (isJsonObject(block) && typeof block.port === 'number') block.port = String(block.port);
    }
  }
  return normalized;
}

type KeepEmpty = (path: readonly string[]) => boolean;

function normalizeValue(value: JsonValue, path: string[], keepEmpty: KeepEmpty): JsonValue | undefined {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const items: JsonValue[] = [];
    for (const item of value) {
      const n = normalizeValue(item, path, keepEmpty);
      items.push(n === undefined ? null : n);
    }
    return items.length === 0 ? undefined : items;
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) {
      const child = value[key];
      if (key === 'disabled' && child === false) continue;
      const childPath = [...path, key];
      const n = normalizeValue(child, childPath, keepEmpty);
      if (n === undefined) {
        if (isJsonObject(child) && keepEmpty(childPath)) out[key] = {};
        continue;
      }
      out[key] = n;
    }
    if (Object.keys(out).length === 0 && !keepEmpty(path)) return undefined;
    return out;
  }
  return value;
}

const CONTAINERS = new Set(['profiling_checks', 'monitoring_checks', 'partitioned_checks']);
const SEVERITIES: ReadonlySet<string> = new Set(RULE_SEVERITIES);

/** True for paths of check nodes and severity nodes below a checks container. */
function isCheckPath(path: readonly string[]): boolean {
  const container = path[0];
  if (!CONTAINERS.has(container)) return false;
  const checkDepth = container === 'profiling_checks' ? 3 : 4;
  if (path.length === checkDepth) return true;
  return path.length === checkDepth + 1 && SEVERITIES.has(path[checkDepth]);
}

function keepEmptyFor(kind: ObjectKind): KeepEmpty {
  switch (kind) {
    case 'table':
      return (path) => {
        if (path.length === 2 && path[0] === 'columns') return true;
        if (path[0] === 'columns' && path.length > 2) return isCheckPath(path.slice(2));
        return isCheckPath(path);
      };
    case 'default_table_checks':
    case 'default_column_checks':
      return isCheckPath;
    case 'source':
    case 'rule':
    case 'sensor':
    case 'check':
    case 'dictionary':
    case 'default_schedules':
    case 'default_notifications':
      return () => false;
  }
}

export function sortKeys(object: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object).sort()) out[key] = object[key];
  return out;
}
