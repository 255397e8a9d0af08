import { describe, expect, it } from 'vitest';
import { getCheckCatalog, type CatalogParameter, type CheckTarget, type CheckType, type TimeScale } from '../../src/catalog/index.js';
import type { JsonObject, JsonValue } from '../../src/model/index.js';
import {
  applyCheckContainerModel,
  checkContainerModel,
  effectiveTableAndColumnChecks,
  effectiveTableChecks,
  ownChecks,
  type CheckModel,
  type CheckContainerModel,
  type EffectiveContainer,
} from '../../src/policy/index.js';
import { columnPolicy, table, tablePolicy } from './policyFixtures.js';

const catalog = getCheckCatalog();
const ALL = { can_edit: true, can_run_checks: true, can_delete_data: true };
const READ_ONLY = { can_edit: false, can_run_checks: false, can_delete_data: false };

function modelOf(target: CheckTarget, checkType: CheckType, timeScale: TimeScale | null, container: JsonObject): CheckContainerModel {
  const spec = checkType === 'profiling' ? { profiling_checks: container } : { [`${checkType}_checks`]: { [timeScale!]: container } };
  const own = ownChecks(spec);
  const effective = checkType === 'profiling' ? own.profiling : own[checkType][timeScale!];
  return checkContainerModel(target, checkType, timeScale, effective, ALL);
}

function findCheck(model: CheckContainerModel, name: string): CheckModel {
  for (const category of model.categories) {
    const check = category.checks.find((c) => c.check_name === name);
    if (check) return check;
  }
  throw new Error(`${name} not in the model`);
}

function configuredChecks(model: CheckContainerModel): string[] {
  return model.categories.flatMap((c) => c.checks.filter((k) => k.configured).map((k) => `${c.category}/${k.check_name}`));
}

