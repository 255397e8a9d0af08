import { didYouMean, getCheckCatalog, type CatalogCheck, type CheckCatalog } from '../catalog/index.js';
import type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
import { checkDefinitionName, DqError, type JsonObject, type LiveObject } from '../model/index.js';
import { refuseUnwritableName } from './definitionNames.js';
import { bodyViolation, refuseViolations, specViolations, type BodyViolation } from './specValidation.js';

/**
 * Check definitions as DQOps's `checks` group serves them: the built-in checks of the catalog, named by their
 * place (`column/monitoring/daily/nulls/daily_nulls_count`), and the custom ones (objects of kind check, the
 * `checks/…/<name>.dqocheck.yaml` files: a sensor and a rule under a name), listed together. A custom definition
 * cannot take a built-in check's name (dqctl always runs the built-in check of that name; DQOps answers 409 to
 * an update of a built-in definition too), and a written one is checked as its file and `validate` would check
 * it: the schema, both names present, a known sensor of the definition's target and a known rule.
 */
export interface CheckDefinitionListModel {
  check_name: string;
  full_check_name: string;
  custom: boolean;
  built_in: boolean;
  can_edit: boolean;
}

/** A folder of the check tree: its sub-folders (left out when none) and its checks (left out when it has none). */
export interface CheckDefinitionFolderModel {
  folders?: Record<string, CheckDefinitionFolderModel>;
  checks?: CheckDefinitionListModel[];
}

/** The folders DQOps always shows for custom checks, even empty. */
const CUSTOM_FOLDERS = ['table', 'column'].flatMap((target) =>
  ['profiling', 'monitoring/daily', 'monitoring/monthly', 'partitioned/daily', 'partitioned/monthly'].map((place) => `${target}/${place}/custom`),
);

const builtInsByCatalog = new WeakMap<CheckCatalog, Map<string, CatalogCheck>>();

