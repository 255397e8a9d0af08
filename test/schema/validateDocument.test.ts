import { describe, expect, it } from 'vitest';
import { validateDocument, type DocumentKind, type SchemaViolation } from '../../src/schema/index.js';
import { validDocument } from './validDocuments.js';

const KINDS: DocumentKind[] = ['source', 'table', 'rule', 'default_table_checks', 'default_column_checks', 'settings'];

/** The only violation of a document; fails when there is not exactly one. */
function only(kind: DocumentKind, document: unknown): SchemaViolation {
  const violations = validateDocument(kind, document);
  expect(violations, JSON.stringify(violations, null, 2)).toHaveLength(1);
  return violations[0];
}

describe('validateDocument: valid documents', () => {
  it.each(KINDS)('accepts a valid %s document', (kind) => {
    expect(validateDocument(kind, validDocument(kind))).toEqual([]);
  });

  it('accepts an empty check, and empty or null severities', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_count = { warning: {}, error: null };
    expect(validateDocument('table', doc)).toEqual([]);
  });

  it('accepts the port of a PostgreSQL connection as a string (an ${ENV} reference)', () => {
    const doc = validDocument('source');
    doc.spec.postgresql.port = '${PGPORT}';
    expect(validateDocument('source', doc)).toEqual([]);
  });
});

describe('validateDocument: unknown_key', () => {
  it('reports the key itself, with a did-you-mean among the allowed keys', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_count.warnin = { min_count: 1 };
    const v = only('table', doc);
    expect(v).toMatchObject({
      code: 'unknown_key',
      onKey: true,
      path: ['spec', 'monitoring_checks', 'daily', 'volume', 'daily_row_count', 'warnin'],
      suggestions: ['warning'],
    });
    expect(v.summary).toBe('unknown key "warnin"; did you mean "warning"?');
  });

  it('lists the allowed keys when nothing is close', () => {
    const doc = validDocument('source');
    doc.spec.postgresql.tresh = 1;
    const v = only('source', doc);
    expect(v).toMatchObject({ code: 'unknown_key', path: ['spec', 'postgresql', 'tresh'], onKey: true });
    expect(v.suggestions).toBeUndefined();
    expect(v.detail).toContain('sslmode');
  });

  it('reports unknown keys at the top level and in settings', () => {
    const doc = validDocument('settings');
    doc.metadata = {};
    doc.spec.prune.mass_delete_treshold = 0.5;
    const violations = validateDocument('settings', doc);
    expect(violations.map((v) => [v.code, v.path])).toEqual([
      ['unknown_key', ['metadata']],
      ['unknown_key', ['spec', 'prune', 'mass_delete_treshold']],
    ]);
    expect(violations[1].suggestions).toEqual(['mass_delete_threshold']);
  });

  it('explains a category written directly under monitoring_checks', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.volume = {};
    const v = only('table', doc);
    expect(v).toMatchObject({ code: 'unknown_key', path: ['spec', 'monitoring_checks', 'volume'] });
    expect(v.detail).toContain('monitoring_checks.daily.volume');
  });

  it('uses array indexes as numbers in paths', () => {
    const doc = validDocument('table');
    doc.spec.source_tables[0].source_tabel = 'x';
    expect(only('table', doc)).toMatchObject({ path: ['spec', 'source_tables', 0, 'source_tabel'], suggestions: ['source_table'] });
  });

  it('keeps numeric-looking mapping keys as strings', () => {
    const doc = validDocument('table');
    doc.spec.columns['2024'] = { bogus: true };
    expect(only('table', doc)).toMatchObject({ code: 'unknown_key', path: ['spec', 'columns', '2024', 'bogus'] });
  });
});

