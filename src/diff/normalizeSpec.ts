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

/** Whether an empty object at `path` (its keys from the spec's root) means something and is kept. */
type KeepEmpty = (path: readonly string[]) => boolean;

// Runs on every spec of every load (1.25M columns at 100,000 tables), so it walks with one path stack and copies
// scalars without a call; keys are sorted only when they are not already in order.
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
  if (typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (!inOrder(keys)) keys.sort();
  const out: JsonObject = {};
  let kept = 0;
  for (const key of keys) {
    const child = value[key];
    if (child === null || (key === 'disabled' && child === false)) continue;
    if (typeof child !== 'object') {
      out[key] = child;
      kept++;
      continue;
    }
    path.push(key);
    const n = normalizeValue(child, path, keepEmpty);
    if (n !== undefined) {
      out[key] = n;
      kept++;
    } else if (!Array.isArray(child) && keepEmpty(path)) {
      out[key] = {};
      kept++;
    }
    path.pop();
  }
  if (kept === 0 && !keepEmpty(path)) return undefined;
  return out;
}

function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}

const CONTAINERS = new Set(['profiling_checks', 'monitoring_checks', 'partitioned_checks']);
const SEVERITIES: ReadonlySet<string> = new Set(RULE_SEVERITIES);

/** True for paths of check nodes and severity nodes below a checks container (the path from `from` on). */
function isCheckPath(path: readonly string[], from = 0): boolean {
  const container = path[from];
  if (!CONTAINERS.has(container)) return false;
  const checkDepth = container === 'profiling_checks' ? 3 : 4;
  const length = path.length - from;
  if (length === checkDepth) return true;
  return length === checkDepth + 1 && SEVERITIES.has(path[from + checkDepth]);
}

function keepEmptyFor(kind: ObjectKind): KeepEmpty {
  switch (kind) {
    case 'table':
      return (path) => {
        if (path.length === 2 && path[0] === 'columns') return true;
        if (path[0] === 'columns' && path.length > 2) return isCheckPath(path, 2);
        return isCheckPath(path);
      };
    case 'default_table_checks':
    case 'default_column_checks':
      return (path) => isCheckPath(path);
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
