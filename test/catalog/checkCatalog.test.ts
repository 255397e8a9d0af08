import { describe, expect, it } from 'vitest';
import { containerPath, containersOf, getCheckCatalog, parseCheckCatalog } from '../../src/catalog/index.js';

describe('check catalog', () => {
  const catalog = getCheckCatalog();

  it('is read once and cached', () => {
    expect(getCheckCatalog()).toBe(catalog);
  });

  it('holds every check, sensor and rule of the catalog file', () => {
    expect(catalog.checks).toHaveLength(744);
    expect(catalog.sensors.size).toBe(123);
    expect(catalog.rules.size).toBe(74);
  });

  it('finds a check by name with its container, sensor and rule', () => {
    const check = catalog.checkByName('daily_row_count')!;
    expect(check).toMatchObject({
      target: 'table',
      checkType: 'monitoring',
      timeScale: 'daily',
      category: 'volume',
      sensor: 'table/volume/row_count',
      rule: 'comparison/min_count',
      baseName: 'row_count',
    });
    expect(catalog.sensorOf(check).parameters).toEqual([]);
    expect(catalog.ruleOf(check).parameters.map((p) => p.name)).toEqual(['min_count']);
    expect(catalog.ruleOf(check).parameters[0]).toMatchObject({ type: 'long', required: true, default: 1 });
    expect(catalog.checkByName('no_such_check')).toBeUndefined();
  });

  it('lists the checks allowed in a container and category', () => {
    const profiling = { target: 'table', checkType: 'profiling', timeScale: null } as const;
    const names = catalog.checksIn(profiling, 'volume').map((c) => c.checkName);
    expect(names).toContain('profile_row_count');
    expect(names.every((n) => n.startsWith('profile_'))).toBe(true);
    expect(catalog.categoriesOf(profiling)).toContain('volume');
    expect(catalog.categoriesOf({ target: 'table', checkType: 'partitioned', timeScale: 'daily' })).not.toContain('availability');
    expect(catalog.categoriesOfTarget('column').has('nulls')).toBe(true);
    expect(catalog.categoriesOfTarget('table').has('nulls')).toBe(false);
  });

  it('puts every check in exactly one of the ten containers', () => {
    const containers = [...containersOf('table'), ...containersOf('column')];
    expect(containers).toHaveLength(10);
    const total = containers.reduce((sum, c) => sum + catalog.checksIn(c).length, 0);
    expect(total).toBe(catalog.checks.length);
    expect(containers.map((c) => containerPath(c)).slice(0, 5)).toEqual([
      'profiling_checks',
      'monitoring_checks.daily',
      'monitoring_checks.monthly',
      'partitioned_checks.daily',
      'partitioned_checks.monthly',
    ]);
  });

  it('types sensor parameters, including enums with their values', () => {
    const sensor = catalog.sensors.get('column/datetime/text_match_date_format_percent')!;
    expect(sensor.parameters[0]).toMatchObject({ name: 'date_format', type: 'enum', default: 'YYYY-MM-DD' });
    expect(sensor.parameters[0].allowedValues).toContain('DD/MM/YYYY');
  });

  it('rejects a malformed catalog', () => {
    expect(() => parseCheckCatalog({ checks: 'x' })).toThrow(/check catalog/);
    expect(() =>
      parseCheckCatalog({
        checks: [{ check_name: 'a', target: 'table', check_type: 'profiling', time_scale: null, category: 'c', sensor: 's', rule: 'r', default_severity: 'error', base_name: 'a' }],
        sensors: {},
        rules: {},
      }),
    ).toThrow(/unknown sensor/);
  });
});
