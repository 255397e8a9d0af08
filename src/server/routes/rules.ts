import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getCheckCatalog, type CatalogRule } from '../../catalog/index.js';
import { DqError, isJsonObject, type JsonObject, type LiveObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { capabilitiesOf, type ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * Rules: the built-in ones (the check catalog's) and the custom ones (objects of kind rule), listed together.
 * GET answers the custom rule when one exists, else the built-in one; POST is 409 only over a custom rule
 * (a custom rule may override a built-in one); PUT is 404 only when neither exists; built-in rules cannot be
 * deleted. Names hold slashes: one `%2F`-encoded segment, or (as DQOps's Python client sends them) plain.
 */
interface RuleListModel {
  rule_name: string;
  full_rule_name: string;
  custom: boolean;
  built_in: boolean;
  can_edit: boolean;
}

interface RuleFolderModel {
  folders: Record<string, RuleFolderModel>;
  rules: RuleListModel[];
  all_rules: RuleListModel[];
}

function builtInSpec(rule: CatalogRule): JsonObject {
  const spec: JsonObject = {
    type: 'python',
    mode: rule.mode,
    fields: rule.parameters.map((p) => {
      const field: JsonObject = { field_name: p.name, display_name: p.name, help_text: '', data_type: p.type, required: p.required };
      if (p.allowedValues) field.allowed_values = [...p.allowedValues];
      if (p.default !== null && p.default !== undefined) field.default_value = p.default;
      return field;
    }),
  };
  if (rule.timeWindow) {
    spec.time_window = {
      prediction_time_window: rule.timeWindow.predictionTimeWindow,
      min_periods_with_readouts: rule.timeWindow.minPeriodsWithReadouts,
      historic_data_point_grouping: rule.timeWindow.historicDataPointGrouping,
    };
  }
  return spec;
}

function ruleModel(name: string, spec: JsonObject, pythonModule: string | undefined, custom: boolean, canEdit: boolean): JsonObject {
  const model: JsonObject = { rule_name: name, ...spec, custom, built_in: getCheckCatalog().rules.has(name), can_edit: canEdit };
  if (pythonModule !== undefined) model.rule_python_module_content = pythonModule;
  return model;
}

/** A RuleModel body → the stored spec and the Python module. */
function fromModel(body: JsonObject): { spec: JsonObject; attachments: JsonObject } {
  const spec: JsonObject = {};
  for (const key of ['type', 'java_class_name', 'mode', 'time_window', 'fields', 'parameters'] as const) {
    if (body[key] !== undefined) spec[key] = body[key];
  }
  const attachments: JsonObject = {};
  if (typeof body.rule_python_module_content === 'string') attachments.python_module = body.rule_python_module_content;
  return { spec, attachments };
}

function ruleNameOf(request: FastifyRequest): string {
  const raw = (request.params as { '*': string })['*'];
  return checkName('rule name', raw, { slashes: true });
}

function listModel(name: string, custom: boolean, canEdit: boolean): RuleListModel {
  const segments = name.split('/');
  return { rule_name: segments[segments.length - 1], full_rule_name: name, custom, built_in: getCheckCatalog().rules.has(name), can_edit: canEdit };
}

async function allRules(context: ServerContext, canEdit: boolean): Promise<RuleListModel[]> {
  const customs = await context.objects.list('rule');
  const customNames = new Set(customs.map((r) => r.name));
  const names = new Set([...getCheckCatalog().rules.keys(), ...customNames]);
  return [...names].sort().map((name) => listModel(name, customNames.has(name), canEdit));
}

function folderTree(rules: RuleListModel[]): RuleFolderModel {
  const root: RuleFolderModel = { folders: {}, rules: [], all_rules: rules };
  for (const rule of rules) {
    const segments = rule.full_rule_name.split('/');
    let folder = root;
    for (const segment of segments.slice(0, -1)) {
      folder.folders[segment] ??= { folders: {}, rules: [], all_rules: [] };
      folder = folder.folders[segment];
      folder.all_rules.push(rule);
    }
    folder.rules.push(rule);
  }
  return root;
}

export async function rulesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['rules'];
  const name = { type: 'object', properties: { '*': { type: 'string', description: 'full rule name, e.g. comparison%2Fmin_count' } } };
  const canEdit = (request: FastifyRequest, live?: LiveObject) =>
    capabilitiesOf(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' }).can_edit;

  api.get('/rules', { schema: { tags, summary: 'get_all_rules: built-in and custom rules', response: { 200: arrayOf('RuleListModel') } } }, async (request) =>
    allRules(context, canEdit(request)),
  );

  api.get('/definitions/rules', { schema: { tags, summary: 'get_rule_folder_tree', response: { 200: ref('RuleFolderModel') } } }, async (request) =>
    folderTree(await allRules(context, canEdit(request))),
  );

  api.get('/rules/*', { schema: { tags, summary: 'get_rule', params: name, response: { 200: ref('RuleModel') } } }, async (request) => {
    const ruleName = ruleNameOf(request);
    const custom = await context.objects.get('rule', ruleName);
    if (custom) {
      const module = typeof custom.attachments.python_module === 'string' ? custom.attachments.python_module : undefined;
      return ruleModel(ruleName, custom.spec, module, true, canEdit(request, custom));
    }
    const builtIn = getCheckCatalog().rules.get(ruleName);
    if (!builtIn) throw new DqError('NOT_FOUND', `rule ${JSON.stringify(ruleName)} not found`);
    return ruleModel(ruleName, builtInSpec(builtIn), undefined, false, canEdit(request));
  });

  api.post(
    '/rules/*',
    { schema: { tags, summary: 'create_rule: a custom rule', params: name, body: ref('RuleModel') } },
    async (request, reply) => {
      const ruleName = ruleNameOf(request);
      const { spec, attachments } = fromModel(request.body as JsonObject);
      await context.objects.create('rule', ruleName, spec, { caller: `api:${request.caller.name}` }, attachments);
      return reply.status(201).send();
    },
  );

  api.put(
    '/rules/*',
    { schema: { tags, summary: 'update_rule: makes a custom rule when only a built-in one exists', params: name, body: ref('RuleModel') } },
    async (request, reply) => {
      const ruleName = ruleNameOf(request);
      const body = request.body as JsonObject;
      const builtIn = getCheckCatalog().rules.get(ruleName);
      await context.objects.upsert('rule', ruleName, { caller: `api:${request.caller.name}` }, (current) => {
        if (!current && !builtIn) throw new DqError('NOT_FOUND', `rule ${JSON.stringify(ruleName)} not found`);
        const base = current ? current.spec : builtIn ? builtInSpec(builtIn) : {};
        const next = fromModel(body);
        const spec: JsonObject = { ...base, ...next.spec };
        const attachments = isJsonObject(next.attachments) && 'python_module' in next.attachments ? next.attachments : (current?.attachments ?? {});
        return { spec, attachments };
      });
      return reply.status(204).send();
    },
  );

  api.delete('/rules/*', { schema: { tags, summary: 'delete_rule: custom rules only', params: name } }, async (request, reply) => {
    const ruleName = ruleNameOf(request);
    const custom = await context.objects.get('rule', ruleName);
    if (!custom) {
      const builtIn = getCheckCatalog().rules.has(ruleName);
      throw new DqError('NOT_FOUND', builtIn ? `rule ${JSON.stringify(ruleName)} is built in and cannot be deleted` : `rule ${JSON.stringify(ruleName)} not found`);
    }
    await context.objects.delete('rule', ruleName, { caller: `api:${request.caller.name}` });
    return reply.status(204).send();
  });
}
