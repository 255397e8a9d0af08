import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, EXAMPLE, runCli } from '../helpers/cli.js';

/**
 * Progress on a terminal: the real bin run in a pseudo-terminal (util-linux `script`), as a person at a terminal
 * runs it. validate, plan and apply draw their phases on stderr and clear the line before the result; with
 * --quiet, or when stderr is not a terminal, nothing is drawn.
 */
function inTerminal(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((done) => {
    execFile(
      'script',
      ['-qefc', command, '/dev/null'],
      { cwd, env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '', TERM: 'xterm' }, timeout: 400_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout }),
    );
  });
}

describe('progress of long CLI work (real bin)', { timeout: 900_000 }, () => {
  let dir: string;
  let repo: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-progress-'));
    repo = join(dir, 'repo');
    await cp(EXAMPLE, repo, { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('on a terminal: loading, planning and applying are drawn, then cleared before the result', async () => {
    const run = await inTerminal(['apply', repo, '--state-dir', join(dir, 'state'), '--auto-approve'], dir);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/Loading and validating files \[[█░]{30}\] \d+\/22/);
    expect(run.output).toContain('Planning…');
    expect(run.output).toMatch(/Applying \[[█░]{30}\] \d+\/22/);
    expect(run.output).toContain('Apply complete! Objects: 22 added');

    const validate = await inTerminal(['validate', repo], dir);
    expect(validate.output).toMatch(/Loading and validating files \[[█░]{30}\] \d+\/22/);
    expect(validate.output).toContain('valid: 0 warnings');
  });

  it('with --quiet, or when stderr is not a terminal: nothing but the result', async () => {
    const quiet = await inTerminal(['validate', repo, '--quiet'], dir);
    expect(quiet.code).toBe(0);
    expect(quiet.output).not.toContain('Loading');
    const piped = await runCli(['plan', repo, '--state-dir', join(dir, 'state')], { cwd: dir, timeoutMs: 400_000 });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
  });
});
