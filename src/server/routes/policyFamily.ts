import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DqError, isJsonObject, type CheckType, type JsonObject, type LiveObject, type TimeScale } from '../../model/index.js';
import {
  policyCheckContainerModel,
  policyPriority,
  policyWithCheckContainerModel,
  refuseInvalidPolicySpec,
  type ModelGeneration,
  type PolicyKind,
} from '../../app/checkPolicies.js';
import type { CheckContainerModel } from '../../app/tableCheckContainers.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { capabilitiesOf, type ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * One family of policy routes: DQOps serves the same stored policies (kinds `default_table_checks` and
 * `default_column_checks`) under two families of paths, the older "default checks patterns"
 * (`/default/checks/{table|column}`, `pattern_name` / `pattern_spec`) and the newer "quality policies"
 * (`/policies/checks/{table|column}`, `policy_name` / `policy_spec`), with the same segments after the name.
 * This factory registers one family for one target, so the four families cannot drift apart.
 *
 * Each family answers its own release's check models: the older one DQOps 1.7.0's (no display hint but
 * `textarea`, no `do_not_schedule`), the newer one the current release's.
 *
 * Semantics (dqops-compat.md sections 1 and 2): POST creates (201, 409 when the name exists); PUT of the policy,
 * of its target or of one check container is an upsert (204, never 404); DELETE 204 / 404; copyfrom 201, 404
 * when the source is missing, 409 when the target name exists. Every write is validated as a whole policy file
 * would be (400 with the violations), so the API cannot store what `dqctl validate` would refuse.
 */
export type PolicyTarget = 'table' | 'column';
export type { PolicyKind };

export interface PolicyFamilyOptions {
  /** Path under /api, e.g. `/default/checks/table`. */
  prefix: string;
  kind: PolicyKind;
  target: PolicyTarget;
  /** Field names of the models: `pattern_name` / `pattern_spec` (older family) or `policy_name` / `policy_spec`. */
  nameField: 'pattern_name' | 'policy_name';
  specField: 'pattern_spec' | 'policy_spec';
  /** schemas/api model names: the full model and the list model. */
  model: string;
  listModel: string;
  /** How DQOps names the family's operations (operationIds of the OpenAPI document). */
  naming: 'default_checks_pattern' | 'quality_policy';
  /** Whose check models the family answers: DQOps 1.7.0's (the older family) or the current release's. */
  generation: ModelGeneration;
  tag: string;
}

/** The fields a policy target may hold, per target. */
export const TARGET_FIELDS: Readonly<Record<PolicyTarget, readonly string[]>> = {
  table: ['connection', 'schema', 'table', 'stage', 'table_priority', 'label'],
  column: ['connection', 'schema', 'table', 'stage', 'table_priority', 'label', 'column', 'data_type', 'data_type_category'],
};

/** A check container of a policy spec, as its path segment after the name. */
export interface PolicyContainer {
  segment: 'profiling' | 'monitoring/daily' | 'monitoring/monthly' | 'partitioned/daily' | 'partitioned/monthly';
  checkType: CheckType;
  timeScale: TimeScale | null;
}

export const POLICY_CONTAINERS: readonly PolicyContainer[] = [
  { segment: 'profiling', checkType: 'profiling', timeScale: null },
  { segment: 'monitoring/daily', checkType: 'monitoring', timeScale: 'daily' },
  { segment: 'monitoring/monthly', checkType: 'monitoring', timeScale: 'monthly' },
  { segment: 'partitioned/daily', checkType: 'partitioned', timeScale: 'daily' },
  { segment: 'partitioned/monthly', checkType: 'partitioned', timeScale: 'monthly' },
];

/** DQOps's operation id of one route of a family (the route's operationId in the OpenAPI document). */
export type OperationVerb = 'get_all' | 'get' | 'create' | 'update' | 'delete' | 'copy_from';

export function operationId(
  options: Pick<PolicyFamilyOptions, 'naming' | 'target'>,
  verb: OperationVerb,
  part?: 'target' | PolicyContainer,
): string {
  const { target } = options;
  const container = typeof part === 'object' ? part.segment.replace('/', '_') : undefined;
  if (options.naming === 'default_checks_pattern') {
    if (verb === 'get_all') return `get_all_default_${target}_checks_patterns`;
    if (container) return `${verb}_default_${container}_${target}_checks_pattern`;
    return `${verb}_default_${target}_checks_pattern${part === 'target' ? '_target' : ''}`;
  }
  if (verb === 'get_all') return `get_${target}_quality_policies`;
  if (container) return `${verb}_${container}_${target}_quality_policy`;
  return `${verb}_${target}_quality_policy${part === 'target' ? '_target' : ''}`;
}

