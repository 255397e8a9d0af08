import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/diff/contentHash.js';
import { normalizeSpec } from '../../src/diff/normalizeSpec.js';

describe('normalizeSpec: the same meaning has one form', () => {
  it('drops nulls, empty containers and disabled: false', () => {
    const spec = normalizeSpec('table', {
      disabled: false,
      labels: [],
      comments: null,
      profiling_checks: {},
      monitoring_checks: { daily: {} },
      timestamp_columns: { event_timestamp_column: null },
    });
    expect(spec).toEqual({});
  });

  it('keeps the empty objects that mean something: a check, a severity, a column', () => {
    const spec = normalizeSpec('table', {
      columns: { id: {}, email: { profiling_checks: { nulls: { profile_nulls_count: {} } } } },
      monitoring_checks: { daily: { volume: { daily_row_count: { warning: {}, error: { min_count: 1 }, parameters: {} } } } },
    });
    expect(spec).toEqual({
      columns: { id: {}, email: { profiling_checks: { nulls: { profile_nulls_count: {} } } } },
      monitoring_checks: { daily: { volume: { daily_row_count: { warning: {}, error: { min_count: 1 } } } } },
    });
  });

  it('gives policies their default priority and sorts keys', () => {
    expect(normalizeSpec('default_table_checks', { target: { table: '*' } })).toEqual({ priority: 1000, target: { table: '*' } });
    expect(Object.keys(normalizeSpec('default_column_checks', { target: { column: 'id' }, priority: 10, description: 'x' }))).toEqual([
      'description',
      'priority',
      'target',
    ]);
  });

  it('stores a connection port as a string, as DQOps does', () => {
    expect(normalizeSpec('source', { postgresql: { port: 5432 } })).toEqual({ postgresql: { port: '5432' } });
  });

  it('hashes the same meaning the same way, whatever the key order', () => {
    const a = normalizeSpec('table', { labels: ['x'], priority: 2, columns: { b: {}, a: {} } });
    const b = normalizeSpec('table', { columns: { a: {}, b: {} }, priority: 2, labels: ['x'], disabled: false });
    expect(contentHash(a, {})).toBe(contentHash(b, {}));
    expect(contentHash(a, {})).not.toBe(contentHash(normalizeSpec('table', { priority: 3 }), {}));
  });

  it('is idempotent', () => {
    const once = normalizeSpec('default_table_checks', { disabled: false, monitoring_checks: { daily: { volume: { daily_row_count: {} } } } });
    expect(normalizeSpec('default_table_checks', once)).toEqual(once);
  });
});

describe('contentHash relies on normalized specs being canonical JSON', () => {
  it('JSON.stringify of every normalized spec of the example equals its canonical (sorted) form', async () => {
    const { loadRepository } = await import('../../src/manifest/loadRepository.js');
    const { canonicalJson } = await import('../../src/diff/contentHash.js');
    const { EXAMPLE } = await import('../helpers/cli.js');
    const state = await loadRepository(EXAMPLE);
    expect(state.objects.length).toBeGreaterThan(20);
    for (const o of state.objects) expect(JSON.stringify(o.spec), `${o.kind} ${o.name}`).toBe(canonicalJson(o.spec));
  });
});
