import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compareKeys, type ObjectWrite } from '../../src/model/index.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { objectWrite, tableWrites } from './support/objectWrites.js';

const LOCK = { holder: 'test@objects', operation: 'apply', timeoutMs: 5_000 };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Awkward but legal content: what YAML files can carry into jsonb and back. */
const awkwardSpec = {
  comment: 'naïve café — 日本語 — emoji 🧪 — "double" and \'single\' quotes — back\\slash — tab\tnewline\n',
  nested: { deep: [1, 2.5, -3, true, false, null, { 'key with spaces': 'value' }], empty: {}, none: [] },
  'quoted "key"': "it's",
  big: 9007199254740991,
};

describe.each(STORE_ENGINES)('$engine store: objects', ({ setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });
  beforeEach(async () => {
    await fx.reset();
  });

  const write = (objects: ObjectWrite[]) => fx.store.withLock(LOCK, (tx) => tx.upsertObjects(objects));

  it('round-trips specs and names with unicode, quotes and spaces', async () => {
    const objects = [
      objectWrite('table', 'shop/public.order items "2026"', awkwardSpec),
      objectWrite('source', 'shöp ünïcode', { provider_type: 'postgresql', postgresql: { host: "o'neil" } }),
      objectWrite('rule', 'custom/my rule', { type: 'python' }, { attachments: { module: 'def evaluate_rule(rule_parameters):\n    return "ok"\n' } }),
    ];
    await write(objects);

    const listed = await fx.store.listObjects();
    expect(listed.map((object) => object.name)).toEqual(['shöp ünïcode', 'shop/public.order items "2026"', 'custom/my rule']);
    const table = listed.find((object) => object.kind === 'table')!;
    expect(table.spec).toEqual(awkwardSpec);
    expect(table).toMatchObject({
      contentHash: objects[0].contentHash,
      appliedHash: objects[0].appliedHash,
      managedBy: 'git',
      owner: 'default',
      originFile: objects[0].originFile,
      originCommit: 'c0ffee',
      revision: 1,
    });
    expect(typeof table.revision).toBe('number');
    expect(table.createdAt).toMatch(ISO);
    expect(table.updatedAt).toMatch(ISO);
    expect(listed.find((object) => object.kind === 'rule')!.attachments).toEqual(objects[2].attachments);
  });

  it('inserts new objects in one bulk load, their text made as it goes, with the same content as an upsert', async () => {
    const objects = [
      objectWrite('table', 'shop/public.order items "2026"', awkwardSpec),
      objectWrite('table', 'shop/public.tab\there\nnewline\\back', { 'key\twith\ttabs': 'line\r\nbreak \\N' }, { originFile: 'sources/c:\\dir\tx.yaml' }),
      objectWrite('rule', 'custom/my rule', { type: 'python' }, { attachments: { module: 'def evaluate_rule(rule_parameters):\n    return "ok"\n' }, originCommit: null }),
      ...tableWrites(300, 'bulk'),
    ];
    const told: number[] = [];
    const written = await fx.store.withLock(LOCK, (tx) =>
      tx.insertObjects(
        (function* () {
          yield* objects;
        })(),
        (count) => told.push(count),
      ),
    );
    expect(written).toBe(objects.length);
    expect(told.at(-1)).toBe(objects.length);
    expect(told).toEqual([...told].sort((a, b) => a - b));

    const listed = await fx.store.listObjects();
    expect(listed).toHaveLength(objects.length);
    for (const object of objects) {
      const found = listed.find((live) => live.kind === object.kind && live.name === object.name)!;
      expect(found).toMatchObject({
        spec: object.spec,
        attachments: object.attachments,
        contentHash: object.contentHash,
        appliedHash: object.appliedHash,
        managedBy: 'git',
        owner: 'default',
        originFile: object.originFile,
        originCommit: object.originCommit,
        revision: 1,
        applied: { spec: object.spec, attachments: object.attachments },
      });
      expect(found.createdAt).toMatch(ISO);
    }
  });

  it('fails the whole transaction when an inserted key exists already', async () => {
    await write([objectWrite('source', 'kept', { a: 1 })]);
    await expect(
      fx.store.withLock(LOCK, (tx) => tx.insertObjects([objectWrite('source', 'new', { b: 2 }), objectWrite('source', 'kept', { a: 2 })])),
    ).rejects.toThrow();
    expect((await fx.store.listObjects()).map((object) => [object.name, object.spec])).toEqual([['kept', { a: 1 }]]);
    expect(await fx.store.revision()).toBe(1);
    await expect(
      fx.store.withLock(LOCK, (tx) => tx.insertObjects([objectWrite('source', 'twice', {}), objectWrite('source', 'twice', {})])),
    ).rejects.toMatchObject({ code: 'INTERNAL', message: expect.stringMatching(/written twice in one insert/) });
    expect((await fx.store.listObjects()).map((object) => object.name)).toEqual(['kept']);
  });

  it('lists summaries without specs, sorted as compareKeys sorts, filtered by kind', async () => {
    await write([
      objectWrite('default_column_checks', 'default', {}),
      objectWrite('table', 'b/public.z', {}),
      objectWrite('table', 'b/public.Z', {}),
      objectWrite('table', 'a/public.x', {}),
      objectWrite('source', 'b', {}),
      objectWrite('rule', 'r/x', {}),
      objectWrite('source', 'a', {}, { managedBy: 'api', appliedHash: null, originFile: null, originCommit: null }),
    ]);
    const summaries = await fx.store.listSummaries();
    expect(summaries).toEqual([...summaries].sort(compareKeys));
    expect(summaries.map((summary) => `${summary.kind}:${summary.name}`)).toEqual([
      'source:a',
      'source:b',
      'table:a/public.x',
      'table:b/public.Z',
      'table:b/public.z',
      'rule:r/x',
      'default_column_checks:default',
    ]);
    for (const summary of summaries) {
      expect(Object.keys(summary).sort()).toEqual(
        ['appliedHash', 'contentHash', 'kind', 'managedBy', 'name', 'originCommit', 'originFile', 'owner', 'revision'].sort(),
      );
    }
    expect(summaries[0]).toMatchObject({ managedBy: 'api', appliedHash: null, originFile: null, originCommit: null });

    const tables = await fx.store.listSummaries({ kind: 'table' });
    expect(tables.map((summary) => summary.name)).toEqual(['a/public.x', 'b/public.Z', 'b/public.z']);
    expect((await fx.store.listObjects({ kind: 'source' })).map((object) => object.name)).toEqual(['a', 'b']);
  });

  it('gets objects by key, leaving out missing keys and repeating none', async () => {
    await write([objectWrite('table', 'a/public.x', { n: 1 }), objectWrite('source', 'a', { n: 2 })]);
    const got = await fx.store.getObjects([
      { kind: 'table', name: 'a/public.x' },
      { kind: 'table', name: 'missing' },
      { kind: 'source', name: 'a/public.x' },
      { kind: 'table', name: 'a/public.x' },
      { kind: 'source', name: 'a' },
    ]);
    expect(got.map((object) => [object.kind, object.name, object.spec])).toEqual([
      ['source', 'a', { n: 2 }],
      ['table', 'a/public.x', { n: 1 }],
    ]);
    expect(await fx.store.getObjects([])).toEqual([]);
  });

  it('replaces an object on upsert, keeping createdAt and moving revision and updatedAt', async () => {
    await write([objectWrite('table', 'a/public.x', { v: 1 }), objectWrite('table', 'a/public.y', { v: 1 })]);
    // the first write a second in the past (the store stamps with the database's now()), so the next one is later
    await fx.sql.query(`update dqctl.objects set created_at = created_at - interval '1 second', updated_at = updated_at - interval '1 second' where name = 'a/public.x'`);
    const [before] = await fx.store.getObjects([{ kind: 'table', name: 'a/public.x' }]);
    await write([objectWrite('table', 'a/public.x', { v: 2 }, { managedBy: 'api', owner: 'team-b', appliedHash: 'old' })]);

    const [after] = await fx.store.getObjects([{ kind: 'table', name: 'a/public.x' }]);
    expect(after).toMatchObject({ spec: { v: 2 }, managedBy: 'api', owner: 'team-b', appliedHash: 'old', revision: 2 });
    expect(after.createdAt).toBe(before.createdAt);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    const [untouched] = await fx.store.getObjects([{ kind: 'table', name: 'a/public.y' }]);
    expect(untouched.revision).toBe(1);
  });

  it('deletes the given keys only, ignoring keys that do not exist', async () => {
    await write([objectWrite('table', 'a/public.x', {}), objectWrite('table', 'a/public.y', {}), objectWrite('source', 'a', {})]);
    await fx.store.withLock(LOCK, (tx) =>
      tx.deleteObjects([
        { kind: 'table', name: 'a/public.x' },
        { kind: 'table', name: 'nope' },
        { kind: 'source', name: 'a/public.y' },
      ]),
    );
    expect((await fx.store.listSummaries()).map((summary) => summary.name)).toEqual(['a', 'a/public.y']);
    await fx.store.withLock(LOCK, (tx) => tx.deleteObjects([]));
  });

  it('refuses the same key twice in one upsert', async () => {
    await expect(write([objectWrite('table', 'a/public.x', {}), objectWrite('table', 'a/public.x', {})])).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    expect(await fx.store.listSummaries()).toEqual([]);
  });

  it('rejects an unknown managed_by at the database (check constraint)', async () => {
    const bad = objectWrite('table', 'a/public.x', {}, { managedBy: 'robot' as 'git' });
    await expect(write([bad])).rejects.toThrow(/managed_by|check/);
  });
});
