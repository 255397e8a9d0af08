import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * LiveObjects.memo: a value derived from many objects (the lineage index) is computed once and recomputed after
 * any change, whether written through the same instance or by another process sharing the store.
 */
describe('LiveObjects.memo', () => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await STORE_ENGINES[1].setup();
  });
  afterAll(async () => fx.dispose());

  it('keeps a derived value until an object changes here or in another process', async () => {
    const here = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    const elsewhere = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    let computed = 0;
    const tableCount = () => here.memo('count', async () => (++computed, (await fx.store.listObjects({ kind: 'table' })).length));
    await here.create('source', 'c', { provider_type: 'postgresql' }, { caller: 'test' });
    expect(await tableCount()).toBe(0);
    expect(await tableCount()).toBe(0);
    expect(computed).toBe(1);
    await here.create('table', 'c/s.a', {}, { caller: 'test' });
    expect(await tableCount()).toBe(1);
    expect(computed).toBe(2);
    await elsewhere.create('table', 'c/s.b', {}, { caller: 'test' });
    expect(await tableCount()).toBe(2);
    expect(computed).toBe(3);
    // a failed computation is not kept
    await expect(here.memo('broken', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await here.memo('broken', async () => 'fine')).toBe('fine');
  });
});