describe('checkContainerModel', () => {
  it('lists every catalog check of the container, sorted by category then name, without comparisons', () => {
    const model = checkContainerModel('column', 'monitoring', 'daily', {}, ALL);
    const container = { target: 'column', checkType: 'monitoring', timeScale: 'daily' } as const;
    const expected = catalog.checksIn(container).filter((c) => c.category !== 'comparisons');
    const listed = model.categories.flatMap((c) => c.checks.map((k) => k.check_name));
    expect(listed).toHaveLength(expected.length);
    expect(new Set(listed)).toEqual(new Set(expected.map((c) => c.checkName)));
    const categories = model.categories.map((c) => c.category);
    expect(categories).toEqual([...categories].sort());
    expect(categories).not.toContain('comparisons');
    for (const category of model.categories) {
      const names = category.checks.map((c) => c.check_name);
      expect(names).toEqual([...names].sort());
      expect(category.help_text).toBe('');
      for (const check of category.checks) expect(catalog.checkByName(check.check_name)!.category).toBe(category.category);
    }
    expect(configuredChecks(model)).toEqual([]);
  });

  it('covers every container of both targets', () => {
    for (const target of ['table', 'column'] as const) {
      for (const [checkType, timeScale] of [['profiling', null], ['monitoring', 'daily'], ['monitoring', 'monthly'], ['partitioned', 'daily'], ['partitioned', 'monthly']] as const) {
        const model = checkContainerModel(target, checkType, timeScale, {}, ALL);
        const count = model.categories.reduce((n, c) => n + c.checks.length, 0);
        const expected = catalog.checksIn({ target, checkType, timeScale }).filter((c) => c.category !== 'comparisons').length;
        expect([target, checkType, timeScale, count]).toEqual([target, checkType, timeScale, expected]);
      }
    }
  });

  it('describes an unconfigured check with the catalog defaults', () => {
    const check = findCheck(checkContainerModel('table', 'monitoring', 'daily', {}, READ_ONLY), 'daily_row_count');
    expect(check).toEqual({
      check_name: 'daily_row_count',
      help_text: '',
      sensor_parameters: [],
      sensor_name: 'table/volume/row_count',
      quality_dimension: null,
      rule: {
        warning: { rule_name: 'comparison/min_count', rule_parameters: [minCountField(1)], disabled: false, configured: false },
        error: { rule_name: 'comparison/min_count', rule_parameters: [minCountField(1)], disabled: false, configured: false },
        fatal: { rule_name: 'comparison/min_count', rule_parameters: [minCountField(1)], disabled: false, configured: false },
      },
      supports_error_sampling: false,
      supports_grouping: true,
      standard: catalog.checkByName('daily_row_count')!.standard,
      default_check: false,
      default_severity: catalog.checkByName('daily_row_count')!.defaultSeverity,
      disabled: false,
      exclude_from_kpi: false,
      include_in_sla: false,
      configured: false,
      always_collect_error_samples: false,
      do_not_schedule: false,
      can_edit: false,
      can_run_checks: false,
      can_delete_data: false,
    });
  });

  it('shows a configured check with its values, flags and severities', () => {
    const model = modelOf('table', 'monitoring', 'daily', {
      volume: {
        daily_row_count: {
          warning: { min_count: 100 },
          error: {},
          disabled: true,
          exclude_from_kpi: true,
          include_in_sla: true,
          always_collect_error_samples: true,
          do_not_schedule: true,
          quality_dimension: 'Completeness',
        },
      },
    });
    const check = findCheck(model, 'daily_row_count');
    expect(check).toMatchObject({
      configured: true,
      default_check: false,
      disabled: true,
      exclude_from_kpi: true,
      include_in_sla: true,
      always_collect_error_samples: true,
      do_not_schedule: true,
      quality_dimension: 'Completeness',
    });
    expect(check.rule.warning).toEqual({ rule_name: 'comparison/min_count', rule_parameters: [minCountField(100)], disabled: false, configured: true });
    expect(check.rule.error).toEqual({ rule_name: 'comparison/min_count', rule_parameters: [minCountField(1)], disabled: false, configured: true });
    expect(check.rule.fatal.configured).toBe(false);
    expect(configuredChecks(model)).toEqual(['volume/daily_row_count']);
  });

  it('marks checks that come from a policy as default checks', () => {
    const t = table('shop/public.orders', { monitoring_checks: { daily: { volume: { daily_row_count: {} } } } });
    const policy = tablePolicy('p', { monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 9 } }, daily_row_count_change: {} } } } });
    const model = checkContainerModel('table', 'monitoring', 'daily', effectiveTableChecks(t, undefined, [policy]).monitoring.daily, ALL);
    expect(findCheck(model, 'daily_row_count')).toMatchObject({ configured: true, default_check: false });
    expect(findCheck(model, 'daily_row_count').rule.error.configured).toBe(false);
    expect(findCheck(model, 'daily_row_count_change')).toMatchObject({ configured: true, default_check: true });
    expect(findCheck(model, 'daily_row_count_anomaly')).toMatchObject({ configured: false, default_check: false });
  });

  it('copies the capabilities onto the container and every check', () => {
    const caps = { can_edit: true, can_run_checks: false, can_delete_data: true };
    const model = checkContainerModel('table', 'profiling', null, {}, caps);
    expect(model).toMatchObject(caps);
    for (const check of model.categories.flatMap((c) => c.checks)) expect(check).toMatchObject(caps);
  });

  it('reports grouping and error sampling support from the sensor', () => {
    const model = checkContainerModel('column', 'monitoring', 'daily', {}, ALL);
    expect(findCheck(model, 'daily_nulls_count')).toMatchObject({ supports_grouping: true, supports_error_sampling: true });
    expect(findCheck(model, 'daily_sum_anomaly')).toMatchObject({ supports_grouping: true, supports_error_sampling: false });
    expect(findCheck(model, 'daily_column_exists')).toMatchObject({ supports_grouping: false, supports_error_sampling: false });
  });
});

function minCountField(value: number): JsonObject {
  return {
    definition: { field_name: 'min_count', display_name: 'min_count', help_text: '', data_type: 'long', required: true, default_value: 1 },
    optional: false,
    long_value: value,
  };
}

