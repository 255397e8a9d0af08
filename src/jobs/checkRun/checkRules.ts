import { customSensorOf, type CustomSensorDefinition } from '../../datasource/sensors/index.js';
import type { LiveObjects } from '../../inspect/liveObjects.js';
import type { PythonRuleRunner } from '../../pythonrules/index.js';
import { customRuleOf, type CustomRuleDefinition } from '../../rules/index.js';

/**
 * The rules a check run judges with besides the built-in ones: the custom rules of the live store (a custom rule
 * at the path of a built-in rule replaces it, as in DQOps) and the runner of their Python code. Read once per run.
 */
export interface CheckRules {
  custom: ReadonlyMap<string, CustomRuleDefinition>;
  python: PythonRuleRunner;
  /** The custom sensors of the live store (one at a built-in sensor's name replaces it, as in DQOps), or why one cannot run. */
  sensors?: ReadonlyMap<string, CustomSensorDefinition | { error: string }>;
  /** The dictionaries' CSV text by name (`countries.csv`), expanded into list parameters. */
  dictionaries?: ReadonlyMap<string, string>;
}

export async function loadCheckRules(objects: Pick<LiveObjects, 'list'>, python: PythonRuleRunner): Promise<CheckRules> {
  const [rules, sensors, dictionaries] = await Promise.all([objects.list('rule'), objects.list('sensor'), objects.list('dictionary')]);
  return {
    custom: new Map(rules.map((rule) => [rule.name, customRuleOf(rule.name, rule.spec, rule.attachments)])),
    python,
    sensors: new Map(sensors.map((sensor) => [sensor.name, customSensorOf(sensor.name, sensor.spec, sensor.attachments)])),
    dictionaries: new Map(
      dictionaries.map((d) => [d.name, typeof d.attachments.file_content === 'string' ? d.attachments.file_content : '']),
    ),
  };
}
