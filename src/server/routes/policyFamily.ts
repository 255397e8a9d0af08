import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DqError, isJsonObject, type JsonObject, type LiveObject } from '../../model/index.js';
import { applyCheckContainerModel, checkContainerModel, effectiveContainer, ownChecks, type CheckContainerModel } from '../../policy/index.js';
import { validateDocument, type SchemaViolation } from '../../schema/index.js';
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
 * Semantics (dqops-compat.md sections 1 and 2): POST creates (201, 409 when the name exists); PUT of the policy,
 * of its target or of one check container is an upsert (204, never 404); DELETE 204 / 404; copyfrom 201, 404
 * when the source is missing, 409 when the target name exists. Every write is validated as a whole policy file
 * would be (400 with the violations), so the API cannot store what `dqctl validate` would refuse.
 */
export type PolicyTarget = 'table' | 'column';
export type PolicyKind = 'default_table_checks' | 'default_column_checks';

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
  /** How DQOps names the family's operations, for the route summaries. */
  naming: 'default_checks_pattern' | 'quality_policy';
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
  checkType: 'profiling' | 'monitoring' | 'partitioned';
  timeScale: 'daily' | 'monthly' | null;
}

export const POLICY_CONTAINERS: readonly PolicyContainer[] = [
  { segment: 'profiling', checkType: 'profiling', timeScale: null },
  { segment: 'monitoring/daily', checkType: 'monitoring', timeScale: 'daily' },
  { segment: 'monitoring/monthly', checkType: 'monitoring', timeScale: 'monthly' },
  { segment: 'partitioned/daily', checkType: 'partitioned', timeScale: 'daily' },
  { segment: 'partitioned/monthly', checkType: 'partitioned', timeScale: 'monthly' },
];

const CONTAINER_KEYS = { profiling: 'profiling_checks', monitoring: 'monitoring_checks', partitioned: 'partitioned_checks' } as const;

