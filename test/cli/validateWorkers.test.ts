/**
 * `dqctl validate` through the real bin with parse workers (src/manifest/parseWorkers.ts) and without: the bundle
 * (dist/bundle/parseWorker.js, an entry of scripts/bundle-cli.mjs) and, with DQCTL_BUNDLE=off, dist/'s modules
 * (dist/manifest/parseWorker.js) start their workers, and the output (text and JSON), the exit code and the parse
 * cache a following run reads are those of one thread. No warning: a worker that could not start would say so
 * (DQCTL_PARSE_WORKER), and its files would be parsed by the main thread.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../helpers/cli.js';
import { manyFilesRepository } from '../helpers/manyFilesRepository.js';

describe('validate with parse workers (real bin)', () => {
  let dir: string;
  let repo: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-validate-workers-'));
    repo = join(dir, 'repo');
    await manyFilesRepository(repo, 450); // more files than the workers' minimum (400)
  }, 60_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  let runs = 0;
  async function validate(format: string, env: NodeJS.ProcessEnv, cacheDir = join(dir, `cache-${runs++}`)): Promise<CliRun> {
    return runCli(['validate', repo, '--format', format, '--env', 'prod', '--quiet'], { cwd: dir, env: { DQCTL_CACHE_DIR: cacheDir, ...env }, timeoutMs: 180_000 });
  }

  it.each([
    ['the bundle', {}],
    ['dist/ (DQCTL_BUNDLE=off)', { DQCTL_BUNDLE: 'off' }],
  ])('%s: the same text and JSON output and exit code with workers as without', async (_what, env) => {
    for (const format of ['text', 'json']) {
      const one = await validate(format, { ...env, DQCTL_PARSE_WORKERS: 'off' });
      const two = await validate(format, { ...env, DQCTL_PARSE_WORKERS: '1' });
      expect(one.code).toBe(3); // errors found
      expect(two.code).toBe(one.code);
      expect(two.stdout).toBe(one.stdout);
      expect(two.stderr).not.toContain('DQCTL_PARSE_WORKER');
      expect(two.stderr).toBe(one.stderr);
    }
  }, 300_000);

  it('a second run reads the cache the workers wrote, and answers the same', async () => {
    const cacheDir = join(dir, 'cache-shared');
    const first = await validate('json', { DQCTL_PARSE_WORKERS: '1' }, cacheDir);
    expect((await readdir(cacheDir)).some((name) => name.endsWith('.json'))).toBe(true);
    const second = await validate('json', { DQCTL_PARSE_WORKERS: '1' }, cacheDir);
    expect(second.stdout).toBe(first.stdout);
    expect(second.code).toBe(first.code);
  }, 300_000);
});
