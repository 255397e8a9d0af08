import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onTerminal, runCli, workspace } from '../helpers/cli.js';

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
