import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, workspace } from '../helpers/cli.js';

/** `export --out` (the configuration) and `export dqops-data --out` (the history) each read their own options. */
describe('export and export dqops-data share a name, not their options', () => {
  let ws: Awaited<ReturnType<typeof workspace>> | undefined;
  afterAll(() => ws?.cleanup());

  it('routes --out to the command it follows', { timeout: 120_000 }, async () => {
    ws = await workspace();
    const state = ['--state-dir', join(ws.dir, 'state')];
    expect((await runCli(['apply', ws.repo, ...state, '--auto-approve'], { cwd: ws.dir })).code).toBe(0);
    const history = await runCli(['export', 'dqops-data', ...state, '--out', join(ws.dir, 'history'), '--format', 'json'], { cwd: ws.dir });
    expect(history.code, history.stderr).toBe(0);
    expect(Object.keys(JSON.parse(history.stdout).kinds).sort()).toEqual(['check_results', 'error_samples', 'errors', 'incidents', 'sensor_readouts', 'statistics']);
    const configuration = await runCli(['export', ...state, '--out', join(ws.dir, 'files')], { cwd: ws.dir });
    expect(configuration.code, configuration.stderr).toBe(0);
    expect(configuration.stdout).toMatch(/Exported 22 objects to .*files/);
  });
});
