import { cp, mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectorySource } from '../../src/manifest/directorySource.js';
import { FolderRevisions } from '../../src/reconcile/revisionSource.js';
import type { Trigger } from '../../src/reconcile/triggers.js';
import { exampleCopy, ORDERS_FILE, setOrdersPriority, waitFor } from './helpers.js';

const signal = new AbortController().signal;

/**
 * A pass of the watch alone re-reads only the reported paths on top of the last listing: whatever happens in the
 * folder, what it lists must be what a full listing (DirectorySource, as `dqctl plan` reads) lists.
 */
describe('FolderRevisions: the listing of a watch-only pass equals a full listing', () => {
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let revisions: FolderRevisions;
  let watch: Trigger;
  let events = 0;

  const patchedAndFull = async () => {
    const patched = await (await revisions.open(signal, { full: false })).listFiles();
    const full = await new DirectorySource(repo.dir).listFiles();
    return { patched, full };
  };
  const settle = async (before: number) => waitFor(() => events > before, 5_000, 'the watch to report');

  beforeEach(async () => {
    repo = await exampleCopy();
    revisions = new FolderRevisions(repo.dir, { debounceMs: 50 });
    events = 0;
    watch = await revisions.watch(() => events++, () => {});
    await revisions.open(signal, { full: true });
  });
  afterEach(async () => {
    await watch.stop();
    await repo.cleanup();
  });

  it('edits, new files, deletions, new and removed folders, links and renames', async () => {
    const steps: Array<[string, () => Promise<void>]> = [
      ['an edit', () => setOrdersPriority(repo.dir, 3)],
      ['a new table in a known folder', () => cp(join(repo.dir, ORDERS_FILE), join(repo.dir, 'sources/shop_oltp/public.refunds.dqotable.yaml'))],
      ['a deleted table', () => rm(join(repo.dir, 'sources/shop_oltp/public.payments.dqotable.yaml'))],
      [
        'a new connection folder',
        async () => {
          await mkdir(join(repo.dir, 'sources/crm'));
          await cp(join(repo.dir, 'sources/shop_oltp/connection.dqoconnection.yaml'), join(repo.dir, 'sources/crm/connection.dqoconnection.yaml'));
        },
      ],
      ['a renamed folder', () => rename(join(repo.dir, 'patterns/oltp'), join(repo.dir, 'patterns/oltp2'))],
      ['a removed folder', () => rm(join(repo.dir, 'sources/crm'), { recursive: true })],
      ['a link to a folder inside the repository', () => symlink(join(repo.dir, 'patterns/oltp2'), join(repo.dir, 'patterns/linked'))],
      ['a file added behind the link', () => writeFile(join(repo.dir, 'patterns/oltp2/extra.dqotablepattern.yaml'), 'apiVersion: dqo/v1\nkind: default_table_checks\nspec: {}\n')],
      ['dqctl.yaml removed', () => rm(join(repo.dir, 'dqctl.yaml'))],
    ];
    for (const [what, change] of steps) {
      const before = events;
      await change();
      await settle(before);
      // late events of the same change (a link's target reported under either path) may come after the first: the
      // watch-only listing must reach the full one once they have, and must not stay apart
      await expect
        .poll(async () => {
          const { patched, full } = await patchedAndFull();
          return { patched, full };
        }, { timeout: 5_000, interval: 100 })
        .toSatisfy(({ patched, full }) => JSON.stringify(patched) === JSON.stringify(full), what);
      const { patched, full } = await patchedAndFull();
      expect(patched, what).toEqual(full);
    }
  });

  it('a full open lists everything even when the watch reported nothing', async () => {
    // a change the watch cannot see (it is stopped): only a full listing finds it
    await watch.stop();
    await writeFile(join(repo.dir, 'sources/shop_oltp/public.unseen.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {}\n');
    const fullOpen = await (await revisions.open(signal, { full: true })).listFiles();
    expect(fullOpen.files.map((f) => f.path)).toContain('sources/shop_oltp/public.unseen.dqotable.yaml');
  });
});
