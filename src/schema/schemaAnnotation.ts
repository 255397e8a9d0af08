/**
 * The generated schemas mark the objects whose errors need a domain-specific message with an `x-dqctl`
 * annotation (editors and other validators ignore unknown keywords). The translator reads it from the ajv
 * error's parentSchema, so that "unknown key" becomes "unknown check", "unknown rule parameter", ... without
 * guessing from the shape of the document path.
 */
import type { CheckTarget, CheckType, TimeScale } from '../catalog/index.js';

export const ANNOTATION_KEYWORD = 'x-dqctl';

export type SchemaAnnotation =
  /** A table or column spec, or a policy spec: holds the check containers of `target`. */
  | { role: 'check_owner'; target: CheckTarget }
  /** `monitoring_checks` / `partitioned_checks`: keys are the time scales. */
  | { role: 'time_scales'; target: CheckTarget; checkType: CheckType }
  /** `profiling_checks`, `monitoring_checks.daily`, ...: keys are categories. */
  | { role: 'container'; target: CheckTarget; checkType: CheckType; timeScale: TimeScale | null }
  /** A category (or one table comparison inside `comparisons`): keys are check names. */
  | { role: 'category'; target: CheckTarget; checkType: CheckType; timeScale: TimeScale | null; category: string; comparison?: true }
  /** The `parameters` object of a check. */
  | { role: 'sensor_parameters'; sensor: string }
  /** A `warning` / `error` / `fatal` object of a check. */
  | { role: 'rule_parameters'; rule: string };

export function annotationOf(schema: unknown): SchemaAnnotation | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const value = (schema as Record<string, unknown>)[ANNOTATION_KEYWORD];
  return typeof value === 'object' && value !== null ? (value as SchemaAnnotation) : undefined;
}