/** The target as the list models show it: only the fields a target may hold. */
function targetOf(spec: JsonObject, target: PolicyTarget): JsonObject {
  const stored = isJsonObject(spec.target) ? spec.target : {};
  const out: JsonObject = {};
  for (const field of TARGET_FIELDS[target]) if (stored[field] !== undefined && stored[field] !== null) out[field] = stored[field];
  return out;
}

const pointer = (prefix: string, path: (string | number)[]) => [prefix, ...path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1'))].join('/');

/** Sorts by name as the store's text order would, independent of locale. */
const byName = (a: LiveObject, b: LiveObject) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function registerPolicyFamily(api: FastifyInstance, context: ServerContext, options: PolicyFamilyOptions): void {
  const { prefix, kind, target, nameField, specField, model, listModel } = options;
  const tags = [options.tag];
  const targetField = `target_${target}`;
  const what = `${target} policy`;
  /** operationId and summary of a route: DQOps's operation id, then what it does. */
  const doc = (verb: OperationVerb, part: 'target' | PolicyContainer | undefined, text: string) => {
    const id = operationId(options, verb, part);
    return { tags, operationId: id, summary: `${id}: ${text}` };
  };
  const nameParams = (...names: string[]) => ({
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string', description: 'policy name; a name in a sub-folder travels as one %2F-encoded segment' }])),
    required: names,
  });
  const params = nameParams('name');

  const nameOf = (request: FastifyRequest, param = 'name') =>
    checkName('policy name', (request.params as Record<string, string | undefined>)[param] ?? '', { slashes: true });
  const writer = (request: FastifyRequest) => ({ caller: `api:${request.caller.name}` });
  const capabilities = (request: FastifyRequest, live?: LiveObject) =>
    capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });
  const requirePolicy = async (name: string): Promise<LiveObject> => {
    const live = await context.objects.get(kind, name);
    if (!live) throw new DqError('NOT_FOUND', `${what} ${JSON.stringify(name)} not found`);
    return live;
  };

  const fullModel = (live: LiveObject, request: FastifyRequest): JsonObject => ({
    [nameField]: live.name,
    [specField]: live.spec,
    can_edit: capabilities(request, live).can_edit,
  });
  const listEntry = (live: LiveObject, request: FastifyRequest): JsonObject => ({
    [nameField]: live.name,
    priority: policyPriority(live.spec),
    disabled: live.spec.disabled === true,
    [targetField]: targetOf(live.spec, target),
    can_edit: capabilities(request, live).can_edit,
  });

  /** A full-model body → its validated spec (400 without one). */
  const specFromBody = (body: JsonObject): JsonObject => {
    const spec = body[specField];
    if (!isJsonObject(spec)) {
      throw new DqError('BODY_INVALID', `the body needs "${specField}", the policy spec`, {
        violations: [{ path: '/', message: `must have property "${specField}"`, code: 'missing_key' }],
      });
    }
    return refuseInvalidPolicySpec(kind, spec, (path) => pointer(`/${specField}`, path));
  };
  /** A list-model body → the target it sets ({} when it has none: a target that filters nothing). */
  const targetFromBody = (body: JsonObject): JsonObject => (isJsonObject(body[targetField]) ? body[targetField] : {});
  /** A list-model body → a new policy: priority, disabled and target (the checks come later). */
  const newSpecFromListBody = (body: JsonObject): JsonObject => {
    const spec: JsonObject = { target: targetFromBody(body) };
    if (typeof body.priority === 'number') spec.priority = body.priority;
    if (body.disabled === true) spec.disabled = true;
    return spec;
  };
  /** Validates a spec written from a list-model body; violations point into that body. */
  const validateFromListBody = (spec: JsonObject) =>
    refuseInvalidPolicySpec(kind, spec, (path) => {
      if (path[0] === 'target') return pointer(`/${targetField}`, path.slice(1));
      if (path.length === 1 && (path[0] === 'priority' || path[0] === 'disabled')) return `/${path[0]}`;
      return undefined;
    });

  // The list is built once per version of the cached policy list and per caller role (can_edit depends on both).
  const listCache = new WeakMap<readonly LiveObject[], Map<string, JsonObject[]>>();
  api.get(prefix, { schema: { ...doc('get_all', undefined, `every ${what}, sorted by name`), response: { 200: arrayOf(listModel) } } }, async (request) => {
    const policies = await context.objects.list(kind);
    const byRole = listCache.get(policies) ?? new Map<string, JsonObject[]>();
    listCache.set(policies, byRole);
    let entries = byRole.get(request.caller.role);
    if (!entries) {
      entries = [...policies].sort(byName).map((live) => listEntry(live, request));
      byRole.set(request.caller.role, entries);
    }
    return entries;
  });

  api.get(
    `${prefix}/:name`,
    { schema: { ...doc('get', undefined, `a ${what} with its full spec`), params, response: { 200: ref(model) } } },
    async (request) => fullModel(await requirePolicy(nameOf(request)), request),
  );

  api.post(
    `${prefix}/:name`,
    { schema: { ...doc('create', undefined, `a ${what} from a full spec (409 when the name exists)`), params, body: ref(model) } },
    async (request, reply) => {
      const name = nameOf(request);
      await context.objects.create(kind, name, specFromBody(request.body as JsonObject), writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    `${prefix}/:name`,
    { schema: { ...doc('update', undefined, `replaces the spec of a ${what} (creates it when missing)`), params, body: ref(model) } },
    async (request, reply) => {
      const name = nameOf(request);
      const spec = specFromBody(request.body as JsonObject);
      await context.objects.upsert(kind, name, writer(request), () => ({ spec }));
      return reply.status(204).send();
    },
  );

  api.delete(`${prefix}/:name`, { schema: { ...doc('delete', undefined, `deletes a ${what}`), params } }, async (request, reply) => {
    await context.objects.delete(kind, nameOf(request), writer(request));
    return reply.status(204).send();
  });

  api.get(
    `${prefix}/:name/target`,
    { schema: { ...doc('get', 'target', `name, priority, disabled flag and target of a ${what}`), params, response: { 200: ref(listModel) } } },
    async (request) => listEntry(await requirePolicy(nameOf(request)), request),
  );

  api.post(
    `${prefix}/:name/target`,
    { schema: { ...doc('create', 'target', `a ${what} with only a target, priority and disabled flag (409 when the name exists)`), params, body: ref(listModel) } },
    async (request, reply) => {
      const name = nameOf(request);
      const spec = validateFromListBody(newSpecFromListBody(request.body as JsonObject));
      await context.objects.create(kind, name, spec, writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    `${prefix}/:name/target`,
    { schema: { ...doc('update', 'target', `replaces only the target of a ${what} (creates the policy when missing)`), params, body: ref(listModel) } },
    async (request, reply) => {
      const name = nameOf(request);
      const body = request.body as JsonObject;
      await context.objects.upsert(kind, name, writer(request), (current) => ({
        spec: validateFromListBody(current ? { ...current.spec, target: targetFromBody(body) } : newSpecFromListBody(body)),
      }));
      return reply.status(204).send();
    },
  );

  api.post(
    `${prefix}/:targetName/copyfrom/:sourceName`,
    {
      schema: {
        ...doc('copy_from', undefined, `a new ${what} with the spec of another (404 without the source, 409 when the new name exists)`),
        params: nameParams('targetName', 'sourceName'),
      },
    },
    async (request, reply) => {
      const targetName = nameOf(request, 'targetName');
      const source = await requirePolicy(nameOf(request, 'sourceName'));
      await context.objects.create(kind, targetName, source.spec, writer(request));
      return reply.status(201).send();
    },
  );

  // The check containers: GET lists every catalog check of the container, configured (by the policy itself,
  // so `default_check` is false) or not; PUT writes only that container of the spec (an upsert: a missing
  // policy is created with just these checks). Violations point into the policy spec.
  for (const container of POLICY_CONTAINERS) {
    const checks = container.timeScale === null ? container.checkType : `${container.checkType} ${container.timeScale}`;
    api.get(
      `${prefix}/:name/${container.segment}`,
      { schema: { ...doc('get', container, `every ${checks} check of a ${what}, configured or not`), params, response: { 200: ref('CheckContainerModel') } } },
      async (request) => {
        const live = await requirePolicy(nameOf(request));
        return policyCheckContainerModel(live, target, container, capabilities(request, live), options.generation);
      },
    );
    api.put(
      `${prefix}/:name/${container.segment}`,
      { schema: { ...doc('update', container, `sets the ${checks} checks of a ${what} (creates the policy when missing)`), params, body: ref('CheckContainerModel') } },
      async (request, reply) => {
        const name = nameOf(request);
        const model = request.body as CheckContainerModel;
        await context.objects.upsert(kind, name, writer(request), (current) => {
          const spec = current?.spec ?? {};
          return { spec: refuseInvalidPolicySpec(kind, policyWithCheckContainerModel(spec, container, model), (path) => pointer('', path)) };
        });
        return reply.status(204).send();
      },
    );
  }
}
