import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { tableWrites } from './support/objectWrites.js';

/** Apply of a big repository must stay interactive: 10,000 tables (~2.5 KB of spec each) well under 10 s. */
const COUNT = 10_000;
const LOCK = { holder: 'test@bulk', operation: 'apply', timeoutMs: 5_000 };

describe.each(STORE_ENGINES)('$engine store: bulk writes', ({ engine, setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it(`upserts, lists and deletes ${COUNT} tables quickly`, async () => {
    await fx.reset();
    const timings: Record<string, number> = {};
    const time = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
      const started = performance.now();
      const result = await work();
      timings[label] = Math.round(performance.now() - started);
      return result;
    };

    const created = tableWrites(COUNT, 'v1');
    await time('insert', () => fx.store.withLock(LOCK, (tx) => tx.upsertObjects(created)));
    const updated = tableWrites(COUNT, 'v2');
    await time('update', () => fx.store.withLock(LOCK, (tx) => tx.upsertObjects(updated)));
    const summaries = await time('listSummaries', () => fx.store.listSummaries());
    const objects = await time('listObjects', () => fx.store.listObjects());
    await time('delete', () => fx.store.withLock(LOCK, (tx) => tx.deleteObjects(created)));
    console.log(`${engine} ${COUNT} tables (ms): ${JSON.stringify(timings)}`);

    expect(summaries).toHaveLength(COUNT);
    expect(summaries.every((summary) => summary.revision === 2 && summary.contentHash.startsWith('v2:'))).toBe(true);
    expect(objects[COUNT - 1].spec).toEqual(updated[COUNT - 1].spec);
    expect(await fx.store.listSummaries()).toEqual([]);
  });
});
