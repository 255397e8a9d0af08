import { isJsonObject, type CheckType, type JsonObject, type TimeScale } from '../model/index.js';

/**
 * Where one check container (profiling; monitoring or partitioned, daily or monthly) sits in a table, column or
 * policy spec: `profiling_checks`, `monitoring_checks.daily`, …; read ({} when absent) and replaced.
 */
export interface CheckContainerAddress {
  checkType: CheckType;
  /** null for profiling. */
  timeScale: TimeScale | null;
}

const CONTAINER_KEYS: Readonly<Record<CheckType, string>> = { profiling: 'profiling_checks', monitoring: 'monitoring_checks', partitioned: 'partitioned_checks' };

export function containerSpecOf(spec: JsonObject, container: CheckContainerAddress): JsonObject {
  const outer = spec[CONTAINER_KEYS[container.checkType]];
  if (!isJsonObject(outer)) return {};
  if (container.timeScale === null) return outer;
  const inner = outer[container.timeScale];
  return isJsonObject(inner) ? inner : {};
}

/** The spec with one container replaced (normalization on write drops it when empty). */
export function withContainerSpec(spec: JsonObject, container: CheckContainerAddress, checks: JsonObject): JsonObject {
  const key = CONTAINER_KEYS[container.checkType];
  if (container.timeScale === null) return { ...spec, [key]: checks };
  const outer = isJsonObject(spec[key]) ? spec[key] : {};
  return { ...spec, [key]: { ...outer, [container.timeScale]: checks } };
}
