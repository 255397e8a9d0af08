import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';
import { rowCountResult } from '../helpers/checkResults.js';
import { objectWrite } from './support/objectWrites.js';

const LOCK = { holder: 'test@listReads', operation: 'apply', timeoutMs: 5_000 };

function result(connectionName: string, tableName: string, severity: 0 | 1 | 2 | 3): CheckResultInput {
  return rowCountResult({ connectionName, tableName, actualValue: 1, severity, executedAt: '2026-11-20T06:00:00.000Z' });
}

/** The reads behind the paged lists (issue 25): the disabled objects under a name prefix, and the severities of some tables only. */
describe.each(STORE_ENGINES)('$engine store: the reads of paged lists', ({ setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
    await fx.store.withLock(LOCK, (tx) =>
      tx.upsertObjects([
        objectWrite('table', 'a/public.on', { columns: {} }),
        objectWrite('table', 'a/public.off', { disabled: true, columns: {} }),
        objectWrite('table', 'a/public.off_false', { disabled: false, columns: {} }),
        objectWrite('table', 'a/public.off_text', { disabled: 'true', columns: {} }),
        objectWrite('table', 'ab/public.off', { disabled: true, columns: {} }),
        objectWrite('source', 'a', { disabled: true }),
      ]),
    );
    await fx.store.insertCheckResults([result('a', 'on', 2), result('a', 'off', 0), result('ab', 'off', 1), result('c', 'x', 3)]);
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it('names the objects of a kind under a prefix whose spec says disabled: true, and no others', async () => {
    expect(await fx.store.listDisabledNames({ kind: 'table', namePrefix: 'a/' })).toEqual(['a/public.off']);
    expect(await fx.store.listDisabledNames({ kind: 'table' })).toEqual(['a/public.off', 'ab/public.off']);
    expect(await fx.store.listDisabledNames({ kind: 'source' })).toEqual(['a']);
    expect(await fx.store.listDisabledNames({ kind: 'table', namePrefix: 'zz/' })).toEqual([]);
  });

  it('reads the severities of the tables and connections a filter names, the same rows as the whole read', async () => {
    const all = await fx.store.tableSeverities();
    expect(all.map((row) => `${row.connectionName}.${row.tableName}`)).toEqual(['a.off', 'a.on', 'ab.off', 'c.x']);
    const some = await fx.store.tableSeverities({ tables: [{ connection: 'ab', schema: 'public', table: 'off' }], connections: ['c'] });
    expect(some).toEqual(all.filter((row) => row.connectionName === 'ab' || row.connectionName === 'c'));
    expect(await fx.store.tableSeverities({ connections: ['a'] })).toEqual(all.filter((row) => row.connectionName === 'a'));
    expect(await fx.store.tableSeverities({ tables: [], connections: [] })).toEqual([]);
  });
});
