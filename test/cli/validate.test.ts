import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, workspace } from '../helpers/cli.js';

describe('dqctl validate (real bin)', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  const cli = (...args: string[]) => runCli(args, { cwd: ws.dir });

  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(() => ws.cleanup());

  async function breakRepository() {
    const orders = join(ws.repo, 'sources/shop_oltp/public.orders.dqotable.yaml');
    await writeFile(orders, (await readFile(orders, 'utf8')).replace('min_count: 1', 'min_cont: 1'));
    const customers = join(ws.repo, 'sources/shop_oltp/public.customers.dqotable.yaml');
    await writeFile(customers, (await readFile(customers, 'utf8')).replace('apiVersion: dqo/v1', 'apiVersion: dqo/v2'));
  }

  it('accepts the example (exit 0)', async () => {
    const run = await cli('validate', ws.repo);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('valid: 0 warnings');
    expect(run.stdout).toContain('22 objects');
  });

  it('reports every error at once with file:line:col, a snippet and a caret (exit 3)', async () => {
    await breakRepository();
    const run = await cli('validate', ws.repo);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/sources\/shop_oltp\/public\.customers\.dqotable\.yaml:\d+:\d+: error\[wrong_api_version\]/);
    expect(run.stdout).toMatch(/sources\/shop_oltp\/public\.orders\.dqotable\.yaml:\d+:\d+: error\[unknown_rule_parameter\].*min_count/);
    expect(run.stdout).toMatch(/\| +min_cont: 1\n +\| +\^+/);
    expect(run.stdout).toContain('invalid: 2 errors');
  });

  it('a YAML syntax error points at its line and column; one tab gives one error, not one per line after it', async () => {
    const orders = join(ws.repo, 'sources/shop_oltp/public.orders.dqotable.yaml');
    const text = await readFile(orders, 'utf8');
    // a tab indents `warning:` (line 22); the lines after it are correct
    await writeFile(orders, text.replace('        daily_row_count:\n          warning:', '        daily_row_count:\n\t  warning:'));
    const tab = await cli('validate', ws.repo);
    expect(tab.code).toBe(3);
    expect(tab.stdout).toContain('sources/shop_oltp/public.orders.dqotable.yaml:22:1: error[yaml_syntax]: malformed YAML: tabs are not allowed for indentation in YAML; indent with spaces');
    expect(tab.stdout).toContain('invalid: 1 error');
    // a key one space to the left of its siblings: the error is at the key (column 8), not at column 1
    await writeFile(orders, text.replace('        daily_row_count_anomaly:', '       daily_row_count_anomaly:'));
    const misaligned = await cli('validate', ws.repo);
    expect(misaligned.stdout).toMatch(/public\.orders\.dqotable\.yaml:28:8: error\[yaml_syntax\]/);
  });

  it('a quoted number is read as the number with a warning, as DQOps coerces scalars; apply stores the number', async () => {
    const orders = join(ws.repo, 'sources/shop_oltp/public.orders.dqotable.yaml');
    await writeFile(orders, (await readFile(orders, 'utf8')).replace('min_count: 50000', 'min_count: "50000"'));
    const run = await cli('validate', ws.repo);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('public.orders.dqotable.yaml:23:24: warning[quoted_scalar]: "50000" is a quoted number; read as 50000, as DQOps does');
    expect(run.stdout).toContain('valid: 1 warning');
    const plan = await cli('plan', ws.repo, '--format', 'json', '--state-dir', join(ws.dir, 'state'));
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('"min_count": 50000');
    expect(plan.stdout).not.toContain('"50000"');
  });

  it('prints the JSON report in the documented shape', async () => {
    await breakRepository();
    const run = await cli('validate', ws.repo, '--format', 'json');
    expect(run.code).toBe(3);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ valid: false, error_count: 2, warning_count: 0 });
    expect(report.diagnostics[0]).toEqual({
      severity: 'error',
      code: expect.any(String),
      summary: expect.any(String),
      range: { filename: expect.any(String), start: { line: expect.any(Number), column: expect.any(Number) }, end: expect.any(Object) },
    });
  });

  it('prints GitHub workflow annotations, with paths relative to the workspace (the user home in a sub-folder)', async () => {
    await breakRepository();
    // the current folder (ws.dir) is the workspace: the user home is its sub-folder repo/
    const run = await cli('validate', ws.repo, '--format', 'github');
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^::error file=repo\/sources\/shop_oltp\/public\.customers\.dqotable\.yaml,line=\d+,col=\d+,.*::apiVersion must be dqo\/v1/m);
    // $GITHUB_WORKSPACE decides when set: here the user home is the workspace itself
    const atRoot = await runCli(['validate', 'repo', '--format', 'github'], { cwd: ws.dir, env: { GITHUB_WORKSPACE: ws.repo } });
    expect(atRoot.stdout).toMatch(/^::error file=sources\/shop_oltp\/public\.customers\.dqotable\.yaml,line=\d+/m);
    // a user home outside the workspace keeps its own relative paths
    const outside = await runCli(['validate', ws.repo, '--format', 'github'], { cwd: ws.dir, env: { GITHUB_WORKSPACE: join(ws.dir, 'elsewhere') } });
    expect(outside.stdout).toMatch(/^::error file=sources\/shop_oltp\//m);
  });

  it('says clearly when the folder does not exist', async () => {
    const run = await cli('validate', join(ws.dir, 'nope'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: cannot read the repository folder .*nope/);
  });

  it('explains itself in --help and rejects unknown options', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    for (const command of ['validate', 'plan', 'apply', 'show', 'state']) expect(help.stdout).toContain(command);
    const applyHelp = await cli('apply', '--help');
    expect(applyHelp.stdout).toContain('--lock-timeout');
    const bad = await cli('plan', '--frobnicate');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("unknown option '--frobnicate'");
    const badFormat = await cli('validate', '--format', 'xml');
    expect(badFormat.code).toBe(1);
    expect(badFormat.stderr).toContain('Allowed choices are text, json, github');
  });
});

describe('store errors (real bin)', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  beforeEach(async () => {
    ws = await workspace();
  });
  afterEach(() => ws.cleanup());

  it('PostgreSQL unreachable: a clear error, no password, exit 1, quickly', async () => {
    const started = Date.now();
    const run = await runCli(['plan', ws.repo, '--database', 'postgres://dq:s3cret@127.0.0.1:1/nowhere'], { cwd: ws.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: .*127\.0\.0\.1:1/);
    expect(run.stderr).not.toContain('s3cret');
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('DQCTL_DATABASE_URL selects PostgreSQL too', async () => {
    const run = await runCli(['state', 'list'], { cwd: ws.dir, env: { DQCTL_DATABASE_URL: 'postgres://127.0.0.1:1/nowhere' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('127.0.0.1:1');
  });

  it('refuses an unreadable plan file and an unknown --kind', async () => {
    await writeFile(join(ws.dir, 'plan.json'), '{"hello": 1}');
    const show = await runCli(['show', 'plan.json'], { cwd: ws.dir });
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('is not a dqctl plan');
    const state = await runCli(['state', 'list', '--kind', 'tables', '--state-dir', join(ws.dir, 'st')], { cwd: ws.dir });
    expect(state.code).toBe(1);
    expect(state.stderr).toContain('--kind must be one of');
  });
});
