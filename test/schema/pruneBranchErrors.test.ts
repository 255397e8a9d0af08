import { describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { createSchemaAjv } from '../../src/schema/index.js';
import { translateAjvErrors } from '../../src/schema/translateAjvErrors.js';

/** The generated schemas avoid anyOf/oneOf; hand-written ones (API models) may not. */
const schema = {
  $id: 'https://dqctl.dev/schemas/test-combinators.json',
  $defs: {
    schedule: {
      type: 'object',
      properties: { cron_expression: { type: 'string' }, disabled: { type: 'boolean' }, nested: { $ref: '#/$defs/nested' } },
      required: ['cron_expression'],
      additionalProperties: false,
    },
    nested: { type: 'object', properties: { level: { type: 'integer' } }, additionalProperties: false },
  },
  type: 'object',
  properties: {
    schedule: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/schedule' }] },
    limit: { oneOf: [{ type: 'integer' }, { type: 'string', pattern: '^\\$\\{' }] },
  },
  additionalProperties: false,
};

function violations(document: unknown) {
  const validate = createSchemaAjv().compile(schema);
  expect(validate(document)).toBe(false);
  return translateAjvErrors(validate.errors ?? [], document, { kind: 'table', catalog: getCheckCatalog, rootSchema: validate.schema });
}

describe('anyOf / oneOf errors', () => {
  it('reports only the branch the value meant (the object), not "must be string" too', () => {
    const result = violations({ schedule: { cron_expresion: '* * * * *', disabled: 'yes' } });
    expect(result.map((v) => [v.code, v.path.join('.')])).toEqual([
      ['missing_key', 'schedule'],
      ['unknown_key', 'schedule.cron_expresion'],
      ['wrong_type', 'schedule.disabled'],
    ]);
    expect(result[1].suggestions).toEqual(['cron_expression']);
  });

  it('follows references into the chosen branch', () => {
    const result = violations({ schedule: { cron_expression: 'x', nested: { level: 'high', extra: 1 } } });
    expect(result.map((v) => [v.code, v.path.join('.')])).toEqual([
      ['unknown_key', 'schedule.nested.extra'],
      ['wrong_type', 'schedule.nested.level'],
    ]);
  });

  it('merges a wrong type for every branch into one error', () => {
    expect(violations({ schedule: 5 })).toEqual([
      { path: ['schedule'], onKey: false, code: 'wrong_type', summary: 'expected string or mapping, got integer 5' },
    ]);
  });

  it('keeps the deeper failure of a oneOf whose branches are all scalars', () => {
    const result = violations({ limit: 'ten' });
    expect(result.map((v) => [v.code, v.path.join('.')])).toEqual([['invalid_value', 'limit']]);
    expect(result[0].summary).toContain('must match');
  });
});
