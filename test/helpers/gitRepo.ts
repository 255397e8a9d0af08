import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { EXAMPLE } from './cli.js';

const execFileAsync = promisify(execFile);

/** Real git in a temp folder: no global config, fixed author, no signing. */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'dqctl test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'dqctl test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: GIT_ENV, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export interface GitRepo {
  /** The temp folder holding everything. */
  dir: string;
  /** The working copy. */
  repo: string;
  /** Commit everything in the working copy; returns the commit id. */
  commitAll(message: string): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * A working copy on branch `main` whose first commit holds examples/shop (at `subPath` when given).
 */
export async function gitRepo(options: { subPath?: string; withExample?: boolean } = {}): Promise<GitRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-git-'));
  const repo = join(dir, 'repo');
  await mkdir(repo);
  await git(repo, 'init', '-q', '-b', 'main');
  // no background gc or maintenance: it would still be writing .git/objects when the test removes the folder
  await git(repo, 'config', 'gc.auto', '0');
  await git(repo, 'config', 'maintenance.auto', 'false');
  if (options.withExample !== false) {
    await cp(EXAMPLE, options.subPath ? join(repo, options.subPath) : repo, { recursive: true });
  }
  const commitAll = async (message: string) => {
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '--allow-empty', '-m', message);
    return (await git(repo, 'rev-parse', 'HEAD')).trim();
  };
  await commitAll('the example shop');
  return { dir, repo, commitAll, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
