/**
 * A second dqctl process for the crash tests: opens the store named on the command line, takes the lock,
 * optionally writes inside the transaction, prints READY and hangs until the test SIGKILLs it.
 *   node --import tsx storeChild.ts '<json {options, mode, tag?, count?}>'
 */
import { openStore } from '../../../src/store/index.js';
import type { OpenStoreOptions } from '../../../src/store/store.js';
import { tableWrites } from './objectWrites.js';

interface ChildRequest {
  options: OpenStoreOptions;
  mode: 'hold-lock' | 'half-write';
  tag?: string;
  count?: number;
}

const request = JSON.parse(process.argv[2] ?? '{}') as ChildRequest;
const store = await openStore(request.options);
await store.withLock({ holder: 'child@test', operation: 'apply', timeoutMs: 10_000 }, async (tx) => {
  if (request.mode === 'half-write') {
    const writes = tableWrites(request.count ?? 1000, request.tag ?? 'child');
    await tx.upsertObjects(writes);
    await tx.deleteObjects([{ kind: 'source', name: 'shop' }]);
    await tx.recordApply({
      appliedBy: 'child@test',
      commit: null,
      repository: null,
      planFingerprint: 'half',
      summary: { add: writes.length, change: 0, destroy: 1, objects: [] },
    });
  }
  process.stdout.write('READY\n');
  await new Promise(() => {
    setInterval(() => {}, 60_000);
  });
});
