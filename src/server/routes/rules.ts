import type { FastifyInstance, FastifyRequest } from 'fastify';
import { allRules, createRule, deleteRule, folderTree, ruleOf, updateRule } from '../../app/ruleModels.js';
import type { JsonObject, LiveObject } from '../../model/index.js';
import { arrayOf, ref } from '../apiSchemas.js';
import { canEditDefinitions, DEFINITIONS_ROLE, type ServerContext } from '../context.js';
import { checkName } from '../names.js';

/**
 * Rules: the built-in ones (the check catalog's) and the custom ones (objects of kind rule, with their Python
 * module), listed together. GET answers the custom rule when one exists, else the built-in one; POST is 409 only
 * over a custom rule (a custom rule may override a built-in one); PUT is 404 only when neither exists; built-in
 * rules cannot be deleted. A rule is code: writes need the admin role (reads a viewer's). Names hold slashes:
 * one `%2F`-encoded segment, or (as DQOps's Python client sends them) plain.
 */
function ruleNameOf(request: FastifyRequest): string {
  const raw = (request.params as { '*': string })['*'];
  return checkName('rule name', raw, { slashes: true });
}

export async function rulesRoutes(api: FastifyInstance, context: ServerContext): Promise<void> {
  const tags = ['rules'];
  const config = { role: DEFINITIONS_ROLE };
  const name = { type: 'object', properties: { '*': { type: 'string', description: 'full rule name, e.g. comparison%2Fmin_count' } } };
  const canEdit = (request: FastifyRequest, live?: LiveObject) =>
    canEditDefinitions(request.caller, { managedReadOnly: context.objects.readOnlyManaged && live?.managedBy === 'git' });

  api.get('/rules', { schema: { tags, operationId: 'get_all_rules', summary: 'get_all_rules: built-in and custom rules', response: { 200: arrayOf('RuleListModel') } } }, async (request) =>
    allRules(context.objects, canEdit(request)),
  );

  api.get('/definitions/rules', { schema: { tags, operationId: 'get_rule_folder_tree', summary: 'get_rule_folder_tree', response: { 200: ref('RuleFolderModel') } } }, async (request) =>
    folderTree(await allRules(context.objects, canEdit(request))),
  );

  api.get(
    '/rules/*',
    { schema: { tags, operationId: 'get_rule', summary: 'get_rule: the custom rule with its Python module, else the built-in one', params: name, response: { 200: ref('RuleModel') } } },
    async (request) => {
      const ruleName = ruleNameOf(request);
      return ruleOf(context.objects, ruleName, (custom) => canEdit(request, custom));
    },
  );

  api.post(
    '/rules/*',
    { config, schema: { tags, operationId: 'create_rule', summary: 'create_rule: a custom rule with its Python module (admin); 201, 409 over a custom rule', params: name, body: ref('RuleModel') } },
    async (request, reply) => {
      const ruleName = ruleNameOf(request);
      await createRule(context.objects, ruleName, request.body as JsonObject, { caller: `api:${request.caller.name}` });
      return reply.status(201).send();
    },
  );

  api.put(
    '/rules/*',
    { config, schema: { tags, operationId: 'update_rule', summary: 'update_rule: makes a custom rule when only a built-in one exists (admin); 204', params: name, body: ref('RuleModel') } },
    async (request, reply) => {
      const ruleName = ruleNameOf(request);
      await updateRule(context.objects, ruleName, request.body as JsonObject, { caller: `api:${request.caller.name}` });
      return reply.status(204).send();
    },
  );

  api.delete('/rules/*', { config, schema: { tags, operationId: 'delete_rule', summary: 'delete_rule: custom rules only (admin); 204', params: name } }, async (request, reply) => {
    const ruleName = ruleNameOf(request);
    await deleteRule(context.objects, ruleName, { caller: `api:${request.caller.name}` });
    return reply.status(204).send();
  });
}