describe('FieldModel typing', () => {
  const container: JsonObject = {
    accepted_values: {
      daily_expected_numbers_in_use_count: { parameters: { expected_values: [1, 2, 3] }, error: { max_missing: 2 } },
      daily_expected_text_values_in_use_count: { parameters: { expected_values: ['a', 'b'] } },
      daily_expected_texts_in_top_values_count: { parameters: { top: 5 } },
    },
    anomaly: { daily_median_anomaly: { parameters: { percentile_value: 0.9 }, warning: { use_ai: true } } },
    datatype: { daily_detected_datatype_in_text: { error: { expected_datatype: 'dates' } } },
    datetime: {
      daily_date_in_range_percent: { parameters: { min_date: '2000-01-01' }, error: { min_percent: 99.5 } },
      daily_text_match_date_format_percent: { parameters: { date_format: 'DD.MM.YYYY' } },
    },
    text: { daily_text_length_above_max_length: { parameters: { max_length: 40 } } },
    custom_sql: { daily_sql_condition_failed_on_column: { parameters: { sql_condition: '{alias}.x > 0' } } },
  };
  const model = modelOf('column', 'monitoring', 'daily', container);
  const sensorField = (check: string, name: string) => findCheck(model, check).sensor_parameters.find((f) => f.definition.field_name === name)!;
  const ruleField = (check: string, severity: 'warning' | 'error', name: string) =>
    findCheck(model, check).rule[severity].rule_parameters.find((f) => f.definition.field_name === name)!;

  it('puts each value in the field of its data type', () => {
    expect(sensorField('daily_expected_numbers_in_use_count', 'expected_values')).toEqual({
      definition: { field_name: 'expected_values', display_name: 'expected_values', help_text: '', data_type: 'integer_list', required: true },
      optional: false,
      integer_list_value: [1, 2, 3],
    });
    expect(sensorField('daily_expected_text_values_in_use_count', 'expected_values')).toMatchObject({ string_list_value: ['a', 'b'] });
    expect(sensorField('daily_expected_texts_in_top_values_count', 'top')).toMatchObject({ definition: { data_type: 'long' }, long_value: 5 });
    expect(sensorField('daily_median_anomaly', 'percentile_value')).toMatchObject({ definition: { data_type: 'double', default_value: 0.5 }, double_value: 0.9 });
    expect(sensorField('daily_date_in_range_percent', 'min_date')).toMatchObject({ definition: { data_type: 'date' }, optional: true, date_value: '2000-01-01' });
    expect(sensorField('daily_date_in_range_percent', 'max_date')).toMatchObject({ date_value: '2099-12-30' });
    expect(sensorField('daily_text_match_date_format_percent', 'date_format')).toEqual({
      definition: {
        field_name: 'date_format', display_name: 'date_format', help_text: '', data_type: 'enum', required: true,
        allowed_values: ['YYYY-MM-DD', 'DD/MM/YYYY', 'DD-MM-YYYY', 'DD.MM.YYYY'], default_value: 'YYYY-MM-DD',
      },
      optional: false,
      enum_value: 'DD.MM.YYYY',
    });
    expect(sensorField('daily_text_length_above_max_length', 'max_length')).toMatchObject({ definition: { data_type: 'integer' }, integer_value: 40 });
    expect(sensorField('daily_sql_condition_failed_on_column', 'sql_condition')).toMatchObject({
      definition: { data_type: 'string', display_hint: 'textarea' },
      string_value: '{alias}.x > 0',
    });
    expect(ruleField('daily_expected_numbers_in_use_count', 'error', 'max_missing')).toMatchObject({ long_value: 2 });
    expect(ruleField('daily_median_anomaly', 'warning', 'use_ai')).toMatchObject({ definition: { data_type: 'boolean', display_hint: 'requires_paid_version' }, boolean_value: true });
    expect(ruleField('daily_detected_datatype_in_text', 'error', 'expected_datatype')).toMatchObject({ enum_value: 'dates' });
    expect(ruleField('daily_date_in_range_percent', 'error', 'min_percent')).toMatchObject({ double_value: 99.5 });
  });

  it('has exactly one value field, and none when there is no value and no default', () => {
    const valueKeys = (field: object) => Object.keys(field).filter((k) => k.endsWith('_value'));
    for (const check of model.categories.flatMap((c) => c.checks)) {
      for (const field of check.sensor_parameters) {
        expect(valueKeys(field).length).toBeLessThanOrEqual(1);
        expect(field.optional).toBe(!field.definition.required);
      }
    }
    expect(valueKeys(sensorField('daily_expected_texts_in_top_values_count', 'top'))).toEqual(['long_value']);
    const unconfigured = findCheck(checkContainerModel('column', 'monitoring', 'daily', {}, ALL), 'daily_expected_texts_in_top_values_count');
    expect(valueKeys(unconfigured.sensor_parameters[0])).toEqual([]);
  });

  it('coerces values written as text in YAML to the data type', () => {
    const coerced = modelOf('column', 'monitoring', 'daily', {
      text: { daily_text_length_above_max_length: { parameters: { max_length: '40' }, error: { max_count: '3' } } },
    });
    const check = findCheck(coerced, 'daily_text_length_above_max_length');
    expect(check.sensor_parameters[0]).toMatchObject({ integer_value: 40 });
    expect(check.rule.error.rule_parameters[0]).toMatchObject({ long_value: 3 });
  });
});

