import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exitCodes.js';
import { buildServer } from '../../src/server/buildServer.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/store.js';
import { runCli } from '../helpers/cli.js';
import { gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * The apply history tells the truth: an apply from a work tree with uncommitted changes is recorded as dirty,
 * with its files, not as the HEAD commit; `dqctl history` lists it, from the store and through a server.
 */
describe('dqctl history and dirty applies', () => {
  let database: TestDatabase;
  let git: GitRepo;
  let head: string;
  const db = () => ['--database', database.url];

  beforeAll(async () => {
    database = await createTestDatabase();
    git = await gitRepo();
    head = (await runGit()).trim();
  });
  afterAll(async () => {
    await git?.cleanup();
    await database?.drop();
  });
  const runGit = async () => (await import('../helpers/gitRepo.js')).git(git.repo, 'rev-parse', 'HEAD');

  it('records a clean apply as its commit, and an apply of uncommitted changes as dirty with the files', async () => {
    expect((await runCli(['apply', '--auto-approve', ...db()], { cwd: git.repo })).code).toBe(0);

    const table = join(git.repo, 'sources/shop_oltp/public.payments.dqotable.yaml');
    await writeFile(table, (await readFile(table, 'utf8')).replace('priority: 1', 'priority: 2'));
    await appendFile(join(git.repo, 'patterns/new note.txt'), 'untracked\n');
    const dirtyApply = await runCli(['apply', '--auto-approve', ...db()], { cwd: git.repo });
    expect(dirtyApply.code, dirtyApply.stderr).toBe(0);

    const listed = await runCli(['history', '--format', 'json', ...db()], { cwd: git.repo });
    expect(listed.code, listed.stderr).toBe(0);
    const entries = JSON.parse(listed.stdout);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      commit: head,
      dirty: true,
      dirty_files: ['patterns/new note.txt', 'sources/shop_oltp/public.payments.dqotable.yaml'],
      summary: { add: 0, change: 1, destroy: 0 },
    });
    expect(entries[1]).toMatchObject({ commit: head, dirty: false, dirty_files: [], summary: { add: 22 } });

    const text = await runCli(['history', '--limit', '1', ...db()], { cwd: git.repo });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${head.slice(0, 12)}+dirty (2 files)`);
    expect(text.stdout).toContain('uncommitted changes: patterns/new note.txt, sources/shop_oltp/public.payments.dqotable.yaml');
    expect(text.stdout.split('\n').filter((l) => /^\d+ /.test(l))).toHaveLength(1);

    const bad = await runCli(['history', '--limit', '0', ...db()], { cwd: git.repo });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--limit must be a whole number');
  }, 120_000);

  it('--server lists the same history from GET /api/gitops/history', async () => {
    let store: Store | undefined;
    let app: FastifyInstance | undefined;
    try {
      store = await openStore({ databaseUrl: database.url });
      app = await buildServer({ store });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const remote = await runCli(['history', '--format', 'json', '--server', url], { cwd: git.repo });
      const local = await runCli(['history', '--format', 'json', ...db()], { cwd: git.repo });
      expect(remote.code, remote.stderr).toBe(0);
      expect(JSON.parse(remote.stdout)).toEqual(JSON.parse(local.stdout));
      expect(JSON.parse(remote.stdout)[0].dirty).toBe(true);

      // apply --server sends the dirty files with the desired state; the server records them
      const table = join(git.repo, 'sources/shop_oltp/public.orders.dqotable.yaml');
      await writeFile(table, (await readFile(table, 'utf8')).replace('priority: 1', 'priority: 3'));
      const applied = await runCli(['apply', '--auto-approve', '--server', url], { cwd: git.repo });
      expect(applied.code, applied.stderr).toBe(0);
      const [latest] = JSON.parse((await runCli(['history', '--format', 'json', '--limit', '1', '--server', url], { cwd: git.repo })).stdout);
      expect(latest).toMatchObject({ dirty: true, summary: { change: 1 } });
      expect(latest.dirty_files).toContain('sources/shop_oltp/public.orders.dqotable.yaml');
      expect(latest.applied_by).toMatch(/^api:/);
    } finally {
      await app?.close();
      await store?.close();
    }
  }, 120_000);
});

describe('exit codes', () => {
  it('the table of docs/exit-codes.md is the one --help prints', async () => {
    const readme = await readFile(join(import.meta.dirname, '../../docs/exit-codes.md'), 'utf8');
    for (const { code, meaning } of EXIT_CODES) expect(readme).toContain(`| ${code} | ${meaning} |`);
    const help = await runCli(['--help'], { cwd: import.meta.dirname });
    for (const { code, meaning } of EXIT_CODES) expect(help.stdout).toContain(`  ${code}  ${meaning}`);
  });

  it("every command's --help names its own exit codes", async () => {
    for (const command of [['validate'], ['plan'], ['apply'], ['run', 'checks'], ['history'], ['lock', 'release'], ['demo'], ['serve']]) {
      const help = await runCli([...command, '--help'], { cwd: import.meta.dirname });
      expect(help.stdout, command.join(' ')).toMatch(/Exit codes:\n {2}0 {2}/);
    }
    expect((await runCli(['plan', '--help'], { cwd: import.meta.dirname })).stdout).toContain('2  --detailed-exitcode: there are changes');
    expect((await runCli(['run', 'checks', '--help'], { cwd: import.meta.dirname })).stdout).toContain('4  a check could not run');
    expect((await runCli(['run', 'checks', '--help'], { cwd: import.meta.dirname })).stdout).toContain('5  the highest result is a warning');
  });
});
