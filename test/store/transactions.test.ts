import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApplyRecordInput } from '../../src/model/index.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { objectWrite } from './support/objectWrites.js';

const LOCK = { holder: 'test@transactions', operation: 'apply', timeoutMs: 5_000 };

function applyRecord(fingerprint: string, objects: string[] = []): ApplyRecordInput {
  return {
    appliedBy: 'alice@laptop',
    commit: 'abc123',
    repository: 'git@example.com:dq/home.git',
    planFingerprint: fingerprint,
    summary: { add: objects.length, change: 0, destroy: 0, objects },
  };
}

describe.each(STORE_ENGINES)('$engine store: transactions and history', ({ setup }) => {
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

  it('bumps the revision once per transaction, however many writes it makes', async () => {
    expect(await fx.store.revision()).toBe(0);
    const seen = await fx.store.withLock(LOCK, async (tx) => {
      const inside = await tx.revision();
      await tx.upsertObjects([objectWrite('table', 'a/public.x', {})]);
      await tx.upsertObjects([objectWrite('table', 'a/public.y', {})]);
      await tx.deleteObjects([{ kind: 'table', name: 'a/public.x' }]);
      await tx.upsertObjects([objectWrite('table', 'a/public.x', { again: true })]);
      return inside;
    });
    expect(seen).toBe(1);
    expect(await fx.store.revision()).toBe(1);
    expect((await fx.store.listSummaries()).map((summary) => summary.revision)).toEqual([1, 1]);

    await fx.store.withLock(LOCK, async () => {});
    expect(await fx.store.revision()).toBe(2);
  });

  it('reads its own writes inside the transaction', async () => {
    await fx.store.withLock(LOCK, async (tx) => {
      await tx.upsertObjects([objectWrite('source', 'a', { host: 'db' })]);
      expect((await tx.listSummaries()).map((summary) => summary.name)).toEqual(['a']);
      expect((await tx.getObjects([{ kind: 'source', name: 'a' }]))[0].spec).toEqual({ host: 'db' });
      expect(await tx.listObjects({ kind: 'table' })).toEqual([]);
    });
  });

  it('rolls everything back when the work throws, and rethrows the same error', async () => {
    await fx.store.withLock(LOCK, async (tx) => {
      await tx.upsertObjects([objectWrite('table', 'a/public.x', { v: 1 }), objectWrite('table', 'a/public.y', { v: 1 })]);
      await tx.recordApply(applyRecord('first'));
    });
    const before = { objects: await fx.store.listObjects(), revision: await fx.store.revision(), history: await fx.store.history() };

    const failure = new Error('apply failed half way');
    const attempt = fx.store.withLock(LOCK, async (tx) => {
      await tx.upsertObjects([objectWrite('table', 'a/public.x', { v: 2 }), objectWrite('table', 'a/public.z', { v: 2 })]);
      await tx.deleteObjects([{ kind: 'table', name: 'a/public.y' }]);
      await tx.recordApply(applyRecord('second'));
      throw failure;
    });
    await expect(attempt).rejects.toBe(failure);

    expect(await fx.store.listObjects()).toEqual(before.objects);
    expect(await fx.store.revision()).toBe(before.revision);
    expect(await fx.store.history()).toEqual(before.history);
    expect(await fx.store.currentLock()).toBeNull();
    await fx.store.withLock(LOCK, async () => {});
    expect(await fx.store.revision()).toBe(before.revision + 1);
  });

  it('rolls back when a statement fails, and the store stays usable', async () => {
    await fx.store.withLock(LOCK, (tx) => tx.upsertObjects([objectWrite('table', 'a/public.x', { v: 1 })]));
    const attempt = fx.store.withLock(LOCK, async (tx) => {
      await tx.upsertObjects([objectWrite('table', 'a/public.x', { v: 2 })]);
      await tx.upsertObjects([objectWrite('table', 'a/public.y', {}, { managedBy: 'nobody' as 'git' })]);
    });
    await expect(attempt).rejects.toThrow();
    expect((await fx.store.listObjects()).map((object) => object.spec)).toEqual([{ v: 1 }]);
    expect(await fx.store.revision()).toBe(1);
  });

  it('refuses store calls and nested withLock inside the work, instead of waiting on itself', async () => {
    const attempt = fx.store.withLock(LOCK, async (tx) => {
      await tx.upsertObjects([objectWrite('source', 'a', {})]);
      await fx.store.listSummaries();
    });
    await expect(attempt).rejects.toMatchObject({
      code: 'INTERNAL',
      message: expect.stringContaining('store.listSummaries() was called inside withLock'),
    });
    await expect(fx.store.withLock(LOCK, () => fx.store.withLock(LOCK, async () => {}))).rejects.toMatchObject({
      code: 'INTERNAL',
    });
    expect(await fx.store.listSummaries()).toEqual([]);
    expect(await fx.store.currentLock()).toBeNull();
  });

  it('records applies with the store revision, newest first', async () => {
    const first = await fx.store.withLock(LOCK, (tx) => tx.recordApply(applyRecord('fp-1', ['table "a/public.x"'])));
    expect(first).toMatchObject({ ...applyRecord('fp-1', ['table "a/public.x"']), storeRevision: 1 });
    expect(typeof first.id).toBe('number');
    expect(first.appliedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    await fx.store.withLock(LOCK, async () => {});
    await fx.store.withLock(LOCK, (tx) =>
      tx.recordApply({ ...applyRecord('fp-3'), commit: null, repository: null }),
    );

    const history = await fx.store.history();
    expect(history.map((record) => [record.planFingerprint, record.storeRevision])).toEqual([
      ['fp-3', 3],
      ['fp-1', 1],
    ]);
    expect(history[0]).toMatchObject({ commit: null, repository: null });
    expect(history[1]).toEqual(first);
    expect((await fx.store.history(1)).map((record) => record.planFingerprint)).toEqual(['fp-3']);
  });
});
