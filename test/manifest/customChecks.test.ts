import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/manifest/loadRepository.js';

const CONNECTION = 'apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: localhost\n    database: shop\n';
const RULE = 'apiVersion: dqo/v1\nkind: rule\nspec:\n  type: python\n  mode: current_value\n  fields:\n  - field_name: min_value\n    data_type: double\n';

async function repository(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-custom-checks-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('custom checks in table files and policies', () => {
  it('accepts custom_checks of a category and the custom map of a container, naming built-in sensors and custom or built-in rules', async () => {
    const dir = await repository({
      'sources/shop/connection.dqoconnection.yaml': CONNECTION,
      'rules/myrules/at_least.dqorule.yaml': RULE,
      'rules/myrules/at_least.py': 'def evaluate_rule(p):\n    return {"passed": True}\n',
      'sources/shop/public.orders.dqotable.yaml': [
        'apiVersion: dqo/v1',
        'kind: table',
        'spec:',
        '  monitoring_checks:',
        '    daily:',
        '      volume:',
        '        custom_checks:',
        '          enough_rows:',
        '            sensor_name: table/volume/row_count',
        '            rule_name: myrules/at_least',
        '            error:',
        '              min_value: 10',
        '      custom:',
        '        enough_rows_builtin:',
        '          sensor_name: table/volume/row_count',
        '          rule_name: comparison/min_count',
        '          warning:',
        '            min_count: 1',
        '  columns:',
        '    amount:',
        '      profiling_checks:',
        '        nulls:',
        '          custom_checks:',
        '            few_nulls:',
        '              sensor_name: column/nulls/null_count',
        '              rule_name: comparison/max_count',
        '              parameters: {}',
        '              error: {max_count: 0}',
        '',
      ].join('\n'),
    });
    const state = await loadRepository(dir);
    expect(state.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(state.objects.map((o) => `${o.kind}:${o.name}`)).toContain('table:shop/public.orders');
  });

  it('reports an unknown sensor and an unknown rule with did-you-mean at file:line:column, and a custom check naming neither', async () => {
    const dir = await repository({
      'sources/shop/connection.dqoconnection.yaml': CONNECTION,
      'rules/myrules/at_least.dqorule.yaml': RULE,
      'rules/myrules/at_least.py': 'def evaluate_rule(p):\n    return {"passed": True}\n',
      'sources/shop/public.orders.dqotable.yaml': [
        'apiVersion: dqo/v1',
        'kind: table',
        'spec:',
        '  monitoring_checks:',
        '    daily:',
        '      volume:',
        '        custom_checks:',
        '          enough_rows:',
        '            sensor_name: table/volume/row_cont',
        '            rule_name: myrules/at_lest',
        '      custom:',
        '        nothing_named:',
        '          error: {}',
        '        wrong_target:',
        '          sensor_name: column/nulls/null_count',
        '          rule_name: comparison/max_count',
        '',
      ].join('\n'),
    });
    const state = await loadRepository(dir);
    const found = state.diagnostics.map((d) => ({ code: d.code, at: `${d.range?.filename}:${d.range?.start.line}:${d.range?.start.column}`, summary: d.summary }));
    const file = 'sources/shop/public.orders.dqotable.yaml';
    expect(found).toEqual(
      expect.arrayContaining([
        { code: 'unknown_sensor', at: `${file}:9:26`, summary: 'unknown sensor "table/volume/row_cont"; did you mean "table/volume/row_count"?' },
        { code: 'unknown_rule', at: `${file}:10:24`, summary: 'unknown rule "myrules/at_lest"; did you mean "myrules/at_least"?' },
        { code: 'custom_check_incomplete', at: `${file}:12:9`, summary: 'custom check "nothing_named" names no sensor_name and rule_name' },
        { code: 'unknown_sensor', at: `${file}:15:24`, summary: 'sensor "column/nulls/null_count" is a column sensor; a table check needs a table/… sensor' },
      ]),
    );
    expect(found).toHaveLength(4);
  });
});