/** DQOps's operation id of one route of a family (shown as the route summary). */
export function operationId(
  options: Pick<PolicyFamilyOptions, 'naming' | 'target'>,
  verb: 'get_all' | 'get' | 'create' | 'update' | 'delete' | 'copy_from',
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

/** The container's part of a policy spec ({} when absent). */
export function containerSpecOf(spec: JsonObject, container: PolicyContainer): JsonObject {
  const outer = spec[CONTAINER_KEYS[container.checkType]];
  if (!isJsonObject(outer)) return {};
  if (container.timeScale === null) return outer;
  const inner = outer[container.timeScale];
  return isJsonObject(inner) ? inner : {};
}

/** The spec with one container replaced (normalization on write drops it when empty). */
export function withContainerSpec(spec: JsonObject, container: PolicyContainer, checks: JsonObject): JsonObject {
  const key = CONTAINER_KEYS[container.checkType];
  if (container.timeScale === null) return { ...spec, [key]: checks };
  const outer = isJsonObject(spec[key]) ? spec[key] : {};
  return { ...spec, [key]: { ...outer, [container.timeScale]: checks } };
}

/** The target as the list models show it: only the fields a target may hold. */
function targetOf(spec: JsonObject, target: PolicyTarget): JsonObject {
  const stored = isJsonObject(spec.target) ? spec.target : {};
  const out: JsonObject = {};
  for (const field of TARGET_FIELDS[target]) if (stored[field] !== undefined && stored[field] !== null) out[field] = stored[field];
  return out;
}

function priorityOf(spec: JsonObject): number {
  return typeof spec.priority === 'number' ? spec.priority : 1000;
}

/**
 * Refuses a spec that a policy file could not hold: 400 BODY_INVALID with the violations, each located by a
 * JSON pointer into the request body (`where` maps a path inside the spec to the body's pointer).
 */
function validateSpec(kind: PolicyKind, spec: JsonObject, where: (specPath: (string | number)[]) => string | undefined): JsonObject {
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

const pointer = (prefix: string, path: (string | number)[]) => [prefix, ...path.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1'))].join('/');

export interface PolicyRouteHelpers {
  /** The policy name from a path parameter, refused (400) when hostile. */
  nameOf(request: FastifyRequest, param?: string): string;
  canEdit(request: FastifyRequest, live?: LiveObject): boolean;
  writer(request: FastifyRequest): { caller: string };
  /** Validates a whole spec; violations are reported at `prefix` + the path inside the spec. */
  validate(spec: JsonObject, bodyPrefix: string): JsonObject;
}

export function registerPolicyFamily(api: FastifyInstance, context: ServerContext, options: PolicyFamilyOptions): void {
  const { prefix, kind, target, nameField, specField, model, listModel } = options;
  const tags = [options.tag];
  const targetField = `target_${target}`;
  const what = `${target} policy`;
  const op = (verb: Parameters<typeof operationId>[1], part?: Parameters<typeof operationId>[2]) => operationId(options, verb, part);

  const helpers: PolicyRouteHelpers = {
    nameOf: (request, param = 'name') => checkName('policy name', (request.params as Record<string, string>)[param] ?? '', { slashes: true }),
    canEdit: (request, live) =>
      capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' }).can_edit,
    writer: (request) => ({ caller: `api:${request.caller.name}` }),
    validate: (spec, bodyPrefix) => validateSpec(kind, spec, (path) => pointer(bodyPrefix, path)),
  };
  const { nameOf, canEdit, writer, validate } = helpers;
  const requirePolicy = async (name: string): Promise<LiveObject> => {
    const live = await context.objects.get(kind, name);
    if (!live) throw new DqError('NOT_FOUND', `${what} ${JSON.stringify(name)} not found`);
    return live;
  };

  const nameParam = (...names: string[]) => ({
    type: 'object',
    properties: Object.fromEntries(
      names.map((n) => [n, { type: 'string', description: 'policy name; a name in a sub-folder travels as one %2F-encoded segment' }]),
    ),
    required: names,
  });
  const params = nameParam('name');

  const fullModel = (name: string, live: LiveObject, request: FastifyRequest): JsonObject => ({
    [nameField]: name,
    [specField]: live.spec,
    can_edit: canEdit(request, live),
  });
  const listEntry = (live: LiveObject, request: FastifyRequest): JsonObject => ({
    [nameField]: live.name,
    priority: priorityOf(live.spec),
    disabled: live.spec.disabled === true,
    [targetField]: targetOf(live.spec, target),
    can_edit: canEdit(request, live),
  });
  /** A list model body → the target it sets ({} when the body has none: a target that filters nothing). */
  const targetFromBody = (body: JsonObject): JsonObject => (isJsonObject(body[targetField]) ? body[targetField] : {});
  /** Where a violation inside the spec sits in a list-model body. */
  const validateFromListBody = (spec: JsonObject) =>
    validateSpec(kind, spec, (path) => {
      if (path[0] === 'target') return pointer(`/${targetField}`, path.slice(1));
      if (path.length === 1 && (path[0] === 'priority' || path[0] === 'disabled')) return `/${path[0]}`;
      return undefined;
    });
  const specFromBody = (body: JsonObject): JsonObject => {
    const spec = body[specField];
    if (!isJsonObject(spec)) {
      throw new DqError('BODY_INVALID', `the body needs "${specField}", the policy spec`, {
        violations: [{ path: '/', message: `must have property "${specField}"`, code: 'missing_key' }],
      });
    }
    return validate(spec, `/${specField}`);
  };

  api.get(
    prefix,
    { schema: { tags, summary: `${op('get_all')}: every ${what}, sorted by name`, response: { 200: arrayOf(listModel) } } },
    async (request) => {
      const all = await context.objects.list(kind);
      return [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((live) => listEntry(live, request));
    },
  );

  api.get(
    `${prefix}/:name`,
    { schema: { tags, summary: `${op('get')}: a ${what} with its full spec`, params, response: { 200: ref(model) } } },
    async (request) => {
      const name = nameOf(request);
      return fullModel(name, await requirePolicy(name), request);
    },
  );

  api.post(
    `${prefix}/:name`,
    { schema: { tags, summary: `${op('create')}: a ${what} from a full spec (409 when the name exists)`, params, body: ref(model) } },
    async (request, reply) => {
      const name = nameOf(request);
      const spec = specFromBody(request.body as JsonObject);
      await context.objects.create(kind, name, spec, writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    `${prefix}/:name`,
    { schema: { tags, summary: `${op('update')}: replaces the spec of a ${what} (creates it when missing)`, params, body: ref(model) } },
    async (request, reply) => {
      const name = nameOf(request);
      const spec = specFromBody(request.body as JsonObject);
      await context.objects.upsert(kind, name, writer(request), () => ({ spec }));
      return reply.status(204).send();
    },
  );

  api.delete(
    `${prefix}/:name`,
    { schema: { tags, summary: `${op('delete')}: deletes a ${what}`, params } },
    async (request, reply) => {
      const name = nameOf(request);
      await context.objects.delete(kind, name, writer(request));
      return reply.status(204).send();
    },
  );

  api.get(
    `${prefix}/:name/target`,
    { schema: { tags, summary: `${op('get', 'target')}: name, priority, disabled and target of a ${what}`, params, response: { 200: ref(listModel) } } },
    async (request) => {
      const name = nameOf(request);
      return listEntry(await requirePolicy(name), request);
    },
  );

  api.post(
    `${prefix}/:name/target`,
    { schema: { tags, summary: `${op('create', 'target')}: a ${what} with only a target, priority and disabled flag`, params, body: ref(listModel) } },
    async (request, reply) => {
      const name = nameOf(request);
      const body = request.body as JsonObject;
      const spec = validateFromListBody(newSpecFromListBody(body, targetFromBody(body)));
      await context.objects.create(kind, name, spec, writer(request));
      return reply.status(201).send();
    },
  );

  api.put(
    `${prefix}/:name/target`,
    { schema: { tags, summary: `${op('update', 'target')}: replaces only the target of a ${what} (creates it when missing)`, params, body: ref(listModel) } },
    async (request, reply) => {
      const name = nameOf(request);
      const body = request.body as JsonObject;
      const target = targetFromBody(body);
      await context.objects.upsert(kind, name, writer(request), (current) => ({
        spec: validateFromListBody(current ? { ...current.spec, target } : newSpecFromListBody(body, target)),
      }));
      return reply.status(204).send();
    },
  );

  api.post(
    `${prefix}/:targetName/copyfrom/:sourceName`,
    {
      schema: {
        tags,
        summary: `${op('copy_from')}: a new ${what} with the spec of another (404 without the source, 409 when the new name exists)`,
        params: nameParam('targetName', 'sourceName'),
      },
    },
    async (request, reply) => {
      const targetName = nameOf(request, 'targetName');
      const sourceName = nameOf(request, 'sourceName');
      const source = await requirePolicy(sourceName);
      await context.objects.create(kind, targetName, source.spec, writer(request));
      return reply.status(201).send();
    },
  );

  registerContainerRoutes(api, context, options, helpers);
}

/** A new policy from a list-model body: priority, disabled and target (nothing else: the checks come later). */
function newSpecFromListBody(body: JsonObject, target: JsonObject): JsonObject {
  const spec: JsonObject = { target };
  if (body.priority !== undefined && body.priority !== null) spec.priority = body.priority;
  if (body.disabled === true) spec.disabled = true;
  return spec;
}

/**
 * The check containers of a policy: GET lists every catalog check of the container, configured (by the policy
 * itself: `default_check` false) or not; PUT writes only that container of the spec from a CheckContainerModel
 * (an upsert: a missing policy is created with just these checks).
 */
function registerContainerRoutes(api: FastifyInstance, context: ServerContext, options: PolicyFamilyOptions, helpers: PolicyRouteHelpers): void {
  const { prefix, kind, target } = options;
  const tags = [options.tag];
  const what = `${target} policy`;
  const params = { type: 'object', properties: { name: { type: 'string', description: 'policy name (%2F for a sub-folder)' } }, required: ['name'] };
  for (const container of POLICY_CONTAINERS) {
    const checks = container.timeScale === null ? container.checkType : `${container.checkType} ${container.timeScale}`;
    api.get(
      `${prefix}/:name/${container.segment}`,
      {
        schema: {
          tags,
          summary: `${operationId(options, 'get', container)}: every ${checks} check of a ${what}, configured or not`,
          params,
          response: { 200: ref('CheckContainerModel') },
        },
      },
      async (request) => {
        const name = helpers.nameOf(request);
        const live = await context.objects.get(kind, name);
        if (!live) throw new DqError('NOT_FOUND', `${what} ${JSON.stringify(name)} not found`);
        const capabilities = capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live.managedBy === 'git' });
        const own = effectiveContainer(ownChecks(live.spec), container.checkType, container.timeScale);
        return checkContainerModel(target, container.checkType, container.timeScale, own, capabilities);
      },
    );
    api.put(
      `${prefix}/:name/${container.segment}`,
      {
        schema: {
          tags,
          summary: `${operationId(options, 'update', container)}: sets the ${checks} checks of a ${what} (creates it when missing)`,
          params,
          body: ref('CheckContainerModel'),
        },
      },
      async (request, reply) => {
        const name = helpers.nameOf(request);
        const model = request.body as CheckContainerModel;
        await context.objects.upsert(kind, name, helpers.writer(request), (current) => {
          const spec = current?.spec ?? {};
          const checks = applyCheckContainerModel(model, { previous: containerSpecOf(spec, container) });
          return { spec: helpers.validate(withContainerSpec(spec, container, checks), '') };
        });
        return reply.status(204).send();
      },
    );
  }
}
