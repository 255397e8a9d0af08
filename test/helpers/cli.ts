import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, type TestDatabase } from './testDatabase.js';

/** Runs the real bin (bin/dqctl.js over dist/, built by `npm test`) as a user would. */
export const BIN = resolve(import.meta.dirname, '../../bin/dqctl.js');
export const EXAMPLE = resolve(import.meta.dirname, '../../examples/shop');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliRun> {
  return startCli(args, options).done;
}

/**
 * The bin started: `done` resolves when it ends, `printed(text)` once its stderr holds `text` (rejecting if it
 * ends first), so a test can act at a point the run announces instead of after a guessed delay.
 */
export function startCli(
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): { done: Promise<CliRun>; printed(text: string): Promise<void>; signal(name: NodeJS.Signals): void } {
  let stderrSoFar = '';
  let child!: ReturnType<typeof execFile>;
  const done = new Promise<CliRun>((resolvePromise) => {
    child = execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: options.cwd,
        env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '', ...options.env },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
  child.stderr?.on('data', (chunk) => (stderrSoFar += chunk));
  const printed = (text: string) =>
    new Promise<void>((resolvePromise, reject) => {
      const check = () => {
        if (!stderrSoFar.includes(text)) return;
        child.stderr?.off('data', check);
        resolvePromise();
      };
      child.stderr?.on('data', check);
      check();
      void done.then((run) => reject(new Error(`dqctl ${args[0]} ended (exit ${run.code}) before printing "${text}": ${run.stderr}`)));
    });
  return { done, printed, signal: (name) => void child.kill(name) };
}

/** A temp folder holding a copy of examples/shop (as repo/) and the embedded store's folder (as state/). */
/**
 * Runs the bin on a pseudo-terminal (util-linux `script`), typing `answer` once at the prompt
 * ("Enter a value:"), and resolves with the exit code and everything the terminal showed.
 */
export function onTerminal(args: string[], answer: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
    let output = '';
    let answered = false;
    // The terminal may close before `script` reads the answer (EPIPE); the exit code tells what happened.
    child.stdin.on('error', () => {});
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (!answered && output.includes('Enter a value:')) {
        answered = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

export async function workspace(): Promise<{ dir: string; repo: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-cli-'));
  const repo = join(dir, 'repo');
  await cp(EXAMPLE, repo, { recursive: true });
  return { dir, repo, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Store flags for one engine. `fresh(dir)` gives an empty store for one test: a new PostgreSQL database, or a
 * copy of an embedded store initialised once per file (initdb in PGlite takes seconds; a copy takes ~100 ms).
 */
export interface EngineFixture {
  name: 'pglite' | 'postgres';
  fresh(dir: string): Promise<string[]>;
  teardown(): Promise<void>;
}

export function engines(): EngineFixture[] {
  const databases: TestDatabase[] = [];
  let template: string | undefined;
  return [
    {
      name: 'pglite',
      fresh: async (dir) => {
        if (!template) {
          const templateDir = await mkdtemp(join(tmpdir(), 'dqctl-template-'));
          const run = await runCli(['state', 'list', '--state-dir', join(templateDir, 'state')], { cwd: templateDir });
          if (run.code !== 0) throw new Error(`cannot initialise the embedded store: ${run.stderr}`);
          template = join(templateDir, 'state');
        }
        await cp(template, join(dir, 'state'), { recursive: true });
        return ['--state-dir', join(dir, 'state')];
      },
      teardown: async () => {
        if (template) await rm(join(template, '..'), { recursive: true, force: true });
      },
    },
    {
      name: 'postgres',
      fresh: async () => {
        const database = await createTestDatabase();
        databases.push(database);
        return ['--database', database.url];
      },
      teardown: async () => {
        await Promise.all(databases.map((d) => d.drop()));
      },
    },
  ];
}
