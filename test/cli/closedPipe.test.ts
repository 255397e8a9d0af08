import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, EXAMPLE } from '../helpers/cli.js';

/**
 * `dqctl … | head`: the reader of stdout closes early. The CLI ends quietly (no EPIPE stack trace on stderr),
 * as Unix tools do. The reader here closes its end after the first chunk, as `head -1` does.
 */
function firstChunkThenClose(args: string[]): Promise<{ code: number | null; stderr: string; first: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    let first = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.once('data', (chunk: Buffer) => {
      first = chunk.toString('utf8');
      child.stdout.destroy(); // the reader goes away; the CLI's next writes meet a closed pipe
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, first }));
  });
}

describe('a closed stdout pipe', () => {
  it('ends the CLI quietly, without a stack trace', async () => {
    // --help of every command writes in several chunks; validate's JSON report too
    for (const args of [['--help'], ['validate', EXAMPLE, '--format', 'json']]) {
      const run = await firstChunkThenClose(args);
      expect(run.first.length).toBeGreaterThan(0);
      expect(run.stderr).not.toMatch(/EPIPE|Unhandled|at .*\(/);
      expect(run.code).toBe(0);
    }
  }, 60_000);
});
