import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirectorySource } from '../../src/manifest/directorySource.js';
import { GitSource } from '../../src/manifest/gitSource.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { MAX_FILE_BYTES } from '../../src/manifest/repositorySource.js';
import type { DesiredState } from '../../src/manifest/desiredState.js';
import { DqError } from '../../src/model/index.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';

const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';

/** What must be equal between two loads of the same tree: objects, hashes, files, findings, identity. */
function essence(state: DesiredState) {
  return {
    objects: state.objects.map((o) => ({ kind: o.kind, name: o.name, hash: o.hash, file: o.origin.file, spec: o.spec, attachments: o.attachments })),
    diagnostics: state.diagnostics.map((d) => ({ severity: d.severity, code: d.code, file: d.range?.filename, line: d.range?.start.line })),
    settings: state.settings,
    fingerprint: state.fingerprint,
  };
}

async function rejection(promise: Promise<unknown>): Promise<DqError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DqError) return error;
    throw error;
  }
  throw new Error('expected a DqError');
}

describe('GitSource', () => {
  let r: GitRepo;
  beforeEach(async () => {
    r = await gitRepo();
  });
  afterEach(() => r.cleanup());

  it('reads the same objects, hashes and fingerprint as DirectorySource on the same tree, and the commit', async () => {
    const head = (await git(r.repo, 'rev-parse', 'HEAD')).trim();
    const fromGit = await loadRepository(new GitSource({ repository: r.repo, ref: 'main' }));
    const fromFolder = await loadRepository(new DirectorySource(r.repo));
    expect(fromGit.objects.length).toBe(22);
    expect(essence(fromGit)).toEqual(essence(fromFolder));
    expect(fromGit.repository).toEqual({ description: r.repo, commit: head });
    // the rule's .py module is an attachment read from the blob as well
    expect(fromGit.objects.find((o) => o.kind === 'rule')?.attachments.python_module).toEqual(expect.stringContaining('def evaluate_rule'));
  });

  it('reads the committed state of a ref, never the working copy, and leaves the working copy alone', async () => {
    const committed = await loadRepository(new GitSource({ repository: r.repo, ref: 'HEAD' }));
    const text = await readFile(join(r.repo, ORDERS), 'utf8');
    await writeFile(join(r.repo, ORDERS), text.replace(/min_count: 1\b/, 'min_count: 99'));
    await writeFile(join(r.repo, 'sources/shop_oltp/public.untracked.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {}\n');
    const statusBefore = await git(r.repo, 'status', '--porcelain');
    const fromGit = await loadRepository(new GitSource({ repository: r.repo, ref: 'HEAD' }));
    expect(fromGit.objects.map((o) => o.name)).not.toContain('shop_oltp/public.untracked');
    expect(fromGit.fingerprint).toBe(committed.fingerprint);
    const edited = await loadRepository(r.repo);
    expect(edited.fingerprint).not.toBe(committed.fingerprint);
    expect(await git(r.repo, 'status', '--porcelain')).toBe(statusBefore);
  });

  it('resolves branches, tags, commit ids and HEAD~1', async () => {
    const first = (await git(r.repo, 'rev-parse', 'HEAD')).trim();
    await git(r.repo, 'tag', 'v1');
    await rm(join(r.repo, ORDERS));
    const second = await r.commitAll('drop orders');
    const names = async (ref: string) => (await loadRepository(new GitSource({ repository: r.repo, ref }))).objects.map((o) => o.name);
    expect(await names('HEAD~1')).toContain('shop_oltp/public.orders');
    expect(await names('v1')).toContain('shop_oltp/public.orders');
    expect(await names(first)).toContain('shop_oltp/public.orders');
    expect(await names(first.slice(0, 10))).toContain('shop_oltp/public.orders');
    expect(await names('main')).not.toContain('shop_oltp/public.orders');
    expect(await new GitSource({ repository: r.repo, ref: 'HEAD~1' }).commit()).toBe(first);
    expect(await new GitSource({ repository: r.repo, ref: 'main' }).commit()).toBe(second);
  });

  it('reads a bare repository', async () => {
    const bare = join(r.dir, 'remote.git');
    await git(r.dir, 'clone', '-q', '--bare', r.repo, bare);
    const fromBare = await loadRepository(new GitSource({ repository: bare, ref: 'main' }));
    const fromFolder = await loadRepository(r.repo);
    expect(essence(fromBare)).toEqual(essence(fromFolder));
  });

  it('refuses an unknown ref with a message naming it, and a folder that is not a git repository', async () => {
    const unknown = await rejection(new GitSource({ repository: r.repo, ref: 'no-such-branch' }).listFiles());
    expect(unknown.code).toBe('REPOSITORY_UNREADABLE');
    expect(unknown.message).toContain('unknown git ref "no-such-branch"');
    expect(unknown.message).toContain(r.repo);

    const option = await rejection(new GitSource({ repository: r.repo, ref: '--output=/tmp/x' }).commit());
    expect(option.code).toBe('INVALID_ARGUMENT');

    const plain = join(r.dir, 'plain');
    await mkdir(plain);
    const notGit = await rejection(new GitSource({ repository: plain, ref: 'main' }).listFiles());
    expect(notGit.code).toBe('REPOSITORY_UNREADABLE');
    expect(notGit.message).toContain('is not a git repository');

    const missing = await rejection(new GitSource({ repository: join(r.dir, 'nowhere'), ref: 'main' }).listFiles());
    expect(missing.code).toBe('REPOSITORY_UNREADABLE');
  });

  it('reads a user home in a sub-folder (--path), also when started from a sub-folder of the working copy', async () => {
    const mono = await gitRepo({ subPath: 'teams/data/dq' });
    try {
      await writeFile(join(mono.repo, 'README.md'), 'a monorepo\n');
      await mono.commitAll('readme');
      const fromFolder = essence(await loadRepository(join(mono.repo, 'teams/data/dq')));
      const withPath = await loadRepository(new GitSource({ repository: mono.repo, ref: 'HEAD', path: 'teams/data/dq/' }));
      expect(essence(withPath)).toEqual(fromFolder);
      expect(withPath.repository.description).toBe(join(mono.repo, 'teams/data/dq'));
      // a folder inside the working copy is where the sub-path starts, as `git -C` would see it
      const fromInside = await loadRepository(new GitSource({ repository: join(mono.repo, 'teams'), ref: 'HEAD', path: 'data/dq' }));
      expect(essence(fromInside)).toEqual(fromFolder);
      const fromHome = await loadRepository(new GitSource({ repository: join(mono.repo, 'teams/data/dq'), ref: 'HEAD' }));
      expect(essence(fromHome)).toEqual(fromFolder);

      const wrong = await rejection(new GitSource({ repository: mono.repo, ref: 'HEAD', path: 'teams/nope' }).listFiles());
      expect(wrong.code).toBe('REPOSITORY_UNREADABLE');
      expect(wrong.message).toContain('teams/nope is not a folder at HEAD');
      const outside = await rejection(new GitSource({ repository: mono.repo, ref: 'HEAD', path: '../elsewhere' }).listFiles());
      expect(outside.code).toBe('INVALID_ARGUMENT');
    } finally {
      await mono.cleanup();
    }
  });

  it('refuses a blob over 10 MB from its size in the tree, without reading it, and reads one just under whole', async () => {
    const big = 'sources/shop_oltp/public.big.dqotable.yaml';
    await writeFile(join(r.repo, big), `apiVersion: dqo/v1\nkind: table\nspec: {}\n${'# padding padding padding\n'.repeat(Math.ceil(MAX_FILE_BYTES / 26) + 10)}`);
    // just under the limit: read whole, across many pipe chunks
    const large = 'sources/shop_oltp/public.large.dqotable.yaml';
    const largeText = `apiVersion: dqo/v1\nkind: table\nspec: {}\n${'# just under the limit ü\n'.repeat(Math.floor((MAX_FILE_BYTES - 100) / 26))}`;
    await writeFile(join(r.repo, large), largeText);
    await r.commitAll('a big file');
    const source = new GitSource({ repository: r.repo, ref: 'HEAD' });
    const { files, problems } = await source.listFiles();
    expect(files.map((f) => f.path)).not.toContain(big);
    expect(files.find((f) => f.path === large)?.size).toBe(Buffer.byteLength(largeText));
    const [largeRead, ordersRead] = await Promise.all([source.readFile(large), source.readFile(ORDERS)]);
    expect(largeRead === largeText).toBe(true);
    expect(ordersRead).toBe(await readFile(join(r.repo, ORDERS), 'utf8'));
    expect(problems).toEqual([expect.objectContaining({ path: big, code: 'file_too_large' })]);
    const state = await loadRepository(source);
    expect(state.diagnostics).toContainEqual(expect.objectContaining({ code: 'file_too_large', severity: 'error' }));
    expect(state.objects.map((o) => o.name)).not.toContain('shop_oltp/public.big');
  });

  it('follows symbolic links that stay inside the tree and refuses those that leave it, as DirectorySource does', async () => {
    await mkdir(join(r.repo, 'shared/warehouse'), { recursive: true });
    await writeFile(
      join(r.repo, 'shared/public.linked.dqotable.yaml'),
      'apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: 3\n',
    );
    await writeFile(join(r.repo, 'shared/warehouse/connection.dqoconnection.yaml'), await readFile(join(r.repo, 'sources/shop_oltp/connection.dqoconnection.yaml')));
    await writeFile(join(r.repo, 'shared/warehouse/public.t.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {}\n');
    // a file link and a folder link inside the tree, a link out of it (relative and absolute), a broken link
    await symlink('../../shared/public.linked.dqotable.yaml', join(r.repo, 'sources/shop_oltp/public.linked.dqotable.yaml'));
    await symlink('../shared/warehouse', join(r.repo, 'sources/warehouse'));
    await symlink('../../../../../../etc/passwd', join(r.repo, 'sources/shop_oltp/public.escape.dqotable.yaml'));
    await symlink('/etc/hostname', join(r.repo, 'sources/shop_oltp/public.absolute.dqotable.yaml'));
    await symlink('../../shared/none.yaml', join(r.repo, 'sources/shop_oltp/public.broken.dqotable.yaml'));
    await r.commitAll('links');

    const source = new GitSource({ repository: r.repo, ref: 'HEAD' });
    const { files, problems } = await source.listFiles();
    const paths = files.map((f) => f.path);
    expect(paths).toContain('sources/shop_oltp/public.linked.dqotable.yaml');
    expect(paths).toContain('sources/warehouse/public.t.dqotable.yaml');
    expect(paths.some((p) => p.startsWith('shared/'))).toBe(false);
    expect(problems.map((p) => [p.path, p.code]).sort()).toEqual([
      ['sources/shop_oltp/public.absolute.dqotable.yaml', 'symlink_outside_repository'],
      ['sources/shop_oltp/public.broken.dqotable.yaml', 'unreadable_file'],
      ['sources/shop_oltp/public.escape.dqotable.yaml', 'symlink_outside_repository'],
    ]);
    expect(await source.readFile('sources/shop_oltp/public.linked.dqotable.yaml')).toContain('min_count: 3');

    const fromGit = await loadRepository(source);
    const fromFolder = await loadRepository(new DirectorySource(r.repo));
    expect(fromGit.objects.map((o) => [o.name, o.hash])).toEqual(fromFolder.objects.map((o) => [o.name, o.hash]));
    expect(fromGit.objects.map((o) => o.name)).toEqual(expect.arrayContaining(['shop_oltp/public.linked', 'warehouse/public.t']));
    expect(fromGit.diagnostics.map((d) => [d.code, d.range?.filename]).sort()).toEqual(fromFolder.diagnostics.map((d) => [d.code, d.range?.filename]).sort());
  });

  it('reports a link back to a folder already read as a loop, once', async () => {
    await symlink('.', join(r.repo, 'sources/shop_oltp/again'));
    await r.commitAll('loop');
    const { problems } = await new GitSource({ repository: r.repo, ref: 'HEAD' }).listFiles();
    expect(problems).toEqual([expect.objectContaining({ path: 'sources/shop_oltp/again', code: 'symlink_loop' })]);
  });

  it('lists and reads 10,000 files of a commit, each with its own content (speed: bench/git.ts, not a timed test)', async () => {
    const folder = join(r.repo, 'sources/shop_oltp');
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 10_000; i++) {
      writes.push(writeFile(join(folder, `public.t${i}.dqotable.yaml`), `apiVersion: dqo/v1\nkind: table\nspec:\n  priority: ${i}\n`));
    }
    await Promise.all(writes);
    await r.commitAll('10,000 tables');
    const source = new GitSource({ repository: r.repo, ref: 'HEAD' });
    const { files } = await source.listFiles();
    const texts = await Promise.all(files.map((f) => source.readFile(f.path)));
    expect(files.length).toBeGreaterThan(10_000);
    for (const i of [0, 4321, 9999]) expect(texts[files.findIndex((f) => f.path.endsWith(`/public.t${i}.dqotable.yaml`))]).toContain(`priority: ${i}\n`);
  });
});
