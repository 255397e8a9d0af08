import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { createOrdersSource, writeSourceConnection } from '../helpers/sourceRepo.js';
import type { TestDatabase } from '../helpers/testDatabase.js';

/**
 * `dqctl preview` through the real bin when a pull request changes only a custom rule's Python: the base is
 * applied and run (today's readout: 40 rows, judged by the base rule), the head's rule judges it again and runs
 * live, and a rule that now raises is that check's error, printed, with the process ending normally.
 */
const TABLE = `apiVersion: dqo/v1
kind: table
spec:
  monitoring_checks:
    daily:
      volume:
        custom_checks:
          in_band:
            sensor_name: table/volume/row_count
            rule_name: myrules/band
            error:
              min_value: 10
          fragile:
            sensor_name: table/volume/row_count
            rule_name: myrules/fragile
            error:
              min_value: 1
`;
const RULE = 'apiVersion: dqo/v1\nkind: rule\nspec:\n  type: python\n  mode: current_value\n  fields:\n    - field_name: min_value\n      data_type: double\n';
const BAND = (condition: string) => `def evaluate_rule(rule_parameters):
    low = rule_parameters.parameters.min_value
    value = rule_parameters.actual_value
    return {'passed': ${condition}, 'expected_value': low}
`;

describe('dqctl preview of a custom rule change (real bin)', { timeout: 180_000 }, () => {
  let source: TestDatabase;
  let repo: GitRepo;
  let env: NodeJS.ProcessEnv;
  let state: string[];
  const file = async (path: string, text: string) => {
    await mkdir(dirname(join(repo.repo, path)), { recursive: true });
    await writeFile(join(repo.repo, path), text);
  };

  beforeAll(async () => {
    source = await createOrdersSource();
    repo = await gitRepo({ withExample: false });
    env = await writeSourceConnection(repo.repo, 'db', source.url);
    await file('sources/db/public.Orders.dqotable.yaml', TABLE);
    await file('rules/myrules/band.dqorule.yaml', RULE);
    await file('rules/myrules/band.py', BAND('value >= low'));
    await file('rules/myrules/fragile.dqorule.yaml', RULE);
    await file('rules/myrules/fragile.py', BAND('True'));
    await repo.commitAll('base');
    state = ['--state-dir', join(repo.dir, 'state')];
    const applied = await runCli(['apply', repo.repo, '--auto-approve', ...state], { cwd: repo.dir, env });
    expect(applied.code, applied.stderr).toBe(0);
    // today's readout of both checks: 40 rows, valid under the base rules
    const run = await runCli(['run', 'checks', ...state], { cwd: repo.dir, env });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('2 valid');

    await git(repo.repo, 'checkout', '-q', '-b', 'pr');
    await file('rules/myrules/band.py', BAND('low <= value <= 2 * low'));
    await file('rules/myrules/fragile.py', "def evaluate_rule(rule_parameters):\n    raise ValueError('no thresholds for this table')\n");
    await repo.commitAll('a band, not a floor');
    await git(repo.repo, 'checkout', '-q', 'main');
  }, 120_000);

  afterAll(async () => {
    await repo?.cleanup();
    await source?.drop();
  });

  it("judges the stored readout and the live one with the head's .py; a raising rule is its check's error", async () => {
    const cli = (args: string[]) => runCli(['preview', '--base', 'main', '--head', 'pr', repo.repo, ...state, ...args], { cwd: repo.dir, env: { DQCTL_SERVER_URL: '', DQCTL_TOKEN: '', ...env } });
    const json = await cli(['--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    const byName = Object.fromEntries(doc.checks.map((c: any) => [c.check_name, c]));
    expect(Object.keys(byName).sort()).toEqual(['fragile', 'in_band']);
    // 40 rows: at least 10 (base), but above 2 × 10 (head)
    expect(byName.in_band).toMatchObject({
      change: 'modified',
      backtest: { readouts: 1, before: { valid: 1, warning: 0, error: 0, fatal: 0 }, after: { valid: 0, warning: 0, error: 1, fatal: 0 } },
      backtest_error: null,
      live: { status: 'ran', actual_value: 40, expected_value: 10, severity: 'error' },
    });
    expect(byName.fragile).toMatchObject({ backtest: null, backtest_error: expect.stringContaining('ValueError: no thresholds for this table'), live: { status: 'not_run' } });

    const text = await cli(['--detailed-exitcode']);
    expect(text.code, text.stderr).toBe(2);
    expect(text.stdout).toContain('backtest: not backtested: rule myrules/fragile (error): ');
    expect(text.stdout).toContain('backtest: 1 readout: 0 alerts → 1 alert (error 0 → 1)');
    expect(text.stdout).toContain('2 checks changed (0 added, 2 modified); backtest of 30 days: 0 → 1 alerts (1 not backtested); live: 1 would fail now, 1 not run');
  });
});