/** The built-in checks by their definition name. */
function builtInDefinitions(): Map<string, CatalogCheck> {
  const catalog = getCheckCatalog();
  let found = builtInsByCatalog.get(catalog);
  if (!found) {
    found = new Map(
      catalog.checks.map((c) => [
        checkDefinitionName({ target: c.target, checkType: c.checkType, timeScale: c.timeScale ?? undefined, category: c.category, name: c.checkName }),
        c,
      ]),
    );
    builtInsByCatalog.set(catalog, found);
  }
  return found;
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** Every check definition, built-in and custom, sorted by its full name. */
export async function allCheckDefinitions(objects: LiveObjects, canEdit: boolean): Promise<CheckDefinitionListModel[]> {
  const builtIns = builtInDefinitions();
  const customs = new Set((await objects.list('check')).map((o) => o.name));
  const names = [...new Set([...builtIns.keys(), ...customs])].sort();
  return names.map((name) => ({ check_name: lastSegment(name), full_check_name: name, custom: customs.has(name), built_in: builtIns.has(name), can_edit: canEdit }));
}

/**
 * The check definitions in their folders, as DQOps orders them in a folder (standard checks first, then by
 * name), with the `custom` folders of every check container present even when empty.
 */
export async function checkDefinitionFolderTree(objects: LiveObjects, canEdit: boolean): Promise<CheckDefinitionFolderModel> {
  const builtIns = builtInDefinitions();
  const customs = await objects.list('check');
  const customNames = new Set(customs.map((o) => o.name));
  const root: CheckDefinitionFolderModel = {};
  const folderOf = (segments: readonly string[]): CheckDefinitionFolderModel => {
    let folder = root;
    for (const segment of segments) {
      folder.folders ??= {};
      folder = folder.folders[segment] ??= {};
    }
    return folder;
  };
  const byStandardThenName = (a: { name: string; standard: boolean }, b: { name: string; standard: boolean }) =>
    Number(b.standard) - Number(a.standard) || (lastSegment(a.name) < lastSegment(b.name) ? -1 : lastSegment(a.name) > lastSegment(b.name) ? 1 : 0);
  const entries = [
    ...[...builtIns].map(([name, c]) => ({ name, standard: c.standard })).sort(byStandardThenName),
    ...customs.filter((o) => !builtIns.has(o.name)).map((o) => ({ name: o.name, standard: o.spec.standard === true })).sort(byStandardThenName),
  ];
  for (const { name } of entries) {
    const folder = folderOf(name.split('/').slice(0, -1));
    (folder.checks ??= []).push({ check_name: lastSegment(name), full_check_name: name, custom: customNames.has(name), built_in: builtIns.has(name), can_edit: canEdit });
  }
  for (const path of CUSTOM_FOLDERS) {
    const segments = path.split('/');
    const parent = folderOf(segments.slice(0, -1));
    if (parent.folders?.[segments[segments.length - 1]] === undefined) folderOf(segments).checks = [];
  }
  return root;
}

/** The check definition (CheckDefinitionModel): the custom one, else the built-in one; 404 when neither. */
export async function checkDefinitionOf(objects: LiveObjects, name: string, canEdit: (custom?: LiveObject) => boolean): Promise<JsonObject> {
  const builtIn = builtInDefinitions().get(name);
  const custom = await objects.get('check', name);
  if (custom) {
    const spec = custom.spec;
    const model: JsonObject = { check_name: lastSegment(name) };
    for (const key of ['sensor_name', 'rule_name', 'help_text', 'friendly_name'] as const) if (typeof spec[key] === 'string') model[key] = spec[key];
    Object.assign(model, {
      standard: spec.standard === true,
      default_severity: typeof spec.default_severity === 'string' ? spec.default_severity : 'error',
      custom: true,
      built_in: builtIn !== undefined,
      can_edit: canEdit(custom),
    });
    return model;
  }
  if (!builtIn) throw new DqError('NOT_FOUND', `check definition ${JSON.stringify(name)} not found`);
  return {
    check_name: builtIn.checkName,
    sensor_name: builtIn.sensor,
    rule_name: builtIn.rule,
    standard: builtIn.standard,
    default_severity: builtIn.defaultSeverity,
    custom: false,
    built_in: true,
    can_edit: canEdit(),
  };
}

/** A CheckDefinitionModel body → the definition's spec, refused (400) as its file and `validate` would refuse it. */
async function fromModel(objects: LiveObjects, name: string, body: JsonObject): Promise<JsonObject> {
  const violations: BodyViolation[] = [];
  if (typeof body.check_name === 'string' && body.check_name !== lastSegment(name)) {
    violations.push(bodyViolation(['check_name'], `must be the last part of the definition's name, ${JSON.stringify(lastSegment(name))}`));
  }
  const spec: JsonObject = {};
  for (const key of ['sensor_name', 'rule_name', 'help_text', 'friendly_name', 'standard', 'default_severity'] as const) {
    if (body[key] !== undefined && body[key] !== null) spec[key] = body[key];
  }
  violations.push(...specViolations('check', spec));
  const catalog = getCheckCatalog();
  const target = name.split('/')[0];
  for (const key of ['sensor_name', 'rule_name'] as const) {
    if (typeof spec[key] !== 'string' || spec[key] === '') violations.push(bodyViolation([key], 'is required: a check definition runs the sensor and the rule it names', 'custom_check_incomplete'));
  }
  if (typeof spec.sensor_name === 'string' && spec.sensor_name !== '') {
    const sensors = [...catalog.sensors.keys(), ...(await objects.list('sensor')).map((o) => o.name)];
    const sensorName = spec.sensor_name;
    if (!sensors.includes(sensorName) || sensorName.split('/')[0] !== target) {
      const suggestions = didYouMean(sensorName, sensors.filter((s) => s.startsWith(`${target}/`)));
      violations.push({
        ...bodyViolation(['sensor_name'], sensors.includes(sensorName) ? `names a ${sensorName.split('/')[0]} sensor; a ${target} check needs a ${target}/… sensor` : `names an unknown sensor ${JSON.stringify(sensorName)}`, 'unknown_sensor'),
        ...(suggestions.length > 0 ? { suggestions } : {}),
      });
    }
  }
  if (typeof spec.rule_name === 'string' && spec.rule_name !== '') {
    const rules = [...catalog.rules.keys(), ...(await objects.list('rule')).map((o) => o.name)];
    if (!rules.includes(spec.rule_name)) {
      const suggestions = didYouMean(spec.rule_name, rules);
      violations.push({ ...bodyViolation(['rule_name'], `names an unknown rule ${JSON.stringify(spec.rule_name)}`, 'unknown_rule'), ...(suggestions.length > 0 ? { suggestions } : {}) });
    }
  }
  refuseViolations(violations, 'check definition');
  return spec;
}

function refuseBuiltIn(name: string): void {
  if (!builtInDefinitions().has(name)) return;
  throw new DqError(
    'ALREADY_EXISTS',
    `check definition ${JSON.stringify(name)} is a built-in check and cannot be changed: dqctl always runs the built-in check of that name; give a custom check another name`,
  );
}

/** A custom check definition (409 over a built-in one or an existing custom one). */
export async function createCheckDefinition(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  refuseUnwritableName('check', name);
  refuseBuiltIn(name);
  const spec = await fromModel(objects, name, model);
  await objects.create('check', name, spec, writer);
}

/** Replaces a custom check definition (404 when there is none; 409 for a built-in one, as DQOps). */
export async function updateCheckDefinition(objects: LiveObjects, name: string, model: JsonObject, writer: WriteContext): Promise<void> {
  if (!builtInDefinitions().has(name) && !(await objects.get('check', name))) throw new DqError('NOT_FOUND', `check definition ${JSON.stringify(name)} not found`);
  refuseBuiltIn(name);
  const spec = await fromModel(objects, name, model);
  await objects.update('check', name, writer, () => ({ spec }));
}

/** Deletes a custom check definition; a built-in one cannot be (404 saying so). */
export async function deleteCheckDefinition(objects: LiveObjects, name: string, writer: WriteContext): Promise<void> {
  if (!(await objects.get('check', name))) {
    const builtIn = builtInDefinitions().has(name);
    throw new DqError('NOT_FOUND', builtIn ? `check definition ${JSON.stringify(name)} is built in and cannot be deleted` : `check definition ${JSON.stringify(name)} not found`);
  }
  await objects.delete('check', name, writer);
}
