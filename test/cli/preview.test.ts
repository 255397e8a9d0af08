import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { createOrdersSource, writeSourceConnection } from '../helpers/sourceRepo.js';
import type { TestDatabase } from '../helpers/testDatabase.js';
import { serve, type Served } from './reconcileSupport.js';

/**
 * `dqctl preview` through the real bin: on the embedded store and the data source of this process, then with
 * --server through a running `dqctl serve` (its store holds the history, its secrets run the live checks: an
 * operator's token may run them, a viewer's only backtests). Exit codes: 0, 2 with --detailed-exitcode when a
 * check would fail now, 1 for an unknown revision, 3 for a head that does not validate.
 */
const TABLE = (minCount: number, warningNulls: number) =>
  `apiVersion: dqo/v1\nkind: table\nspec:\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          error:\n            min_count: ${minCount}\n  columns:\n    amount:\n      monitoring_checks:\n        daily:\n          nulls:\n            daily_nulls_count:\n              warning:\n                max_count: ${warningNulls}\n`;

describe('dqctl preview (real bin)', { timeout: 180_000 }, () => {
  let source: TestDatabase;
  let repo: GitRepo;
  let state: string[];
  let env: NodeJS.ProcessEnv;
  let server: Served | undefined;
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCli(['preview', '--base', 'main', '--head', 'pr', repo.repo, ...args], { cwd: repo.dir, env: { DQCTL_SERVER_URL: '', DQCTL_TOKEN: '', ...env, ...extra } });

  beforeAll(async () => {
    source = await createOrdersSource();
    repo = await gitRepo({ withExample: false });
    env = await writeSourceConnection(repo.repo, 'db', source.url);
    await writeFile(join(repo.repo, 'sources/db/public.Orders.dqotable.yaml'), TABLE(1, 5));
    await repo.commitAll('base');
    state = ['--state-dir', join(repo.dir, 'state')];
    const applied = await runCli(['apply', repo.repo, '--auto-approve', ...state], { cwd: repo.dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    // one run: today's readouts (40 rows, 10 nulls: a warning at max_count 5) are the history
    const run = await runCli(['run', 'checks', ...state], { cwd: repo.dir, env });
    expect(run.stdout).toContain('1 valid, 1 warning');

    await git(repo.repo, 'checkout', '-q', '-b', 'pr');
    await writeFile(join(repo.repo, 'sources/db/public.Orders.dqotable.yaml'), TABLE(50, 20));
    await repo.commitAll('stricter row count, looser nulls');
    await git(repo.repo, 'checkout', '-q', '-b', 'broken');
    await writeFile(join(repo.repo, 'sources/db/public.Orders.dqotable.yaml'), TABLE(50, 20).replace('min_count', 'min_cuont'));
    await repo.commitAll('a typo');
    await git(repo.repo, 'checkout', '-q', 'main');
  }, 120_000);

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await repo?.cleanup();
    await source?.drop();
  });

  it('prints the backtest and the live outcome of each changed check; --detailed-exitcode exits 2 when one would fail now', async () => {
    const json = await cli(['--format', 'json', ...state]);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.base).toBe((await git(repo.repo, 'rev-parse', 'main')).trim());
    expect(doc.head).toBe((await git(repo.repo, 'rev-parse', 'pr')).trim());
    const byName = Object.fromEntries(doc.checks.map((c: any) => [c.check_name, c]));
    expect(byName.daily_nulls_count.backtest).toEqual({
      readouts: 1,
      before: { valid: 0, warning: 1, error: 0, fatal: 0 },
      after: { valid: 1, warning: 0, error: 0, fatal: 0 },
    });
    expect(byName.daily_row_count.live).toMatchObject({ status: 'ran', actual_value: 40, severity: 'error' });
    expect(byName.daily_nulls_count.live).toMatchObject({ status: 'ran', actual_value: 10, severity: 'valid' });

    const text = await cli([...state]);
    expect(text.stdout).toContain('~ db.public.Orders.amount  daily_nulls_count (monitoring daily, modified; sources/db/public.Orders.dqotable.yaml)');
    expect(text.stdout).toContain('backtest: 1 readout: 1 alert → 0 alerts (warning 1 → 0)');
    expect(text.stdout).toContain('live:     error: 40, expected 50');
    expect(text.stdout).toContain('2 checks changed (0 added, 2 modified); backtest of 30 days: 1 → 1 alerts; live: 1 would fail now');
    expect(text.stdout).toContain('backtest: 1 readout: 0 alerts → 1 alert (error 0 → 1)');

    const detailed = await cli(['--detailed-exitcode', '--format', 'markdown', ...state]);
    expect(detailed.code).toBe(2);
    expect(detailed.stdout.startsWith('### dqctl preview: 2 checks changed')).toBe(true);
    expect(detailed.stdout).toContain('**error: 40, expected 50**');
    const offline = await cli(['--detailed-exitcode', '--no-live', ...state]);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain('not run: live runs were not asked for (--no-live)');
  });

  it('an unknown base revision is an error (exit 1); a head that does not validate exits 3', async () => {
    const unknown = await runCli(['preview', '--base', 'origin/nope', '--head', 'pr', repo.repo, ...state], { cwd: repo.dir, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown git ref "origin/nope"');
    const invalid = await runCli(['preview', '--base', 'main', '--head', 'broken', repo.repo, '--format', 'markdown', ...state], { cwd: repo.dir, env });
    expect(invalid.code).toBe(3);
    expect(invalid.stdout).toContain('### dqctl preview: `broken` does not validate');
    const badDays = await cli(['--days', '0', ...state]);
    expect(badDays.code).toBe(1);
    expect(badDays.stderr).toContain('--days must be a whole number of at least 1');
  });

  it('--server: the server backtests for a viewer and runs live for an operator, with its own secrets', async () => {
    await writeFile(join(repo.dir, 'tokens.yaml'), '- {name: reader, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n');
    server = await serve([...state, '--tokens', join(repo.dir, 'tokens.yaml'), '--no-schedules'], repo.dir, { env, readyText: 'is serving' });
    // the CLI holds no secret: the server's environment has DQ_USER
    const remote = (token: string, args: string[] = []) => cli(['--server', server!.url, '--token', token, '--format', 'json', ...args], { DQ_USER: '' });

    const viewer = await remote('viewer-token');
    expect(viewer.code, viewer.stderr).toBe(0);
    const seen = JSON.parse(viewer.stdout);
    const nulls = seen.checks.find((c: any) => c.check_name === 'daily_nulls_count');
    expect(nulls.backtest).toEqual({ readouts: 1, before: { valid: 0, warning: 1, error: 0, fatal: 0 }, after: { valid: 1, warning: 0, error: 0, fatal: 0 } });
    expect(nulls.live).toMatchObject({ status: 'not_run', reason: 'live checks need an operator token on the server (this caller is a viewer)' });

    const operator = await remote('operator-token', ['--detailed-exitcode']);
    expect(operator.code, operator.stderr).toBe(2);
    const ran = JSON.parse(operator.stdout);
    expect(ran.checks.find((c: any) => c.check_name === 'daily_row_count').live).toMatchObject({ status: 'ran', actual_value: 40, severity: 'error' });

    const noToken = await remote('');
    expect(noToken.code).toBe(1);
  });
});
