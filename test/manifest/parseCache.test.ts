import { cp, mkdtemp, readFile, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { ParseCache } from '../../src/manifest/parseCache.js';
import type { DesiredState } from '../../src/manifest/desiredState.js';
import { EXAMPLE } from '../helpers/cli.js';

/** What a load means to its callers: objects, diagnostics, fingerprint (texts only of files with findings). */
function outcome(state: DesiredState) {
  return { objects: state.objects, diagnostics: state.diagnostics, fingerprint: state.fingerprint, texts: [...state.texts.keys()].sort() };
}

describe('loadRepository with a ParseCache (the reconcile loop re-reads only what changed)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-cache-'));
    await cp(EXAMPLE, dir, { recursive: true });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the same desired state as a load without a cache, through edits, touches, deletions and broken files', async () => {
    const cache = new ParseCache();
    const first = await loadRepository(dir, { cache });
    expect(cache.stats.reused).toBe(0);
    expect(cache.stats.parsed).toBeGreaterThan(3);
    expect(outcome(first)).toEqual(outcome(await loadRepository(dir)));

    const again = await loadRepository(dir, { cache });
    expect(cache.stats).toEqual({ reused: first.objects.length, parsed: 0 });
    expect(outcome(again)).toEqual(outcome(first));

    const orders = join(dir, 'sources/shop_oltp/public.orders.dqotable.yaml');
    const text = await readFile(orders, 'utf8');
    await writeFile(orders, text.replace('min_count: 1', 'min_count: 7'));
    const edited = await loadRepository(dir, { cache });
    expect(cache.stats.parsed).toBe(1);
    expect(outcome(edited)).toEqual(outcome(await loadRepository(dir)));
    expect(edited.fingerprint).not.toBe(first.fingerprint);

    // a new mtime with the same text: read again, but not parsed again
    const later = new Date(Date.now() + 5_000);
    await utimes(orders, later, later);
    await loadRepository(dir, { cache });
    expect(cache.stats.parsed).toBe(0);

    await writeFile(orders, 'apiVersion: dqo/v1\nkind: table\nspec: [unclosed\n');
    const broken = await loadRepository(dir, { cache });
    expect(outcome(broken)).toEqual(outcome(await loadRepository(dir)));
    expect(broken.diagnostics.some((d) => d.severity === 'error' && d.range?.filename.endsWith('public.orders.dqotable.yaml'))).toBe(true);

    const before = cache.size;
    await unlink(orders);
    const removed = await loadRepository(dir, { cache });
    expect(cache.size).toBe(before - 1);
    expect(outcome(removed)).toEqual(outcome(await loadRepository(dir)));
  });

  it('reports the findings of one file when it changes, and those that span files when another file changes', async () => {
    const cache = new ParseCache();
    const codes = (state: DesiredState) => state.diagnostics.map((d) => `${d.code} ${d.range?.filename.split('/').pop()}`);
    await loadRepository(dir, { cache });

    // within one file: the warning threshold looser than the error's
    const orders = join(dir, 'sources/shop_oltp/public.orders.dqotable.yaml');
    const text = await readFile(orders, 'utf8');
    await writeFile(orders, text.replace('min_count: 50000', 'min_count: 50'));
    const looser = await loadRepository(dir, { cache });
    expect(cache.stats.parsed).toBe(1);
    expect(codes(looser)).toContain('threshold_order public.orders.dqotable.yaml');
    expect(outcome(looser)).toEqual(outcome(await loadRepository(dir)));
    await writeFile(orders, text);
    expect(codes(await loadRepository(dir, { cache }))).not.toContain('threshold_order public.orders.dqotable.yaml');

    // across files: the connection file goes, its unchanged tables are now unknown
    await unlink(join(dir, 'sources/shop_oltp/connection.dqoconnection.yaml'));
    const orphaned = await loadRepository(dir, { cache });
    expect(cache.stats.parsed).toBe(0);
    expect(codes(orphaned)).toContain('unknown_connection public.orders.dqotable.yaml');
    expect(outcome(orphaned)).toEqual(outcome(await loadRepository(dir)));
  });
});