/** A value of a parameter's type that is not its default. */
function sampleValue(parameter: CatalogParameter, seed: number): JsonValue {
  switch (parameter.type) {
    case 'string': return `value ${seed}`;
    case 'boolean': return parameter.default !== true;
    case 'integer':
    case 'long': return 1000 + seed;
    case 'double': return 1000.5 + seed;
    case 'date': return '2001-02-03';
    case 'enum': return parameter.allowedValues![parameter.allowedValues!.length - 1] === parameter.default ? parameter.allowedValues![0] : parameter.allowedValues![parameter.allowedValues!.length - 1];
    case 'string_list': return ['a', `b${seed}`];
    case 'integer_list': return [1, seed];
  }
}

/** Every check of a container configured: sensor parameters, warning with values, error with defaults, flags. */
function everythingConfigured(target: CheckTarget, checkType: CheckType, timeScale: TimeScale | null): JsonObject {
  const container: Record<string, JsonObject> = {};
  let seed = 0;
  for (const check of catalog.checksIn({ target, checkType, timeScale })) {
    if (check.category === 'comparisons') continue;
    seed += 1;
    const spec: JsonObject = {};
    const sensorParameters = catalog.sensorOf(check).parameters;
    if (sensorParameters.length > 0) spec.parameters = Object.fromEntries(sensorParameters.map((p) => [p.name, sampleValue(p, seed)]));
    spec.warning = Object.fromEntries(catalog.ruleOf(check).parameters.map((p) => [p.name, sampleValue(p, seed)]));
    spec.error = {};
    if (seed % 2 === 0) spec.disabled = true;
    if (seed % 3 === 0) spec.include_in_sla = true;
    if (seed % 5 === 0) spec.quality_dimension = 'Validity';
    (container[check.category] ??= {})[check.checkName] = spec;
  }
  return container;
}

