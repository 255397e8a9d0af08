/**
 * Environments through the real bin, on both store engines: `${var.NAME}` filled from dqctl.yaml's
 * spec.environments by `--env`, the store recording the environment it was applied with, a plan for another
 * one saying so first and apply refusing it without --switch-env, a change made only through a variable's
 * value, saved plans, and export writing the references back.
 */
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines, runCli, workspace } from '../helpers/cli.js';
import { addEnvironments, OLTP_CONNECTION_FILE, ORDERS_FILE, replaceLine } from '../helpers/environments.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { changedChecks } from '../../src/app/preview/changedChecks.js';
import { loadRevisionPair } from '../../src/app/loadRevisionPair.js';
import { GitSource } from '../../src/manifest/gitSource.js';

const ERROR_MIN_COUNT = 'spec.monitoring_checks.daily.volume.daily_row_count.error.min_count';

// Many bin runs per test, each opening the store: generous time on a busy 2-core machine.
describe.each(engines())('environments through the real bin on $name', { timeout: 240_000 }, (engine) => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let store: string[];
  const cli = (...args: string[]) => runCli(args, { cwd: ws.dir });

  beforeEach(async () => {
    ws = await workspace();
    await addEnvironments(ws.repo);
    store = await engine.fresh(ws.dir);
  });
  afterEach(() => ws.cleanup());
  afterAll(() => engine.teardown());

  it('validate: ${var.…} without --env is an error listing the environments; an unknown --env lists them too', async () => {
    const without = await cli('validate', ws.repo);
    expect(without.code).toBe(3);
    expect(without.stdout).toContain(`${ORDERS_FILE}:25:24: error[variable_without_environment]: \${var.orders_min} needs an environment: pass --env with one of dev, prod`);
    expect(without.stdout).toContain(`${OLTP_CONNECTION_FILE}:12:14: error[variable_without_environment]`);

    const unknown = await cli('validate', ws.repo, '--env', 'qa', '--format', 'json');
    expect(unknown.code).toBe(3);
    const report = JSON.parse(unknown.stdout);
    expect(report.diagnostics.map((d: { code: string }) => d.code)).toEqual(['environment_unknown']);
    expect(report.diagnostics[0].summary).toBe('--env qa: no such environment in dqctl.yaml; the environments are dev, prod');

    const prod = await cli('validate', ws.repo, '--env', 'prod');
    expect(prod.code).toBe(0);
    expect(prod.stdout).toContain('22 objects in');

    // serve --repo refuses at start an environment its folder does not define (every pass would fail)
    const serve = await cli('serve', '--repo', ws.repo, '--env', 'qa', '--port', '0', '--no-schedules', ...store);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain(`--env qa: no such environment in ${join(ws.repo, 'dqctl.yaml')}; the environments are dev, prod`);
  });

  it('round trip with --env: apply, then plan → no changes; the plan holds the typed values; another environment is a switch', async () => {
    const first = await cli('plan', ws.repo, ...store, '--env', 'prod');
    expect(first.stdout.split('\n')[2]).toBe('Environment: prod (the live store has none recorded; apply records it)');
    const applied = await cli('apply', ws.repo, ...store, '--env', 'prod', '--auto-approve', '--format', 'json');
    expect(applied.code).toBe(0);
    const appliedDoc = JSON.parse(applied.stdout);
    expect(appliedDoc.plan.environment).toEqual({ name: 'prod', live: null, switching: false });
    const orders = appliedDoc.plan.changes.find((c: { name: string }) => c.name === 'shop_oltp/public.orders');
    // the store holds the values, typed as YAML types them: the number 5000, not the text "${var.orders_min}"
    expect(orders.after.spec.monitoring_checks.daily.volume.daily_row_count.error).toEqual({ min_count: 5000 });
    const source = appliedDoc.plan.changes.find((c: { name: string }) => c.name === 'shop_oltp');
    expect(source.after.spec.postgresql.sslmode).toBe('require');

    const again = await cli('plan', ws.repo, ...store, '--env', 'prod', '--detailed-exitcode');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Environment: prod\n');
    expect(again.stdout).toContain('No changes. The live state matches the repository.');

    // dev against a store applied with prod: said at the top, and the plan shows dev's effective values
    const dev = await cli('plan', ws.repo, ...store, '--env', 'dev', '--detailed-exitcode');
    expect(dev.code).toBe(2);
    const top = dev.stdout.split('\n').slice(0, 6).join('\n');
    expect(top).toContain('Environment: dev (the live store was applied with prod)');
    expect(top).toContain('Warning: the live store was applied with the environment prod (namespace shop); this plan is for the environment dev: apply refuses it without --switch-env');
    expect(dev.stdout).toContain(`~ ${ERROR_MIN_COUNT} = 5000 -> 10`);
    expect(dev.stdout).toContain('~ spec.postgresql.sslmode = "require" -> "disable"');
    expect(dev.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
    const markdown = await cli('plan', ws.repo, ...store, '--env', 'dev', '--format', 'markdown');
    expect(markdown.stdout).toContain('Environment: `dev` (the live store was applied with prod)');
    expect(markdown.stdout.indexOf('the live store was applied with the environment prod')).toBeLessThan(markdown.stdout.indexOf('| action |'));
  });

  it('apply refuses another environment without --switch-env (nothing written), and applies it with', async () => {
    expect((await cli('apply', ws.repo, ...store, '--env', 'prod', '--auto-approve')).code).toBe(0);
    const refused = await cli('apply', ws.repo, ...store, '--env', 'dev', '--auto-approve');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the live store was applied with the environment prod (namespace shop); this plan is for the environment dev. Check --env and the store (--database / --state-dir / --server); pass --switch-env to apply it to this store anyway',
    );
    expect(refused.stdout).not.toContain('Apply complete');
    // nothing moved: prod's plan is still empty
    const still = await cli('plan', ws.repo, ...store, '--env', 'prod', '--detailed-exitcode');
    expect(still.code).toBe(0);

    // without --env this repository does not even load (it uses variables): exit 3, nothing applied
    const none = await cli('apply', ws.repo, ...store, '--auto-approve');
    expect(none.code).toBe(3);

    const switched = await cli('apply', ws.repo, ...store, '--env', 'dev', '--auto-approve', '--switch-env');
    expect(switched.code).toBe(0);
    expect(switched.stdout).toContain('Apply complete! Objects: 0 added, 2 changed, 0 destroyed.');
    const devAgain = await cli('plan', ws.repo, ...store, '--env', 'dev', '--format', 'json');
    const doc = JSON.parse(devAgain.stdout);
    expect(doc.environment).toEqual({ name: 'dev', live: 'dev', switching: false });
    expect(doc.changes).toEqual([]);
    const history = JSON.parse((await cli('history', ...store, '--format', 'json')).stdout);
    expect(history.map((e: { environment: string | null }) => e.environment)).toEqual(['dev', 'prod']);
  });

  it('a change made only through a variable modifies every object using it, in that environment only', async () => {
    const devStore = await engine.fresh(join(ws.dir, 'dev'));
    expect((await cli('apply', ws.repo, ...store, '--env', 'prod', '--auto-approve')).code).toBe(0);
    expect((await cli('apply', ws.repo, ...devStore, '--env', 'dev', '--auto-approve')).code).toBe(0);
    // a second table uses the same variable
    await replaceLine(ws.repo, 'sources/shop_oltp/public.order_items.dqotable.yaml', '            max_count: 100', '            max_count: ${var.orders_min}');
    await replaceLine(ws.repo, 'dqctl.yaml', '        orders_min: 5000', '        orders_min: 6000');

    const prod = JSON.parse((await cli('plan', ws.repo, ...store, '--env', 'prod', '--format', 'json')).stdout);
    expect(prod.changes.map((c: { name: string; actions: string[] }) => [c.name, c.actions[0]])).toEqual([
      ['shop_oltp/public.order_items', 'update'],
      ['shop_oltp/public.orders', 'update'],
    ]);
    expect(prod.changes[1].fields).toEqual([{ path: ERROR_MIN_COUNT, before: 5000, after: 6000, origin: 'repository' }]);

    // dev's value did not change: only the table that now uses the variable moves
    const dev = JSON.parse((await cli('plan', ws.repo, ...devStore, '--env', 'dev', '--format', 'json')).stdout);
    expect(dev.changes.map((c: { name: string }) => c.name)).toEqual(['shop_oltp/public.order_items']);
  });

  it('a saved plan carries its environment; apply of it with another --env is refused', async () => {
    const saved = join(ws.dir, 'prod.plan.json');
    expect((await cli('plan', ws.repo, ...store, '--env', 'prod', '--out', saved)).code).toBe(0);
    const other = await cli('apply', saved, ...store, '--env', 'dev');
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('the saved plan was made with --env prod, not with --env dev');
    const applied = await cli('apply', saved, ...store);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Objects: 22 added');
    const plan = JSON.parse((await cli('plan', ws.repo, ...store, '--env', 'prod', '--format', 'json')).stdout);
    expect(plan.environment.live).toBe('prod');
  });

  it('export --env writes ${var.…} back where the file had it and the live value equals the variable', async () => {
    expect((await cli('apply', ws.repo, ...store, '--env', 'prod', '--auto-approve')).code).toBe(0);
    // the live orders table then changes in another field (applied from a copy where the warning moved)
    const copy = join(ws.dir, 'copy');
    await mkdir(copy);
    await cp(ws.repo, copy, { recursive: true });
    await replaceLine(copy, ORDERS_FILE, '            min_count: 50000', '            min_count: 40000');
    expect((await cli('apply', copy, ...store, '--env', 'prod', '--auto-approve')).code).toBe(0);

    // the repository's files hold the same values in prod: compared by their values, they are unchanged
    const before = await readFile(join(ws.repo, ORDERS_FILE), 'utf8');
    const dry = JSON.parse((await cli('export', '--out', ws.repo, ...store, '--env', 'prod', '--force', '--dry-run', '--format', 'json')).stdout);
    expect(dry.would_write).toEqual([ORDERS_FILE]);
    expect(dry.unchanged).toContain(OLTP_CONNECTION_FILE);

    const exported = await cli('export', '--out', ws.repo, ...store, '--env', 'prod', '--force');
    expect(exported.code).toBe(0);
    const after = await readFile(join(ws.repo, ORDERS_FILE), 'utf8');
    expect(after).toContain('            min_count: ${var.orders_min}');
    expect(after).toContain('            min_count: 40000');
    expect(after).toBe(before.replace('            min_count: 50000', '            min_count: 40000'));
    expect(await readFile(join(ws.repo, OLTP_CONNECTION_FILE), 'utf8')).toContain('    sslmode: ${var.oltp_sslmode}');
    // and the round trip: the exported repository plans no changes in prod
    const plan = await cli('plan', ws.repo, ...store, '--env', 'prod', '--detailed-exitcode');
    expect(plan.code).toBe(0);

    // without --env the references cannot be compared: refused, saying what to pass
    const blind = await cli('export', '--out', ws.repo, ...store);
    expect(blind.code).toBe(1);
    expect(blind.stderr).toContain('hold ${var.…} references: pass --env to compare them by their values');

    // an environment whose value differs from the live one: the literal value is written
    const devExport = await cli('export', '--out', ws.repo, ...store, '--env', 'dev', '--force');
    expect(devExport.code).toBe(0);
    const devText = await readFile(join(ws.repo, ORDERS_FILE), 'utf8');
    expect(devText).not.toContain('${var.orders_min}');
    expect(devText).toContain('            min_count: 5000\n');

    const unknown = await cli('export', '--out', ws.repo, ...store, '--env', 'qa');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--env qa: no such environment in');
    expect(unknown.stderr).toContain('the environments are dev, prod');
  });
});

