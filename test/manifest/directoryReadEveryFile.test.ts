/**
 * DirectorySource.readEveryFile (src/manifest/directorySource.ts): a plan's inputs list and read every file in
 * one pass, taking each file's size and version from the opened file instead of an lstat per file. Its listing
 * must be listFiles's exactly (files, sizes, versions, problems: links inside and outside the folder, a loop, a
 * file over the size limit), and each text the one readFile gives.
 */
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectorySource } from '../../src/manifest/directorySource.js';
import { readRepositoryInputs } from '../../src/manifest/repositoryInputs.js';
import { MAX_FILE_BYTES } from '../../src/manifest/repositorySource.js';

describe('DirectorySource.readEveryFile', () => {
  let dir: string;
  let repo: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-read-every-'));
    repo = join(dir, 'repo');
    await mkdir(join(repo, 'sources', 'shop'), { recursive: true });
    await mkdir(join(repo, 'rules', 'volume'), { recursive: true });
    await mkdir(join(repo, '.data'), { recursive: true });
    await mkdir(join(dir, 'outside'), { recursive: true });
    await writeFile(join(repo, 'dqctl.yaml'), 'namespace: shop\n');
    await writeFile(join(repo, 'sources', 'shop', 'connection.dqoconnection.yaml'), 'apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n');
    await writeFile(join(repo, 'sources', 'shop', 'public.orders.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec:\n  columns: {}\n# é ü 漢字\n');
    await writeFile(join(repo, 'sources', 'shop', 'public.empty.dqotable.yaml'), '');
    await writeFile(join(repo, 'rules', 'volume', 'band.py'), 'def evaluate_rule(rule_parameters):\n    return None\n');
    await writeFile(join(repo, '.data', 'ignored.yaml'), 'not read\n');
    await writeFile(join(dir, 'outside', 'secret.yaml'), 'secret: 1\n');
    // a link to a file inside the folder (followed), one leading out (refused), a folder linking back (a loop)
    await symlink('public.orders.dqotable.yaml', join(repo, 'sources', 'shop', 'public.orders_copy.dqotable.yaml'));
    await symlink(join(dir, 'outside', 'secret.yaml'), join(repo, 'sources', 'shop', 'public.secret.dqotable.yaml'));
    await symlink('..', join(repo, 'sources', 'shop', 'loop'));
    await symlink(join(repo, 'missing.yaml'), join(repo, 'sources', 'shop', 'public.broken.dqotable.yaml'));
    // over the size limit (sparse: no disk used)
    await writeFile(join(repo, 'sources', 'shop', 'public.huge.dqotable.yaml'), '');
    await truncate(join(repo, 'sources', 'shop', 'public.huge.dqotable.yaml'), MAX_FILE_BYTES + 1);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

  it('lists what listFiles lists (sizes, versions, problems) and reads each file as readFile does', async () => {
    const source = new DirectorySource(repo);
    const listed = await source.listFiles();
    const texts = new Map<string, string>();
    let announced = -1;
    const read = await source.readEveryFile((path, text) => texts.set(path, text), { listed: (n) => (announced = n) });

    expect(read.files).toEqual(listed.files);
    expect(read.problems).toEqual([...listed.problems].sort(byPath));
    expect(read.files.map((f) => f.path)).toEqual([
      'dqctl.yaml',
      'rules/volume/band.py',
      'sources/shop/connection.dqoconnection.yaml',
      'sources/shop/public.empty.dqotable.yaml',
      'sources/shop/public.orders.dqotable.yaml',
      'sources/shop/public.orders_copy.dqotable.yaml',
    ]);
    expect(read.problems.map((p) => [p.path, p.code])).toEqual([
      ['sources/shop/loop', 'symlink_loop'],
      ['sources/shop/public.broken.dqotable.yaml', 'unreadable_file'],
      ['sources/shop/public.huge.dqotable.yaml', 'file_too_large'],
      ['sources/shop/public.secret.dqotable.yaml', 'symlink_outside_repository'],
    ]);
    // the huge file counts in the listing's announcement (it is found too large when opened), never read
    expect(announced).toBe(7);
    expect([...texts.keys()].sort()).toEqual(read.files.map((f) => f.path));
    for (const file of read.files) expect(texts.get(file.path)).toBe(await source.readFile(file.path));
    expect(texts.get('sources/shop/public.orders.dqotable.yaml')).toContain('é ü 漢字');
    expect(texts.get('sources/shop/public.empty.dqotable.yaml')).toBe('');
  });

  it("gives a plan's inputs the digest of the listing then reading (a source without readEveryFile)", async () => {
    const inner = new DirectorySource(repo);
    // the same folder, listed then read file by file
    const plain = {
      description: inner.description,
      commit: () => inner.commit(),
      listFiles: async () => {
        const listing = await inner.listFiles();
        return { files: listing.files, problems: [...listing.problems].sort(byPath) };
      },
      readFile: (path: string) => inner.readFile(path),
    };
    const onePass = await readRepositoryInputs(repo);
    const twoPasses = await readRepositoryInputs(plain);
    expect(onePass.digest).not.toBeNull();
    expect(onePass.digest).toBe(twoPasses.digest);
    expect(await onePass.source.listFiles()).toEqual(await twoPasses.source.listFiles());
    // an edit changes the digest
    await writeFile(join(repo, 'rules', 'volume', 'band.py'), 'def evaluate_rule(rule_parameters):\n    return 1\n');
    expect((await readRepositoryInputs(repo)).digest).not.toBe(onePass.digest);
  });
});
