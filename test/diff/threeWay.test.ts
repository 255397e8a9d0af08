import { describe, expect, it } from 'vitest';
import { diff, keysNeedingDetail, type DiffOptions } from '../../src/diff/diff.js';
import { keyId, type DesiredObject, type LiveObject } from '../../src/model/index.js';
import { desired, drifted, live } from '../helpers/objects.js';

/**
 * The three-way comparison: base (last applied), live, repository. Every field that differs is credited to the
 * side that changed it since the last apply; the drift list holds only what the API changed.
 */
const options: DiffOptions = { namespace: 'default', protectedPatterns: [], pruneUnmanaged: false, keepDrift: false };

function run(d: DesiredObject[], l: LiveObject[], o: Partial<DiffOptions> = {}) {
  const opts = { ...options, ...o };
  const needed = new Set(keysNeedingDetail(d, l, opts).map(keyId));
  return diff(d, l, new Map(l.filter((x) => needed.has(keyId(x))).map((x) => [keyId(x), x])), opts);
}

const applied = { columns: { id: { type_snapshot: { column_type: 'int' } } }, labels: ['core'], incident_grouping: { grouping_level: 'table' } };

describe('three-way comparison', () => {
  const base = live('table', 'shop/public.customers', applied);
  // the API changed the labels; the repository raised the grouping level
  const apiChanged = drifted(base, { ...applied, labels: ['core', 'pii'] });
  const repository = desired('table', 'shop/public.customers', { ...applied, incident_grouping: { grouping_level: 'table_dimension' } });

  it('credits a repository change on a drifted object to the repository, and the API change to the API', () => {
    const r = run([repository], [apiChanged]);
    expect(r.changes).toHaveLength(1);
    const change = r.changes[0];
    if (change.action !== 'update') throw new Error('expected an update');
    expect(change.reason).toBe('repository_changed');
    expect(change.fields).toEqual([
      { path: ['spec', 'incident_grouping', 'grouping_level'], before: 'table', after: 'table_dimension', origin: 'repository' },
      { path: ['spec', 'labels'], before: ['core', 'pii'], after: ['core'], origin: 'api' },
    ]);
    // drift lists the API's change only, from the repository's value to the live one
    expect(r.drift).toEqual([expect.objectContaining({ restored: true, fields: [{ path: ['spec', 'labels'], before: ['core'], after: ['core', 'pii'], origin: 'api' }] })]);
    expect(change.write).toBeUndefined();
  });

  it('with keep-drift, applies the repository change and keeps the API change (merged content, repository version recorded)', () => {
    const r = run([repository], [apiChanged], { keepDrift: true });
    const change = r.changes[0];
    if (change.action !== 'update') throw new Error('expected an update');
    expect(change.fields.find((f) => f.origin === 'api')).toMatchObject({ kept: true });
    expect(change.fields.find((f) => f.origin === 'repository')?.kept).toBeUndefined();
    expect(change.write?.spec).toMatchObject({ labels: ['core', 'pii'], incident_grouping: { grouping_level: 'table_dimension' } });
    expect(change.write?.hash).not.toBe(repository.hash);
    expect(r.drift).toEqual([expect.objectContaining({ restored: false })]);
  });

  it('calls a field both sides changed a conflict (both), and the repository value wins', () => {
    const bothChanged = drifted(base, { ...applied, labels: ['from-api'] });
    const repositoryLabels = desired('table', 'shop/public.customers', { ...applied, labels: ['from-git'] });
    for (const keepDrift of [false, true]) {
      const r = run([repositoryLabels], [bothChanged], { keepDrift });
      const change = r.changes[0];
      if (change.action !== 'update') throw new Error('expected an update');
      expect(change.fields).toEqual([{ path: ['spec', 'labels'], before: ['from-api'], after: ['from-git'], origin: 'both' }]);
      expect(r.drift[0].fields).toEqual([{ path: ['spec', 'labels'], before: ['from-git'], after: ['from-api'], origin: 'both' }]);
      if (keepDrift) expect(change.write?.spec).toMatchObject({ labels: ['from-git'] });
    }
  });

  it('leaves out of the drift a change both sides made alike', () => {
    const same = drifted(base, { ...applied, labels: ['core', 'pii'], incident_grouping: { grouping_level: 'table_dimension' } });
    const r = run([desired('table', 'shop/public.customers', { ...applied, labels: ['core', 'pii'], incident_grouping: { grouping_level: 'table_dimension' } })], [same]);
    expect(r.changes).toEqual([]);
    expect(r.resynced).toHaveLength(1);
  });

  it('without a recorded base (drifted before dqctl kept it) credits what differs to both sides', () => {
    const legacy: LiveObject = { ...apiChanged, applied: null };
    const r = run([repository], [legacy]);
    const change = r.changes[0];
    if (change.action !== 'update') throw new Error('expected an update');
    expect(change.fields.map((f) => f.origin)).toEqual(['both', 'both']);
    // keep-drift cannot merge without a base: the repository's version is written whole, and the plan says so
    const kept = run([repository], [legacy], { keepDrift: true });
    const keptChange = kept.changes[0];
    if (keptChange.action !== 'update') throw new Error('expected an update');
    expect(keptChange.write).toBeUndefined();
    expect(kept.drift[0].restored).toBe(true);
  });

  it('when only the API changed the object, every field is the API’s', () => {
    const r = run([desired('table', 'shop/public.customers', applied)], [apiChanged]);
    const change = r.changes[0];
    if (change.action !== 'update') throw new Error('expected an update');
    expect(change.reason).toBe('restore_drift');
    expect(change.fields.map((f) => f.origin)).toEqual(['api']);
  });
});