describe('applyCheckContainerModel', () => {
  it('round trip: model -> spec -> model keeps every configured check', () => {
    for (const [target, checkType, timeScale] of [['column', 'monitoring', 'daily'], ['table', 'partitioned', 'monthly'], ['column', 'profiling', null]] as const) {
      const spec = everythingConfigured(target, checkType, timeScale);
      const model = modelOf(target, checkType, timeScale, spec);
      const written = applyCheckContainerModel(model);
      expect(modelOf(target, checkType, timeScale, written)).toEqual(model);
      // Values differing from the defaults are written as they were.
      expect(written).toEqual(spec);
    }
  });

  it('round trip with the previous spec: spec -> model -> spec is exact, defaults written out included', () => {
    const spec: JsonObject = {
      volume: { daily_row_count: { error: { min_count: 1 }, warning: {} } },
      schema: { daily_column_count: { parameters: { filter: 'x > 1' } } },
    };
    const model = modelOf('table', 'monitoring', 'daily', spec);
    expect(applyCheckContainerModel(model, { previous: spec })).toEqual(spec);
    // Without it, a value equal to the default is not written again.
    expect(applyCheckContainerModel(model)).toEqual({ volume: { daily_row_count: { error: {}, warning: {} } }, schema: { daily_column_count: {} } });
  });

  it('writes configured checks and leaves unconfigured checks and severities out', () => {
    const model = checkContainerModel('table', 'monitoring', 'daily', {}, ALL);
    const check = findCheck(model, 'daily_row_count');
    check.configured = true;
    check.rule.error.configured = true;
    check.rule.error.rule_parameters[0].long_value = 10;
    check.rule.warning.rule_parameters[0].long_value = 50; // not configured: ignored
    check.include_in_sla = true;
    const anomaly = findCheck(model, 'daily_row_count_anomaly');
    anomaly.configured = true;
    expect(applyCheckContainerModel(model)).toEqual({
      volume: { daily_row_count: { error: { min_count: 10 }, include_in_sla: true }, daily_row_count_anomaly: {} },
    });
  });

  it('removes a check that is no longer configured, and a severity turned off or disabled', () => {
    const previous: JsonObject = {
      volume: { daily_row_count: { warning: { min_count: 5 }, error: { min_count: 1 }, fatal: {} }, daily_row_count_change: {} },
    };
    const model = modelOf('table', 'monitoring', 'daily', previous);
    findCheck(model, 'daily_row_count_change').configured = false;
    const check = findCheck(model, 'daily_row_count');
    check.rule.warning.configured = false;
    check.rule.fatal.disabled = true;
    expect(applyCheckContainerModel(model, { previous })).toEqual({ volume: { daily_row_count: { error: { min_count: 1 } } } });
    findCheck(model, 'daily_row_count').configured = false;
    expect(applyCheckContainerModel(model, { previous })).toEqual({});
  });

  it('keeps what the model cannot express from the previous spec', () => {
    const previous: JsonObject = {
      volume: {
        daily_row_count: {
          parameters: { filter: "status = 'active'" },
          error: { min_count: 3 },
          display_name: 'Rows',
          comments: [{ comment: 'why', comment_by: 'me' }],
          data_grouping: 'by_country',
        },
      },
      comparisons: { to_dwh: { daily_row_count_match: {} } },
    };
    const model = modelOf('table', 'monitoring', 'daily', previous);
    findCheck(model, 'daily_row_count').rule.error.rule_parameters[0].long_value = 4;
    expect(applyCheckContainerModel(model, { previous })).toEqual({
      volume: {
        daily_row_count: {
          parameters: { filter: "status = 'active'" },
          error: { min_count: 4 },
          display_name: 'Rows',
          comments: [{ comment: 'why', comment_by: 'me' }],
          data_grouping: 'by_country',
        },
      },
      comparisons: { to_dwh: { daily_row_count_match: {} } },
    });
  });

  it('keeps previous checks a partial model does not mention', () => {
    const previous: JsonObject = { volume: { daily_row_count: { error: { min_count: 3 } } } };
    const partial: CheckContainerModel = { categories: [], can_edit: true, can_run_checks: true, can_delete_data: true };
    expect(applyCheckContainerModel(partial, { previous })).toEqual(previous);
  });

  it('does not copy a policy check sent back unchanged into the table; an edited one is written', () => {
    const t = table('shop/public.orders', { monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 2 } } } } } });
    const policy = tablePolicy('p', {
      monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 9 } }, daily_row_count_change: { warning: { max_percent: 20 } } } } },
    });
    const inherited: EffectiveContainer = effectiveTableChecks(t, undefined, [policy]).monitoring.daily;
    const previous = t.spec.monitoring_checks as JsonObject;
    const model = checkContainerModel('table', 'monitoring', 'daily', inherited, ALL);
    expect(applyCheckContainerModel(model, { previous: previous.daily as JsonObject, inherited })).toEqual(previous.daily);

    findCheck(model, 'daily_row_count_change').rule.warning.rule_parameters[0].double_value = 5;
    expect(applyCheckContainerModel(model, { previous: previous.daily as JsonObject, inherited })).toEqual({
      volume: { daily_row_count: { error: { min_count: 2 } }, daily_row_count_change: { warning: { max_percent: 5 } } },
    });
  });

  it('reads a value a client put in another value field', () => {
    const model = checkContainerModel('table', 'monitoring', 'daily', {}, ALL);
    const check = findCheck(model, 'daily_row_count');
    check.configured = true;
    check.rule.error.configured = true;
    const field = check.rule.error.rule_parameters[0];
    delete field.long_value;
    field.integer_value = 7;
    expect(applyCheckContainerModel(model)).toEqual({ volume: { daily_row_count: { error: { min_count: 7 } } } });
  });

  it('ignores names that would not be plain keys', () => {
    const model = JSON.parse('{"categories":[{"category":"__proto__","checks":[{"check_name":"x","configured":true}]},{"category":"volume","checks":[{"check_name":"__proto__","configured":true}]}]}') as CheckContainerModel;
    const written = applyCheckContainerModel(model);
    expect(written).toEqual({});
    expect(Object.getPrototypeOf(written)).toBe(Object.prototype);
  });

  it('works for column containers and policy containers alike', () => {
    const t = table('s/p.t', { columns: { email: { type_snapshot: { column_type: 'text' } } } });
    const policy = columnPolicy('c', { target: { data_type_category: 'text' }, monitoring_checks: { daily: { nulls: { daily_nulls_count: {} } } } });
    const columns = effectiveTableAndColumnChecks(t, undefined, [policy]).columns;
    const model = checkContainerModel('column', 'monitoring', 'daily', columns.email.monitoring.daily, ALL);
    expect(findCheck(model, 'daily_nulls_count')).toMatchObject({ configured: true, default_check: true });
    // The policy's own model: its checks are its own (not default checks).
    const policyModel = checkContainerModel('column', 'monitoring', 'daily', ownChecks(policy.spec).monitoring.daily, ALL);
    expect(findCheck(policyModel, 'daily_nulls_count')).toMatchObject({ configured: true, default_check: false });
    expect(applyCheckContainerModel(policyModel)).toEqual({ nulls: { daily_nulls_count: {} } });
  });
});