describe('validateDocument: wrong_type', () => {
  it('names the expected and the actual type and value', () => {
    const doc = validDocument('table');
    doc.spec.priority = 'abc';
    expect(only('table', doc)).toEqual({
      path: ['spec', 'priority'],
      onKey: false,
      code: 'wrong_type',
      summary: 'expected integer, got string "abc"',
    });
  });

  it('types rule parameters from the catalog', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_count.error.min_count = 1.5;
    expect(only('table', doc)).toMatchObject({
      code: 'wrong_type',
      path: ['spec', 'monitoring_checks', 'daily', 'volume', 'daily_row_count', 'error', 'min_count'],
      summary: 'expected integer, got number 1.5',
    });
  });

  it('types sensor parameters from the catalog (string_list)', () => {
    const doc = validDocument('table');
    doc.spec.columns.status.monitoring_checks.daily.accepted_values.daily_text_found_in_set_percent.parameters.expected_values = 'new';
    expect(only('table', doc)).toMatchObject({ code: 'wrong_type', summary: 'expected list, got string "new"' });
  });

  it('explains that an empty YAML value is null', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_count = null;
    const v = only('table', doc);
    expect(v).toMatchObject({ code: 'wrong_type', summary: 'expected mapping, got null' });
    expect(v.detail).toContain('{}');
  });

  it('names both types of a value that may be a string or an integer', () => {
    const doc = validDocument('source');
    doc.spec.postgresql.port = true;
    expect(only('source', doc)).toMatchObject({ code: 'wrong_type', summary: 'expected string or integer, got boolean true' });
  });

  it('reports a document that is not a mapping once', () => {
    expect(validateDocument('table', ['x'])).toEqual([{ path: [], onKey: false, code: 'wrong_type', summary: 'expected mapping, got list' }]);
  });
});

describe('validateDocument: missing_key', () => {
  it('reports the object that lacks the key', () => {
    const doc = validDocument('rule');
    delete doc.spec;
    expect(only('rule', doc)).toEqual({ path: [], onKey: false, code: 'missing_key', summary: 'missing key "spec"' });
  });
});

describe('validateDocument: invalid_value', () => {
  it('lists the allowed values of an enum, with a did-you-mean', () => {
    const doc = validDocument('source');
    doc.spec.postgresql.sslmode = 'verify_full';
    const v = only('source', doc);
    expect(v).toMatchObject({ code: 'invalid_value', path: ['spec', 'postgresql', 'sslmode'], onKey: false, suggestions: ['verify-full'] });
    expect(v.detail).toContain('"disable"');
  });

  it('lists the allowed values when nothing is close', () => {
    const doc = validDocument('default_column_checks');
    doc.spec.target.data_type_category = 'string';
    const v = only('default_column_checks', doc);
    expect(v).toMatchObject({ code: 'invalid_value', path: ['spec', 'target', 'data_type_category'] });
    expect(v.summary).toContain('"numeric_integer"');
  });

  it('checks enum sensor parameters against the catalog', () => {
    const doc = validDocument('table');
    doc.spec.columns.status.profiling_checks.datetime.profile_text_match_date_format_percent.parameters.date_format = 'YYYY/MM/DD';
    expect(only('table', doc)).toMatchObject({ code: 'invalid_value', path: ['spec', 'columns', 'status', 'profiling_checks', 'datetime', 'profile_text_match_date_format_percent', 'parameters', 'date_format'] });
  });

  it('reports a wrong apiVersion or kind (const)', () => {
    const doc = validDocument('table');
    doc.apiVersion = 'dqo/v2';
    expect(only('table', doc)).toEqual({ path: ['apiVersion'], onKey: false, code: 'invalid_value', summary: 'apiVersion must be "dqo/v1", not "dqo/v2"' });
  });

  it('reports only the envelope of a document of another kind, not every key of its spec', () => {
    const doc = validDocument('source');
    expect(validateDocument('table', doc)).toEqual([
      { path: ['kind'], onKey: false, code: 'invalid_value', summary: 'kind must be "table", not "source"' },
    ]);
  });

  it('reports numbers out of range and strings not matching a pattern', () => {
    const doc = validDocument('settings');
    doc.spec.namespace = 'Team A';
    doc.spec.prune.mass_delete_threshold = 2;
    const violations = validateDocument('settings', doc);
    expect(violations.map((v) => [v.code, v.path.join('.')])).toEqual([
      ['invalid_value', 'spec.namespace'],
      ['invalid_value', 'spec.prune.mass_delete_threshold'],
    ]);
    expect(violations[1].summary).toBe('mass_delete_threshold must be <= 1, got integer 2');
  });

  it('reports an invalid date', () => {
    const doc = validDocument('default_column_checks');
    doc.spec.monitoring_checks = { daily: { datetime: { daily_date_in_range_percent: { parameters: { min_date: '2024-13-40' } } } } };
    expect(only('default_column_checks', doc)).toMatchObject({ code: 'invalid_value', summary: '"2024-13-40" is not a valid date (YYYY-MM-DD)' });
  });
});

