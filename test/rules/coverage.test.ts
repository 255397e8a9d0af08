import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { evaluateRule, implementedRuleNames, type Readout } from '../../src/rules/index.js';

const catalog = getCheckCatalog();
const TODAY_MS = Date.UTC(2024, 5, 30);
// 100 days of readouts, each an increasing value with a wobble
const HISTORY: Readout[] = Array.from({ length: 100 }, (_, i) => ({
  timePeriod: new Date(TODAY_MS - (100 - i) * 86_400_000).toISOString().slice(0, 10),
  value: 1000 + 10 * i + (i % 3) * 7,
}));

describe('every rule of the catalog is implemented', () => {
  it('every rule a catalog check uses', () => {
    const used = [...new Set(catalog.checks.map((check) => check.rule))].sort();
    expect(used.length).toBe(28);
    expect(used.filter((name) => !implementedRuleNames().includes(name))).toEqual([]);
  });

  it('every rule of the catalog, and nothing else', () => {
    expect(implementedRuleNames()).toEqual([...catalog.rules.keys()].sort());
  });

  it.each([...catalog.rules.values()].map((rule) => [rule.name, rule] as const))('%s judges a readout with its defaults and a long history', (name, rule) => {
    const parameters: Record<string, number | string> = {};
    // parameters without a default get a value (a rule with no threshold at all gives no verdict)
    for (const parameter of rule.parameters) {
      if (parameter.default !== null || parameter.type === 'boolean') continue;
      parameters[parameter.name] = parameter.type === 'enum' ? (parameter.allowedValues ?? [])[0] : parameter.type === 'long' ? 10 : 10.0;
    }
    // percentages are judged on a percent history
    const history = name.endsWith('percent_values') ? HISTORY.map((readout, i) => ({ ...readout, value: 40 + (i % 7) * 5 })) : HISTORY;
    const outcome = evaluateRule(name, {
      actualValue: 2000,
      parameters,
      history,
      timePeriod: '2024-06-30',
      referenceValue: 2000,
      severity: 'error',
    });
    expect(['passed', 'failed']).toContain(outcome.verdict);
  });
});
