import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { openStore } from '../../src/store/index.js';
import { engines, runCli, workspace } from '../helpers/cli.js';

const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';

/** Every file under a folder, path → content. */
async function snapshot(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else out.set(relative(root, path), await readFile(path, 'utf8'));
    }
  };
  await walk(root);
  return out;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

// Many bin runs per test, each opening the store: generous time on a busy 2-core machine.
describe.each(engines())('dqctl export through the real bin on $name', { timeout: 240_000 }, (engine) => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let store: string[];
  const cli = (...args: string[]) => runCli(args, { cwd: ws.dir });

  beforeEach(async () => {
    ws = await workspace();
    store = await engine.fresh(ws.dir);
  });
  afterEach(() => ws.cleanup());
  afterAll(() => engine.teardown());

  it('round trip: apply, export into an empty folder, the export loads clean and plans to no changes; a second export is byte-identical', async () => {
    expect((await cli('apply', ws.repo, ...store, '--auto-approve')).code).toBe(0);
    const out = join(ws.dir, 'exported');
    const first = await cli('export', '--out', out, ...store);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Exported 22 objects to');
    expect(first.stdout).toContain(`  wrote ${ORDERS}`);

    const loaded = await loadRepository(out);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.objects).toHaveLength(22);
    const original = await loadRepository(ws.repo);
    expect(loaded.fingerprint).toBe(original.fingerprint);

    const plan = await cli('plan', out, ...store, '--detailed-exitcode');
    expect(plan.stdout).toContain('No changes. The live state matches the repository.');
    expect(plan.code).toBe(0);

    const before = await snapshot(out);
    const again = await cli('export', '--out', out, ...store);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 files written, 25 unchanged');
    const second = join(ws.dir, 'exported-again');
    expect((await cli('export', '--out', second, ...store)).code).toBe(0);
    expect(await snapshot(second)).toEqual(before);
    expect(before.get(ORDERS)!.split('\n')[0]).toBe('# yaml-language-server: $schema=https://dqctl.dev/schemas/table.dqotable.schema.json');
  });

  it('a hostile table name (spaces, /, quotes, unicode, %) round-trips through its encoded file name', async () => {
    const name = 'we/ird "name" ü \'q\' 100%';
    const file = `sources/shop_oltp/public.we%2Fird %22name%22 ü %27q%27 100%25.dqotable.yaml`;
    await writeFile(join(ws.repo, file), 'apiVersion: dqo/v1\nkind: table\nspec:\n  stage: hostile\n');
    expect((await cli('apply', ws.repo, ...store, '--auto-approve')).code).toBe(0);
    const state = JSON.parse((await cli('state', 'list', ...store, '--format', 'json', '--kind', 'table')).stdout);
    expect(state.objects.map((o: { name: string }) => o.name)).toContain(`shop_oltp/public.${name}`);

    const out = join(ws.dir, 'exported');
    expect((await cli('export', '--out', out, ...store)).code).toBe(0);
    expect(await readFile(join(out, file), 'utf8')).toContain('stage: hostile');
    const plan = await cli('plan', out, ...store, '--detailed-exitcode');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('never overwrites a differing file without --force, and never deletes one', async () => {
    expect((await cli('apply', ws.repo, ...store, '--auto-approve')).code).toBe(0);
    const out = join(ws.dir, 'exported');
    await mkdir(join(out, 'sources/shop_oltp'), { recursive: true });
    await writeFile(join(out, ORDERS), 'my local edit\n');
    await writeFile(join(out, 'notes.txt'), 'mine\n');
    const refused = await cli('export', '--out', out, ...store);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Error: export would overwrite 1 file');
    expect(refused.stderr).toContain(ORDERS);
    expect(await readFile(join(out, ORDERS), 'utf8')).toBe('my local edit\n');
    expect((await snapshot(out)).size).toBe(2); // nothing was written
    const forced = await cli('export', '--out', out, ...store, '--force');
    expect(forced.code).toBe(0);
    expect(await readFile(join(out, ORDERS), 'utf8')).toContain('apiVersion: dqo/v1');
    expect(await readFile(join(out, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('--only-drift after an API change writes just that file; committed, it makes the plan clean', async () => {
    git(ws.repo, 'init', '-q');
    git(ws.repo, 'add', '.');
    git(ws.repo, 'commit', '-qm', 'shop');
    expect((await cli('apply', ws.repo, ...store, '--auto-approve')).code).toBe(0);

    // a change through the API (what the REST facade does), outside git
    const live = await openStore(store[0] === '--database' ? { databaseUrl: store[1] } : { stateDir: store[1] });
    try {
      await new LiveObjects(live).update('table', 'shop_oltp/public.orders', { caller: 'api:test' }, (current) => ({
        spec: { ...current.spec, stage: 'changed-through-the-api' },
      }));
    } finally {
      await live.close();
    }
    const drifted = await cli('plan', ws.repo, ...store);
    expect(drifted.stdout).toContain('Objects changed outside git since the last apply');

    const exported = await cli('export', '--only-drift', '--out', ws.repo, ...store);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(`  wrote ${ORDERS}\nExported 1 object changed outside git to ${ws.repo}: 1 file written, 0 unchanged.\n`);
    expect(git(ws.repo, 'status', '--porcelain')).toBe(` M ${ORDERS}\n`);
    expect(await readFile(join(ws.repo, ORDERS), 'utf8')).toContain('stage: changed-through-the-api');
    git(ws.repo, 'commit', '-qam', 'take the API change into git');

    const plan = await cli('plan', ws.repo, ...store, '--detailed-exitcode');
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    // and once applied the object is in sync again: no drift left to export
    expect((await cli('apply', ws.repo, ...store, '--auto-approve')).code).toBe(0);
    expect((await cli('export', '--only-drift', '--out', ws.repo, ...store)).stdout).toContain('Exported 0 objects');
  });

  it('replaces a literal password by a reference and warns, unless --include-secrets', async () => {
    const connection = join(ws.repo, 'sources/shop_oltp/connection.dqoconnection.yaml');
    await writeFile(connection, (await readFile(connection, 'utf8')).replace('password: ${SHOP_OLTP_PASSWORD}', 'password: hunter2'));
    expect((await cli('apply', ws.repo, ...store, '--auto-approve')).code).toBe(0);
    const out = join(ws.dir, 'exported');
    const exported = await cli('export', '--out', out, ...store, '--kind', 'source');
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('DQCTL_SECRET_SHOP_OLTP_PASSWORD  (source "shop_oltp", postgresql.password)');
    const text = await readFile(join(out, 'sources/shop_oltp/connection.dqoconnection.yaml'), 'utf8');
    expect(text).toContain('password: ${DQCTL_SECRET_SHOP_OLTP_PASSWORD}');
    expect(text).not.toContain('hunter2');
    const withSecrets = join(ws.dir, 'with-secrets');
    await cli('export', '--out', withSecrets, ...store, '--kind', 'source', '--include-secrets');
    expect(await readFile(join(withSecrets, 'sources/shop_oltp/connection.dqoconnection.yaml'), 'utf8')).toContain('password: hunter2');
  });
});