describe('validateDocument: unknown_check', () => {
  it('suggests checks of the same container and category', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_cont = {};
    const v = only('table', doc);
    expect(v).toMatchObject({
      code: 'unknown_check',
      onKey: true,
      path: ['spec', 'monitoring_checks', 'daily', 'volume', 'daily_row_cont'],
      suggestions: ['daily_row_count'],
    });
    expect(v.summary).toBe('unknown check "daily_row_cont" in monitoring_checks.daily.volume; did you mean "daily_row_count"?');
  });

  it('suggests a check of another category of the same container, saying where', () => {
    const doc = validDocument('table');
    doc.spec.columns.id.monitoring_checks.daily.nulls.daily_duplicate_cont = {};
    const v = only('table', doc);
    expect(v).toMatchObject({ code: 'unknown_check', suggestions: ['daily_duplicate_count'] });
    expect(v.summary).toContain('monitoring_checks.daily.uniqueness');
  });

  it('rejects custom checks', () => {
    const doc = validDocument('default_table_checks');
    doc.spec.monitoring_checks.daily.volume.my_custom_check = {};
    const v = only('default_table_checks', doc);
    expect(v).toMatchObject({ code: 'unknown_check', path: ['spec', 'monitoring_checks', 'daily', 'volume', 'my_custom_check'] });
    expect(v.suggestions).toBeUndefined();
  });

  it('reports unknown checks inside a table comparison', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.comparisons.to_crm.daily_row_count_mach = {};
    expect(only('table', doc)).toMatchObject({ code: 'unknown_check', suggestions: ['daily_row_count_match'] });
  });
});

describe('validateDocument: check_wrong_container', () => {
  it('says where a check of another check type belongs, and which check fits here', () => {
    const doc = validDocument('table');
    doc.spec.profiling_checks.volume.daily_row_count = {};
    const v = only('table', doc);
    expect(v).toMatchObject({
      code: 'check_wrong_container',
      onKey: true,
      path: ['spec', 'profiling_checks', 'volume', 'daily_row_count'],
      suggestions: ['profile_row_count'],
    });
    expect(v.summary).toBe('daily_row_count belongs under monitoring_checks.daily.volume; did you mean "profile_row_count"?');
  });

  it('says where a check written without its category belongs', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.daily_row_count_change = {};
    expect(only('table', doc)).toMatchObject({
      code: 'check_wrong_container',
      summary: 'daily_row_count_change belongs under monitoring_checks.daily.volume',
    });
  });

  it('says that a column check belongs under a column', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_nulls_count = {};
    expect(only('table', doc).summary).toBe(
      'daily_nulls_count is a column check: it belongs under spec.columns.<column>.monitoring_checks.daily.nulls',
    );
  });

  it('says that a table check in a column policy belongs in a table policy', () => {
    const doc = validDocument('default_column_checks');
    doc.spec.profiling_checks.nulls.profile_row_count = {};
    expect(only('default_column_checks', doc).summary).toContain('belongs in a table quality policy');
  });

  it('says that comparison checks need the comparison name level', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.comparisons = { daily_row_count_match: { error: { max_diff_percent: 1 } } };
    expect(only('table', doc)).toMatchObject({
      code: 'check_wrong_container',
      path: ['spec', 'monitoring_checks', 'daily', 'comparisons', 'daily_row_count_match'],
    });
  });
});

