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
}

export async function loadCheckRules(objects: Pick<LiveObjects, 'list'>, python: PythonRuleRunner): Promise<CheckRules> {
  const rules = await objects.list('rule');
  return { custom: new Map(rules.map((rule) => [rule.name, customRuleOf(rule.name, rule.spec, rule.attachments)])), python };
}
