import { describe, expect, it } from 'vitest';
import { diff, keysNeedingDetail, type DiffOptions } from '../../src/diff/diff.js';
import { keyId, type DesiredObject, type LiveObject } from '../../src/model/index.js';
import { desired, drifted, live } from '../helpers/objects.js';

const options: DiffOptions = { namespace: 'default', protectedPatterns: [], pruneUnmanaged: false, keepDrift: false };

function run(d: DesiredObject[], l: LiveObject[], o: Partial<DiffOptions> = {}) {
  const opts = { ...options, ...o };
  const needed = new Set(keysNeedingDetail(d, l, opts).map(keyId));
  const details = new Map(l.filter((x) => needed.has(keyId(x))).map((x) => [keyId(x), x]));
  return diff(d, l, details, opts);
}

describe('diff', () => {
  const source = { provider_type: 'postgresql', postgresql: { host: 'db', port: 5432 } };

  it('creates what is only in the repository', () => {
    const r = run([desired('source', 'shop', source)], []);
    expect(r.changes).toEqual([expect.objectContaining({ action: 'create', key: { kind: 'source', name: 'shop' } })]);
  });

  it('reports nothing when desired and live mean the same', () => {
    const r = run([desired('source', 'shop', source)], [live('source', 'shop', { ...source, postgresql: { host: 'db', port: '5432' } })]);
    expect(r.changes).toEqual([]);
    expect(keysNeedingDetail([desired('source', 'shop', source)], [live('source', 'shop', source)], options)).toEqual([]);
  });

  it('updates with field-level old -> new paths', () => {
    const r = run([desired('source', 'shop', { ...source, postgresql: { host: 'db2', port: 5432 }, labels: ['x'] })], [live('source', 'shop', source)]);
    expect(r.changes).toHaveLength(1);
    const change = r.changes[0];
    expect(change.action).toBe('update');
    if (change.action !== 'update') throw new Error('unreachable');
    expect(change.reason).toBe('repository_changed');
    expect(change.fields).toEqual([
      { path: ['spec', 'labels'], before: undefined, after: ['x'], origin: 'repository' },
      { path: ['spec', 'postgresql', 'host'], before: 'db', after: 'db2', origin: 'repository' },
    ]);
  });

  it('deletes git-managed objects that left the repository, with the reason', () => {
    const r = run([], [live('rule', 'custom/x', { type: 'python' })]);
    expect(r.changes).toEqual([expect.objectContaining({ action: 'delete', reason: 'not_in_repository' })]);
  });

  it('keeps API-created objects unless pruning, and never deletes protected ones', () => {
    const apiObject = live('table', 'shop/public.t', {}, { managedBy: 'api', appliedHash: null });
    expect(run([], [apiObject]).kept).toEqual([expect.objectContaining({ reason: 'unmanaged' })]);
    expect(run([], [apiObject], { pruneUnmanaged: true }).changes).toEqual([expect.objectContaining({ action: 'delete', reason: 'prune_unmanaged' })]);
    const protectedOne = live('source', 'shop', source);
    const r = run([], [protectedOne], { protectedPatterns: ['source:sh*'] });
    expect(r.changes).toEqual([]);
    expect(r.kept).toEqual([expect.objectContaining({ reason: 'protected' })]);
  });

  it('adopts an API-created object that appears in the repository', () => {
    const r = run([desired('table', 'shop/public.t', {})], [live('table', 'shop/public.t', {}, { managedBy: 'api', appliedHash: null })]);
    expect(r.changes).toEqual([expect.objectContaining({ action: 'update', reason: 'adopt', fields: [] })]);
  });

  it('never touches objects of another namespace, and reports a conflict when the repository claims one', () => {
    const foreign = live('source', 'other', source, { owner: 'team-b' });
    expect(run([], [foreign])).toMatchObject({ changes: [], kept: [], conflicts: [] });
    expect(run([desired('source', 'other', source)], [foreign]).conflicts).toEqual([
      expect.objectContaining({ owner: 'team-b', key: { kind: 'source', name: 'other' } }),
    ]);
  });

  describe('objects changed outside git (drift)', () => {
    const base = live('source', 'shop', source);
    const changed = drifted(base, { ...source, parallel_jobs_limit: 4 });

    it('shows drift and restores the repository version by default', () => {
      const r = run([desired('source', 'shop', source)], [changed]);
      expect(r.drift).toEqual([expect.objectContaining({ restored: true })]);
      expect(r.changes).toEqual([expect.objectContaining({ action: 'update', reason: 'restore_drift' })]);
    });

    it('keeps drift with keepDrift, and still reports it', () => {
      const r = run([desired('source', 'shop', source)], [changed], { keepDrift: true });
      expect(r.changes).toEqual([]);
      expect(r.drift).toEqual([
        expect.objectContaining({ restored: false, fields: [{ path: ['spec', 'parallel_jobs_limit'], before: undefined, after: 4, origin: 'api' }] }),
      ]);
    });

    it('resyncs silently when the repository adopted the API change', () => {
      const r = run([desired('source', 'shop', { ...source, parallel_jobs_limit: 4 })], [changed]);
      expect(r.changes).toEqual([]);
      expect(r.resynced.map((d) => d.name)).toEqual(['shop']);
    });
  });
});
