import { getCheckCatalog, type CatalogRule } from '../catalog/index.js';
import { deepEqual } from '../diff/fieldChanges.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { DqError, type JsonObject, type LiveObject } from '../model/index.js';
import { catalogFields } from './catalogFields.js';
import { refuseUnwritableName } from './definitionNames.js';
import { refuseViolations, specViolations } from './specValidation.js';

/**
 * Rules: the built-in ones (the check catalog's) and the custom ones (objects of kind rule: the definition and
 * its Python module), listed together. A read answers the custom rule when one exists, else the built-in one; a
 * create fails (409) only over a custom rule (a custom rule may replace a built-in one); an update is 404 only
 * when neither exists, and an update that gives back a built-in rule as it is (no Python module, the built-in's
 * definition) removes the custom one or writes nothing, as DQOps does; built-in rules cannot be deleted. A written
 * definition is checked as its .dqorule.yaml file would be.
 */
export interface RuleListModel {
  rule_name: string;
  full_rule_name: string;
  custom: boolean;
  built_in: boolean;
  can_edit: boolean;
}

export interface RuleFolderModel {
  folders: Record<string, RuleFolderModel>;
  rules: RuleListModel[];
  all_rules: RuleListModel[];
}

function builtInSpec(rule: CatalogRule): JsonObject {
  const spec: JsonObject = { type: 'python', mode: rule.mode, fields: catalogFields(rule.parameters) };
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

const SPEC_KEYS = ['type', 'java_class_name', 'mode', 'time_window', 'fields', 'parameters'] as const;

/** A RuleModel body → the definition it gives and its Python module (undefined when the body has none). */
function fromModel(body: JsonObject): { spec: JsonObject; module: string | undefined } {
  const spec: JsonObject = {};
  for (const key of SPEC_KEYS) if (body[key] !== undefined && body[key] !== null) spec[key] = body[key];
  return { spec, module: typeof body.rule_python_module_content === 'string' ? body.rule_python_module_content : undefined };
}

function refuseInvalidRule(spec: JsonObject): void {
  refuseViolations(specViolations('rule', spec), 'rule definition');
}

function listModel(name: string, custom: boolean, canEdit: boolean): RuleListModel {
  const segments = name.split('/');
  return { rule_name: segments[segments.length - 1], full_rule_name: name, custom, built_in: getCheckCatalog().rules.has(name), can_edit: canEdit };
}

/** Every rule, built-in and custom, sorted by name. */
export async function allRules(objects: LiveObjects, canEdit: boolean): Promise<RuleListModel[]> {
  const customs = await objects.list('rule');
  const customNames = new Set(customs.map((r) => r.name));
  const names = new Set([...getCheckCatalog().rules.keys(), ...customNames]);
  return [...names].sort().map((name) => listModel(name, customNames.has(name), canEdit));
}

/** The rules in their folders (the segments of their names). */
export function folderTree(rules: RuleListModel[]): RuleFolderModel {
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

/** The rule (RuleModel): the custom one when it exists, else the built-in one; 404 when neither. `canEdit` of the custom rule, or of none. */
export async function ruleOf(objects: LiveObjects, name: string, canEdit: (custom?: LiveObject) => boolean): Promise<JsonObject> {
  const custom = await objects.get('rule', name);
  if (custom) {
    const module = typeof custom.attachments.python_module === 'string' ? custom.attachments.python_module : undefined;
    return ruleModel(name, custom.spec, module, true, canEdit(custom));
  }
  const builtIn = getCheckCatalog().rules.get(name);
  if (!builtIn) throw new DqError('NOT_FOUND', `rule ${JSON.stringify(name)} not found`);
  return ruleModel(name, builtInSpec(builtIn), undefined, false, canEdit());
}

/** A custom rule from a RuleModel (409 when a custom rule has the name). */
export async function createRule(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  refuseUnwritableName('rule', name);
  const { spec, module } = fromModel(model);
  refuseInvalidRule(spec);
  await objects.create('rule', name, spec, writer, module === undefined ? {} : { python_module: module });
}

/**
 * Updates a custom rule, or makes one over a built-in rule (what the model leaves out is kept: the custom rule's,
 * else the built-in's). A model equal to the built-in rule without a Python module removes the customization.
 */
export async function updateRule(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  refuseUnwritableName('rule', name);
  const builtIn = getCheckCatalog().rules.get(name);
  const next = fromModel(model);
  if (builtIn && next.module === undefined && deepEqual(normalizeSpec('rule', next.spec), normalizeSpec('rule', builtInSpec(builtIn)))) {
    const custom = await objects.get('rule', name);
    if (custom) await objects.delete('rule', name, writer);
    return;
  }
  await objects.upsert('rule', name, writer, (current) => {
    if (!current && !builtIn) throw new DqError('NOT_FOUND', `rule ${JSON.stringify(name)} not found`);
    const base = current ? current.spec : builtIn ? builtInSpec(builtIn) : {};
    const spec: JsonObject = { ...base, ...next.spec };
    refuseInvalidRule(spec);
    const attachments = next.module !== undefined ? { ...(current?.attachments ?? {}), python_module: next.module } : (current?.attachments ?? {});
    return { spec, attachments };
  });
}

/** Deletes a custom rule; a built-in one cannot be (404 saying so). */
export async function deleteRule(objects: LiveObjects, name: string, writer: WriteContext): Promise<void> {
  const custom = await objects.get('rule', name);
  if (!custom) {
    const builtIn = getCheckCatalog().rules.has(name);
    throw new DqError('NOT_FOUND', builtIn ? `rule ${JSON.stringify(name)} is built in and cannot be deleted` : `rule ${JSON.stringify(name)} not found`);
  }
  await objects.delete('rule', name, writer);
}