describe('validateDocument: unknown_category', () => {
  it('suggests a category of the container', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volumes = {};
    expect(only('table', doc)).toMatchObject({
      code: 'unknown_category',
      onKey: true,
      path: ['spec', 'monitoring_checks', 'daily', 'volumes'],
      suggestions: ['volume'],
    });
  });

  it('says that a column category does not belong at table level', () => {
    const doc = validDocument('table');
    doc.spec.profiling_checks.nulls = {};
    const v = only('table', doc);
    expect(v).toMatchObject({ code: 'unknown_category', summary: '"nulls" is a column check category, not a table one' });
    expect(v.detail).toContain('spec.columns.<column>');
  });

  it('says that a category has no checks in this container', () => {
    const doc = validDocument('table');
    doc.spec.partitioned_checks.daily.availability = {};
    expect(only('table', doc)).toMatchObject({ code: 'unknown_category', summary: 'category "availability" has no table checks in partitioned_checks.daily' });
  });
});

describe('validateDocument: unknown_rule_parameter and unknown_sensor_parameter', () => {
  it('suggests a parameter of the rule', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_count.error = { min_cont: 1 };
    const v = only('table', doc);
    expect(v).toMatchObject({
      code: 'unknown_rule_parameter',
      onKey: true,
      path: ['spec', 'monitoring_checks', 'daily', 'volume', 'daily_row_count', 'error', 'min_cont'],
      suggestions: ['min_count'],
    });
    expect(v.summary).toBe('unknown rule parameter "min_cont" of comparison/min_count; did you mean "min_count"?');
  });

  it('says when a rule takes no parameters', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.schema.daily_column_count_changed.error = { max_count: 0 };
    expect(only('table', doc).detail).toBe('the rule comparison/value_changed takes no parameters; write {} to enable this severity');
  });

  it('suggests a parameter of the sensor', () => {
    const doc = validDocument('table');
    doc.spec.columns.status.monitoring_checks.daily.accepted_values.daily_text_found_in_set_percent.parameters.expected_value = ['a'];
    const v = only('table', doc);
    expect(v).toMatchObject({ code: 'unknown_sensor_parameter', onKey: true, suggestions: ['expected_values'] });
    expect(v.path.at(-1)).toBe('expected_value');
  });

  it('says when a sensor takes only a filter', () => {
    const doc = validDocument('default_table_checks');
    doc.spec.monitoring_checks.daily.volume.daily_row_count.parameters = { min_count: 1 };
    const v = only('default_table_checks', doc);
    expect(v).toMatchObject({ code: 'unknown_sensor_parameter' });
    expect(v.detail).toBe('the sensor table/volume/row_count takes no parameters besides filter');
  });
});

describe('validateDocument: several mistakes', () => {
  it('reports each once, in one pass', () => {
    const doc = validDocument('table');
    doc.spec.priority = 'high';
    doc.spec.monitoring_checks.daily.volume.daily_row_cont = {};
    doc.spec.columns.id.type_snapshot.length = '5';
    doc.spec.columns.id.labels = 'pk';
    const codes = validateDocument('table', doc).map((v) => v.code).sort();
    expect(codes).toEqual(['unknown_check', 'wrong_type', 'wrong_type', 'wrong_type']);
  });

  it('reports a mistake in a shared check shape once per place', () => {
    const doc = validDocument('table');
    doc.spec.monitoring_checks.daily.volume.daily_row_count.error = { min_cont: 1 };
    doc.spec.monitoring_checks.daily.volume.daily_row_count.warning = { min_cont: 1 };
    expect(validateDocument('table', doc).map((v) => v.path.at(-2))).toEqual(['warning', 'error']);
  });
});