describe('diff --env: the effective values of one environment, both revisions read with it', { timeout: 120_000 }, () => {
  let r: GitRepo;
  beforeEach(async () => {
    r = await gitRepo();
    await addEnvironments(r.repo);
    await r.commitAll('environments');
    await git(r.repo, 'checkout', '-q', '-b', 'pr');
    // the pull request changes only prod's value of a variable
    await replaceLine(r.repo, 'dqctl.yaml', '        orders_min: 5000', '        orders_min: 6000');
    await r.commitAll('raise the prod threshold');
  });
  afterEach(() => r.cleanup());
  const diff = (...args: string[]) => runCli(['diff', '--base', 'main', '--head', 'pr', r.repo, '--no-store', ...args], { cwd: r.dir });

  it('prod sees the threshold change; dev sees none; without --env the head does not validate', async () => {
    const prod = await diff('--env', 'prod', '--format', 'json');
    expect(prod.code).toBe(0);
    const doc = JSON.parse(prod.stdout);
    expect(doc.environment).toBe('prod');
    expect(doc.changes.map((c: { name: string; action: string }) => [c.name, c.action])).toEqual([['shop_oltp/public.orders', 'changed']]);
    expect(doc.changes[0].fields).toEqual([{ path: ERROR_MIN_COUNT, before: 5000, after: 6000 }]);
    const text = await diff('--env', 'prod');
    expect(text.stdout).toContain('Environment: prod (its effective values are compared)');
    const markdown = await diff('--env', 'prod', '--format', 'markdown');
    expect(markdown.stdout.split('\n')[0]).toBe('### dqctl diff: 0 added, 1 changed, 0 removed (environment `prod`)');

    const dev = JSON.parse((await diff('--env', 'dev', '--format', 'json')).stdout);
    expect(dev.changes).toEqual([]);

    const none = await diff();
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('variable_without_environment');
  });

  it('preview --env: the check whose threshold changed through the variable is "modified" in prod, absent in dev', async () => {
    const sides = (environment: string) => ({
      base: { source: new GitSource({ repository: r.repo, ref: 'main' }), ref: 'main' },
      head: { source: new GitSource({ repository: r.repo, ref: 'pr' }), ref: 'pr' },
      environment,
    });
    const wording = { nothing: 'nothing was previewed', baseConsequence: '' };
    const prod = await loadRevisionPair(sides('prod'), wording);
    const changed = changedChecks(prod.base, prod.head);
    expect(changed.map((t) => [t.table, t.checks.map((c) => [c.check_name, c.change, (c.spec as any).error])])).toEqual([
      ['orders', [['daily_row_count', 'modified', { min_count: 6000 }]]],
    ]);
    const dev = await loadRevisionPair(sides('dev'), wording);
    expect(changedChecks(dev.base, dev.head)).toEqual([]);
    // the command reads both revisions with --env: prod previews the modified check, an unknown one does not validate
    const state = ['--state-dir', join(r.dir, 'state')];
    const json = await runCli(['preview', '--base', 'main', '--head', 'pr', r.repo, ...state, '--no-live', '--env', 'prod', '--format', 'json'], { cwd: r.dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).checks.map((c: { check_name: string; change: string }) => [c.check_name, c.change])).toEqual([['daily_row_count', 'modified']]);
    const unknown = await runCli(['preview', '--base', 'main', '--head', 'pr', r.repo, ...state, '--no-live', '--env', 'qa'], { cwd: r.dir });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('--env qa: no such environment in dqctl.yaml; the environments are dev, prod');
  });
});
