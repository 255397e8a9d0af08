import { DqError, type Capabilities, type JsonObject, type LiveObject } from '../model/index.js';
import {
  applyCheckContainerModel,
  checkContainerModel,
  checkContainerModelOfDqops17,
  DEFAULT_POLICY_PRIORITY,
  effectiveContainer,
  ownChecks,
  type CheckContainerModel,
} from '../policy/index.js';
import { validateDocument, type SchemaViolation } from '../schema/index.js';
import { containerSpecOf, withContainerSpec, type CheckContainerAddress } from './checkContainerSpec.js';

/**
 * Quality policies (DQOps's default checks patterns, kinds `default_table_checks` and `default_column_checks`)
 * through the API: a policy written is validated as its file would be, and its check containers are read and
 * written as CheckContainerModels of the policy's own checks.
 */
export type PolicyKind = 'default_table_checks' | 'default_column_checks';

/** A policy's priority as the list models show it (the default when the spec has none). */
export function policyPriority(spec: JsonObject): number {
  return typeof spec.priority === 'number' ? spec.priority : DEFAULT_POLICY_PRIORITY;
}

/**
 * Refuses a spec that a policy file could not hold: 400 BODY_INVALID with the violations, each located by a
 * JSON pointer into the request body (`where` maps a path inside the spec to the body's pointer).
 */
export function refuseInvalidPolicySpec(kind: PolicyKind, spec: JsonObject, where: (specPath: (string | number)[]) => string | undefined): JsonObject {
  const violations = validateDocument(kind, { apiVersion: 'dqo/v1', kind, spec });
  if (violations.length === 0) return spec;
  const listed = violations.map((v: SchemaViolation) => {
    const inSpec = v.path[0] === 'spec' ? v.path.slice(1) : v.path;
    return {
      path: where(inSpec) ?? `/${inSpec.join('/')}`,
      message: v.summary,
      code: v.code,
      ...(v.detail ? { detail: v.detail } : {}),
      ...(v.suggestions ? { suggestions: v.suggestions } : {}),
    };
  });
  throw new DqError('BODY_INVALID', `the policy is invalid: ${listed[0].path}: ${listed[0].message}`, { violations: listed });
}

/** Every catalog check of one container of a policy, configured by the policy itself (`default_check` false) or not. */
export function policyCheckContainerModel(
  policy: LiveObject,
  target: 'table' | 'column',
  container: CheckContainerAddress,
  capabilities: Capabilities,
  generation: ModelGeneration = 'current',
): CheckContainerModel {
  const own = effectiveContainer(ownChecks(policy.spec), container.checkType, container.timeScale);
  const model = checkContainerModel(target, container.checkType, container.timeScale, own, capabilities);
  return generation === 'dqops_1_7' ? checkContainerModelOfDqops17(model) : model;
}

/**
 * Which release's models a family of routes answers: the older "default checks patterns" routes come from
 * DQOps 1.7.0 and answer its models (src/policy/dqops17Models.ts), the "quality policies" routes the current ones.
 */
export type ModelGeneration = 'dqops_1_7' | 'current';

/** The policy spec with one container written from a model (not yet validated). */
export function policyWithCheckContainerModel(spec: JsonObject, container: CheckContainerAddress, model: CheckContainerModel): JsonObject {
  const written = applyCheckContainerModel(model, { previous: containerSpecOf(spec, container) });
  return withContainerSpec(spec, container, written);
}
