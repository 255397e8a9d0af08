import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { openStore } from '../../src/store/index.js';
import { runCli, workspace } from '../helpers/cli.js';

/**
 * Adopting an API edit into git, as a reviewer sees it: `export --only-drift --dry-run` prints the unified diff
 * and writes nothing; `export --only-drift` then writes exactly that diff: `git diff` shows the edited line and
 * nothing else, the file's comments stay.
 */
const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

describe('dqctl export --dry-run (real bin, PGlite)', { timeout: 600_000 }, () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  const stateDir = () => join(ws.dir, 'state');
  const cli = (...args: string[]) => runCli(args, { cwd: ws.dir, timeoutMs: 400_000 });

  beforeAll(async () => {
    ws = await workspace();
    // a hand comment in the file, to see it kept
    const file = join(ws.repo, ORDERS);
    await writeFile(file, (await readFile(file, 'utf8')).replace('  priority: 1\n', '  priority: 1   # paged at night\n'));
    git(ws.repo, 'init', '-q');
    git(ws.repo, 'add', '.');
    git(ws.repo, 'commit', '-qm', 'shop');
    expect((await cli('apply', ws.repo, '--state-dir', stateDir(), '--auto-approve')).code).toBe(0);
    const store = await openStore({ stateDir: stateDir() });
    try {
      await new LiveObjects(store).update('table', 'shop_oltp/public.orders', { caller: 'api:test' }, (current) => ({
        spec: { ...current.spec, stage: 'changed-through-the-api' },
      }));
    } finally {
      await store.close();
    }
  }, 600_000);
  afterAll(() => ws?.cleanup());

  it('prints the diff of the one changed line and writes nothing; the export then writes exactly that', async () => {
    const dry = await cli('export', '--only-drift', '--dry-run', '--out', ws.repo, '--state-dir', stateDir());
    expect(dry.code).toBe(0);
    expect(dry.stderr).toBe('Dry run: 1 file would be written, 0 unchanged; nothing was written.\n');
    expect(dry.stdout).toBe(
      [
        `--- a/${ORDERS}`,
        `+++ b/${ORDERS}`,
        '@@ -2,7 +2,7 @@',
        ' apiVersion: dqo/v1',
        ' kind: table',
        ' spec:',
        '-  stage: source',
        '+  stage: changed-through-the-api',
        '   priority: 1   # paged at night',
        '   timestamp_columns:',
        '     event_timestamp_column: ordered_at',
        '',
      ].join('\n'),
    );
    expect(git(ws.repo, 'status', '--porcelain')).toBe('');

    const json = await cli('export', '--only-drift', '--dry-run', '--format', 'json', '--out', ws.repo, '--state-dir', stateDir());
    expect(JSON.parse(json.stdout)).toMatchObject({ dry_run: true, would_write: [ORDERS], diff: dry.stdout });

    const exported = await cli('export', '--only-drift', '--out', ws.repo, '--state-dir', stateDir());
    expect(exported.code).toBe(0);
    const diff = git(ws.repo, 'diff', '--no-color', '-U3');
    expect(diff.slice(diff.indexOf('@@'))).toBe(dry.stdout.slice(dry.stdout.indexOf('@@')));
  });
});
