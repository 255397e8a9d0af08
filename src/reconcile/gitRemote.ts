import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { DqError } from '../model/index.js';

/**
 * The git remote of `serve --git URL`: cloned once (bare, the one branch) into a cache folder, then fetched.
 * Any URL git can reach works (https, ssh, file://, a local path); credentials in a URL never reach a status,
 * a log line or an error message. A failed fetch changes nothing: the commit fetched last stays where it was.
 */
export interface GitRemoteOptions {
  url: string;
  branch: string;
  /** Folder holding the clone (made when missing; a clone of another URL there is replaced). */
  cacheDir: string;
  /** Longest a clone or fetch may stay silent before it is killed (default 120 s). */
  timeoutMs?: number;
}

export interface FetchResult {
  commit: string;
  /** Whether the branch moved (or was fetched for the first time). */
  changed: boolean;
}

export class GitRemote {
  readonly url: string;
  readonly branch: string;
  readonly cacheDir: string;
  /** The URL without credentials, for messages. */
  readonly description: string;
  private lastCommit: string | null = null;
  /** The cache folder was checked (or made) to be a clone of this URL in this process: later fetches skip the check. */
  private cloneChecked = false;
  private readonly timeoutMs: number;

  constructor(options: GitRemoteOptions) {
    checkRemote(options.url, options.branch);
    this.url = options.url;
    this.branch = options.branch;
    this.cacheDir = options.cacheDir;
    this.description = redactUrl(options.url);
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** The commit fetched last (null before the first successful fetch). */
  get commit(): string | null {
    return this.lastCommit;
  }

  /** The ref a RepositorySource reads: the fetched branch, pinned to its commit by the caller. */
  get ref(): string {
    return `refs/heads/${this.branch}`;
  }

  /** Clones on first use (or when the cache holds something else), fetches the branch otherwise. */
  async fetch(signal?: AbortSignal): Promise<FetchResult> {
    try {
      if (!this.cloneChecked && !(await this.isOurClone())) {
        await this.clone(signal);
      } else {
        await this.git(this.cacheDir, signal).raw(['fetch', '--prune', '--no-tags', 'origin', `+${this.ref}:${this.ref}`]);
      }
      this.cloneChecked = true;
      const commit = (await this.git(this.cacheDir, signal).raw(['rev-parse', '--verify', `${this.ref}^{commit}`])).trim();
      const changed = commit !== this.lastCommit;
      this.lastCommit = commit;
      return { commit, changed };
    } catch (error) {
      this.cloneChecked = false; // the next fetch checks the clone again (and clones anew if it is gone)
      if (signal?.aborted) throw error;
      throw new DqError('REPOSITORY_UNREADABLE', `cannot fetch branch ${this.branch} of ${this.description}: ${this.redact(firstLines(error))}`);
    }
  }

  private async isOurClone(): Promise<boolean> {
    try {
      const config = await readFile(join(this.cacheDir, 'config'), 'utf8');
      if (!(await stat(join(this.cacheDir, 'objects'))).isDirectory()) return false;
      const url = (await this.git(this.cacheDir).raw(['config', '--get', 'remote.origin.url'])).trim();
      return config.includes('bare = true') && url === this.url;
    } catch {
      return false;
    }
  }

  private async clone(signal?: AbortSignal): Promise<void> {
    await rm(this.cacheDir, { recursive: true, force: true });
    await mkdir(this.cacheDir, { recursive: true });
    await this.git(this.cacheDir, signal).raw(['clone', '--bare', '--single-branch', '--no-tags', '--branch', this.branch, '--', this.url, '.']);
  }

  private git(baseDir: string, signal?: AbortSignal): SimpleGit {
    const env = gitEnvironment();
    return simpleGit({
      baseDir,
      abort: signal,
      timeout: { block: this.timeoutMs },
      allowEnvironment: Object.keys(env),
      // what reaches a remote may come from the operator's environment (ssh keys, askpass, proxies)
      unsafe: { allowUnsafeSshCommand: true, allowUnsafeAskPass: true, allowUnsafeGitProxy: true },
    }).env(env);
  }

  private redact(text: string): string {
    return text.split(this.url).join(this.description).replace(/\/\/[^/@\s]+@/g, '//');
  }
}

/** Variables a fetch has no use for, and that would run programs of their choosing (editors, pagers, diff tools). */
const DROPPED_VARIABLES = new Set([
  'editor',
  'visual',
  'pager',
  'prefix',
  'git_editor',
  'git_sequence_editor',
  'git_pager',
  'git_external_diff',
  'git_template_dir',
  'git_exec_path',
  'git_config',
  'git_config_global',
  'git_config_system',
  'git_config_count',
  'git_config_parameters',
]);

/**
 * The operator's environment as a plain `git fetch` would see it (ssh commands, askpass, proxies, CA files), minus
 * what a fetch never needs, and never a prompt for a password: a server has nobody to answer it.
 */
function gitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    const lower = key.toLowerCase();
    if (DROPPED_VARIABLES.has(lower) || lower.startsWith('git_config_key_') || lower.startsWith('git_config_value_')) continue;
    env[key] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

/** Refuses a URL git would read as an option, and a branch name git would refuse (or read as a revision). */
export function checkRemote(url: string, branch: string): void {
  if (url.trim() === '' || url.startsWith('-')) throw new DqError('INVALID_ARGUMENT', `--git must be a git URL, not ${JSON.stringify(url)}`);
  if (!isBranchName(branch)) throw new DqError('INVALID_ARGUMENT', `--branch ${JSON.stringify(branch)} is not a valid branch name`);
}

/** A cache folder per URL and branch, under `parent`. */
export function cacheFolderFor(parent: string, url: string, branch: string): string {
  return join(parent, createHash('sha256').update(`${url}\n${branch}`).digest('hex').slice(0, 16));
}

/** `https://user:token@host/x.git` → `https://host/x.git`; other forms as they are. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function isBranchName(name: string): boolean {
  return (
    name !== '' &&
    !name.startsWith('-') &&
    !name.startsWith('/') &&
    !name.endsWith('/') &&
    !name.endsWith('.lock') &&
    !name.includes('..') &&
    !name.includes('@{') &&
    !/[\s~^:?*[\\\0-\x1f\x7f]/.test(name)
  );
}

function firstLines(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 2)
    .join(' ');
}
