import { getCheckCatalog, type CatalogRule, type RuleTimeWindow } from '../../catalog/index.js';
import { customSensorOf, type CustomSensorDefinition } from '../../datasource/sensors/index.js';
import type { LiveObjects } from '../../inspect/liveObjects.js';
import type { JsonObject } from '../../model/index.js';
import { PythonRuleRunner, pythonRuleOptionsFromEnvironment, type PythonRuleRunnerOptions } from '../../pythonrules/index.js';
import { customRuleOf, type CustomRuleDefinition } from '../../rules/index.js';
import type { PlannedCheck } from './plannedChecks.js';

/**
 * The rules a check run judges with besides the built-in ones: custom rules (a custom rule at the path of a
 * built-in rule replaces it, as in DQOps) and the runner of their Python code, custom sensors and dictionaries.
 * `run checks` reads them from the live store once per run; a preview takes the head revision's (what the pull
 * request would apply), so the changed `.py` is the one that judges. `resolveRule` is the one answer to "which
 * rule judges this check" for run checks, the preview's backtest and live run, and recalibration.
 */
export interface CheckRules {
  custom: ReadonlyMap<string, CustomRuleDefinition>;
  python: PythonRuleRunner;
  /** The custom sensors (one at a built-in sensor's name replaces it, as in DQOps), or why one cannot run. */
  sensors?: ReadonlyMap<string, CustomSensorDefinition | { error: string }>;
  /** The dictionaries' CSV text by name (`countries.csv`), expanded into list parameters. */
  dictionaries?: ReadonlyMap<string, string>;
}

/** A rule, sensor or dictionary object as the store or a revision holds it. */
export type DefinitionObject = { name: string; spec: JsonObject; attachments: JsonObject };

/** The custom definitions that judge and measure: rules (with their `.py`), sensors (with their templates), dictionaries. */
export interface CheckDefinitions {
  rules: readonly DefinitionObject[];
  sensors: readonly DefinitionObject[];
  dictionaries: readonly DefinitionObject[];
}

export function checkRulesOf(definitions: CheckDefinitions, python: PythonRuleRunner): CheckRules {
  return {
    custom: customRulesOf(definitions.rules),
    python,
    sensors: new Map(definitions.sensors.map((sensor) => [sensor.name, customSensorOf(sensor.name, sensor.spec, sensor.attachments)])),
    dictionaries: new Map(
      definitions.dictionaries.map((d) => [d.name, typeof d.attachments.file_content === 'string' ? d.attachments.file_content : '']),
    ),
  };
}

export function customRulesOf(rules: readonly DefinitionObject[]): Map<string, CustomRuleDefinition> {
  return new Map(rules.map((rule) => [rule.name, customRuleOf(rule.name, rule.spec, rule.attachments)]));
}

/** The custom definitions of the live store. */
export async function liveCheckDefinitions(objects: Pick<LiveObjects, 'list'>): Promise<CheckDefinitions> {
  const [rules, sensors, dictionaries] = await Promise.all([objects.list('rule'), objects.list('sensor'), objects.list('dictionary')]);
  return { rules, sensors, dictionaries };
}

export async function loadCheckRules(objects: Pick<LiveObjects, 'list'>, python: PythonRuleRunner): Promise<CheckRules> {
  return checkRulesOf(await liveCheckDefinitions(objects), python);
}

/**
 * Which rule judges a check whose rule is `ruleName`: a custom rule of that name (also when a built-in rule has
 * the name: the custom one replaces it, and `builtIn` is the one replaced), else the built-in rule, else none.
 */
export type RuleResolution =
  | { kind: 'custom'; rule: CustomRuleDefinition; builtIn?: CatalogRule }
  | { kind: 'built_in'; rule: CatalogRule }
  | { kind: 'unknown'; name: string };

export function resolveRule(ruleName: string, custom: ReadonlyMap<string, CustomRuleDefinition> | undefined): RuleResolution {
  const builtIn = getCheckCatalog().rules.get(ruleName);
  const own = custom?.get(ruleName);
  if (own) return { kind: 'custom', rule: own, ...(builtIn ? { builtIn } : {}) };
  if (builtIn) return { kind: 'built_in', rule: builtIn };
  return { kind: 'unknown', name: ruleName };
}

/** Whether the resolved rule reads the check's earlier readouts (its history). */
export function ruleLooksBack(resolution: RuleResolution): boolean {
  if (resolution.kind === 'unknown') return false;
  if (resolution.kind === 'built_in' && resolution.rule.name === 'comparison/value_changed') return true;
  return resolution.rule.mode === 'previous_readouts';
}

/** The time window of a rule that looks back (null: it judges one readout, or has no window). */
export function ruleTimeWindow(resolution: RuleResolution): RuleTimeWindow | null {
  if (resolution.kind === 'unknown' || resolution.rule.mode !== 'previous_readouts') return null;
  return resolution.rule.timeWindow;
}

/** Whether judging or measuring a check needs the Python workers: a custom rule, or a custom sensor's template. */
export function needsPython(check: PlannedCheck, rules: Pick<CheckRules, 'custom' | 'sensors'>): boolean {
  return rules.custom.has(check.catalog.rule) || (rules.sensors?.has(check.catalog.sensor) ?? false);
}

/**
 * Runs `work` with the custom definitions and a Python runner: the one given (a server's, kept open), else one
 * of its own, whose workers start on the first call that needs them (none when no check uses a custom rule or
 * sensor) and are ended when `work` ends, however it ends.
 */
export async function withCheckRules<T>(
  definitions: CheckDefinitions,
  options: { python?: PythonRuleRunner; pythonOptions?: PythonRuleRunnerOptions },
  work: (rules: CheckRules) => Promise<T>,
): Promise<T> {
  const own = options.python ? undefined : new PythonRuleRunner(options.pythonOptions ?? pythonRuleOptionsFromEnvironment());
  try {
    return await work(checkRulesOf(definitions, options.python ?? own!));
  } finally {
    await own?.close();
  }
}
