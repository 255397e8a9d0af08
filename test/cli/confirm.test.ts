import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, runCli, workspace } from '../helpers/cli.js';

/** Runs the bin on a pseudo-terminal (util-linux `script`), typing `answer` at the prompt. */
function onTerminal(args: string[], answer: string, cwd: string): Promise<{ code: number; output: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Enter a value:')) child.stdin.write(`${answer}\n`);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

describe('apply asks for confirmation on a terminal', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(() => ws.cleanup());

  it('applies on "yes" and cancels on anything else, writing nothing', async () => {
    const store = ['--state-dir', join(ws.dir, 'state')];
    const no = await onTerminal(['apply', ws.repo, ...store], 'no', ws.dir);
    expect(no.output).toContain('Do you want to perform these actions?');
    expect(no.output).toContain('Apply cancelled.');
    expect(no.code).toBe(1);
    const state = JSON.parse((await runCli(['state', 'list', ...store, '--format', 'json'], { cwd: ws.dir })).stdout);
    expect(state.objects).toEqual([]);

    const yes = await onTerminal(['apply', ws.repo, ...store], 'yes', ws.dir);
    expect(yes.output).toContain('Apply complete! Objects: 22 added');
    expect(yes.code).toBe(0);
  });
});
