import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { checkTemplates } from '../../src/policy/index.js';

const catalog = getCheckCatalog();
const ALL = { can_edit: true, can_run_checks: true, can_delete_data: true };

describe('checkTemplates', () => {
  it('lists every check of the container type, table checks first, by category then name', () => {
    const templates = checkTemplates('partitioned', 'monthly', ALL);
    const expected = (['table', 'column'] as const).flatMap((target) =>
      catalog.checksIn({ target, checkType: 'partitioned', timeScale: 'monthly' }).filter((c) => c.category !== 'comparisons'));
    expect(templates).toHaveLength(expected.length);
    const keys = templates.map((t) => `${t.check_target === 'table' ? 0 : 1}|${t.check_category}|${t.check_name}`);
    expect(keys).toEqual([...keys].sort());
  });

  it('describes one check fully', () => {
    const [template] = checkTemplates('monitoring', 'daily', ALL, { check_name: 'daily_text_length_above_max_length' });
    expect(template).toMatchObject({
      check_target: 'column',
      check_category: 'text',
      check_name: 'daily_text_length_above_max_length',
      help_text: '',
      check_container_type: { check_type: 'monitoring', check_time_scale: 'daily' },
      sensor_name: 'column/text/text_length_above_max_length_count',
      sensor_parameters_definitions: [
        { field_name: 'max_length', display_name: 'max_length', help_text: '', data_type: 'integer', required: true, default_value: 100 },
      ],
      rule_parameters_definitions: [{ field_name: 'max_count', data_type: 'long' }],
    });
    expect(template.check_model).toMatchObject({ check_name: 'daily_text_length_above_max_length', configured: false, can_edit: true });
    expect(template.check_model.sensor_parameters[0]).toMatchObject({ integer_value: 100 });
  });

  it('filters on target, category and name', () => {
    expect(checkTemplates('monitoring', 'daily', ALL, { check_target: 'table' }).every((t) => t.check_target === 'table')).toBe(true);
    expect(new Set(checkTemplates('monitoring', 'daily', ALL, { check_category: 'volume, nulls' }).map((t) => t.check_category))).toEqual(new Set(['volume', 'nulls']));
    expect(checkTemplates('monitoring', 'daily', ALL, { check_name: 'daily_row_count' }).map((t) => t.check_name)).toEqual(['daily_row_count']);
    expect(checkTemplates('monitoring', 'daily', ALL, { check_target: 'column', check_name: 'daily_row_count' })).toEqual([]);
  });

  it('uses no time scale for profiling', () => {
    const templates = checkTemplates('profiling', null, ALL, { check_category: 'volume' });
    expect(templates.length).toBeGreaterThan(0);
    expect(templates.every((t) => !('check_time_scale' in t.check_container_type) && t.check_name.startsWith('profile_'))).toBe(true);
  });
});
