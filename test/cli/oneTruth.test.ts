import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser, watchedPage } from '../helpers/browser.js';
import { engines, runCli } from '../helpers/cli.js';
import { gitRepo, type GitRepo } from '../helpers/gitRepo.js';
import { getJson, killAll, serve, type Served } from './reconcileSupport.js';

/**
 * One truth in every view (issue 21), through the real binary on both stores: after an apply, a commit changes
 * one field of `customers` and an editor changes the labels of `customers` and `products` through the API. Every
 * view (the loop's status and pending plans, `plan --server`, `status --server`, the overview, the metrics)
 * credits the commit's field to the repository and the labels to the API, and each apply changes exactly what
 * its plan said. Status is fresh right after each write: nothing waits for the loop's interval (1 h here).
 */
const CUSTOMERS = 'shop_oltp/public.customers';
const PRODUCTS = 'shop_oltp/public.products';
const MIN_COUNT = 'spec.monitoring_checks.daily.volume.daily_row_count.warning.min_count';
const TABLE_URL = (table: string) => `/api/connections/shop_oltp/schemas/public/tables/${table}`;

interface FieldDoc {
  path: string;
  origin?: string;
  kept?: boolean;
  before: unknown;
  after: unknown;
}

const originsOf = (fields: FieldDoc[]) => Object.fromEntries(fields.map((f) => [f.path, f.origin]));
const changeOf = (plan: any, name: string) => plan.changes.find((c: any) => c.name === name);
const statusOf = (status: any, name: string) => status.objects.find((o: any) => o.name === name);

async function raiseMinCount(repo: GitRepo, from: number, to: number): Promise<void> {
  const file = join(repo.repo, 'sources/shop_oltp/public.customers.dqotable.yaml');
  const text = await readFile(file, 'utf8');
  expect(text).toContain(`min_count: ${from}\n`);
  await writeFile(file, text.replace(`min_count: ${from}\n`, `min_count: ${to}\n`));
  await repo.commitAll(`customers: warn below ${to} rows`);
}

describe.each(engines())('$name store: every view tells the same story, and apply does what the plan said', (engine) => {
  const children: Served['child'][] = [];
  let repo: GitRepo | undefined;
  afterAll(async () => {
    await killAll(children);
    await repo?.cleanup();
    await engine.teardown();
  });

  it('credits each field to the side that changed it, in every view; apply --server and apply --keep-drift change what their plans said', { timeout: 300_000 }, async () => {
    repo = await gitRepo();
    const store = await engine.fresh(repo.dir);
    const cli = (args: string[]) => runCli(args, { cwd: repo!.dir, env: { DQCTL_SERVER_URL: '', DQCTL_TOKEN: '' } });
    expect((await cli(['apply', repo.repo, ...store, '--auto-approve'])).code).toBe(0);
    await raiseMinCount(repo, 1000, 25000);

    const served = await serve(['--repo', repo.repo, '--interval', '1h', ...store], repo.dir);
    // the loop's first pass has compared once its log line is out (serve logs each pass to stdout); from then on
    // every write is compared at once
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!served.stdout().includes('reconcile pass:')) return;
        served.child.stdout!.off('data', check);
        resolve();
      };
      served.child.stdout!.on('data', check);
      check();
    });
    children.push(served.child);
    const api = (path: string) => getJson(served.url + path);
    const put = async (path: string, body: unknown) => {
      const response = await fetch(served.url + path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status, await response.text()).toBeLessThan(300);
    };

    expect((await api('/api/gitops/status')).body.compared_at).not.toBeNull();
    // an editor changes labels through the API: status shows it at once (the write triggers a comparison)
    await put(`${TABLE_URL('customers')}/labels`, ['critical', 'pii', 'from-api']);
    await put(`${TABLE_URL('products')}/labels`, ['catalog', 'from-api']);
    // each write starts a comparison; status answers within a few seconds with the latest one it has, so on a busy
    // machine it is read until the comparison covering both writes is there
    let status: any;
    await expect
      .poll(async () => {
        status = (await api('/api/gitops/status?all=true')).body;
        return Boolean(statusOf(status, CUSTOMERS)?.drifted && statusOf(status, PRODUCTS)?.drifted);
      }, { timeout: 30_000, interval: 200 })
      .toBe(true);
    expect(statusOf(status, CUSTOMERS)).toMatchObject({ status: 'OutOfSync', reason: 'repository_changed', drifted: true });
    expect(originsOf(statusOf(status, CUSTOMERS).changes)).toEqual({ [MIN_COUNT]: 'repository', 'spec.labels': 'api' });
    expect(statusOf(status, PRODUCTS)).toMatchObject({ status: 'Drifted', reason: 'drift_kept', drifted: true });
    expect(originsOf(statusOf(status, PRODUCTS).changes)).toEqual({ 'spec.labels': 'api' });

    // the pending plan is what `apply --server` does with its defaults (drift restored), and says so in its options
    const pending = (await api('/api/gitops/plan')).body;
    expect(pending.options).toMatchObject({ keep_drift: false });
    expect(originsOf(changeOf(pending, CUSTOMERS).fields)).toEqual({ [MIN_COUNT]: 'repository', 'spec.labels': 'api' });
    expect(changeOf(pending, PRODUCTS)).toMatchObject({ reason_code: 'restore_drift' });
    // drift lists what the API changed, never the repository's change
    expect(pending.drift.map((d: any) => [d.name, d.fields.map((f: FieldDoc) => f.path)])).toEqual([
      [CUSTOMERS, ['spec.labels']],
      [PRODUCTS, ['spec.labels']],
    ]);
    // the loop's own plan (no --self-heal): the repository's change applied, the API's kept
    const loop = (await api('/api/gitops/plan?mode=loop')).body;
    expect(loop.options).toMatchObject({ keep_drift: true });
    expect(changeOf(loop, CUSTOMERS).fields.find((f: FieldDoc) => f.path === 'spec.labels')).toMatchObject({ origin: 'api', kept: true });
    expect(changeOf(loop, PRODUCTS)).toBeUndefined();

    // the CLI through the server reads the same comparison: the same plan document, the same status
    const remotePlan = await cli(['plan', repo.repo, '--server', served.url, '--format', 'json']);
    expect(remotePlan.code, remotePlan.stderr).toBe(0);
    const remote = JSON.parse(remotePlan.stdout);
    expect(remote.fingerprint).toEqual(pending.fingerprint);
    expect(remote.changes.map((c: any) => [c.name, originsOf(c.fields)])).toEqual(pending.changes.map((c: any) => [c.name, originsOf(c.fields)]));
    const remoteText = await cli(['plan', repo.repo, '--server', served.url]);
    expect(remoteText.stdout).toMatch(/min_count = 1000 -> 25000\n/);
    expect(remoteText.stdout).toContain('# changed outside git; restored');
    const remoteStatus = JSON.parse((await cli(['status', '--server', served.url, '--format', 'json', '--all'])).stdout);
    expect(statusOf(remoteStatus, CUSTOMERS).changes).toEqual(statusOf(status, CUSTOMERS).changes);
    const statusText = (await cli(['status', '--server', served.url])).stdout;
    expect(statusText).toContain(`the repository changed it: ${MIN_COUNT}; changed outside git: spec.labels`);
    expect(statusText).not.toMatch(/^: /m); // no line with an empty label

    // the overview (what the console's pages read) and the metrics agree
    const overview = (await api('/api/overview')).body;
    const overviewCustomers = overview.not_synced.find((n: any) => n.name === CUSTOMERS);
    expect(overviewCustomers).toMatchObject({ drifted: true, changes: statusOf(status, CUSTOMERS).changes });
    expect(overview.not_synced.filter((n: any) => n.drifted).map((n: any) => n.name)).toEqual([CUSTOMERS, PRODUCTS]);
    const metrics = await (await fetch(`${served.url}/metrics`)).text();
    expect(metrics).toMatch(/^dqctl_objects_changed_outside_git 2$/m);

    // the console's Plan page reads the same comparison: the drift table holds the API's fields only, and it says
    // what apply --server and the loop each do
    const browser = await launchBrowser();
    try {
      const { page } = await watchedPage(browser);
      await page.goto(`${served.url}/plan`);
      const drift = page.getByTestId('drift-table');
      await drift.waitFor();
      for (const name of [CUSTOMERS, PRODUCTS]) {
        expect(await drift.locator('tr', { hasText: name }).locator('td').nth(3).textContent()).toBe('spec.labels');
      }
      expect(await page.getByTestId('plan-assumes').textContent()).toContain('dqctl apply --server');
      expect(await page.getByTestId('plan').textContent()).toContain('# changed outside git; restored');
      expect(await page.getByTestId('plan-loop').textContent()).toBe('The reconcile loop applies nothing on its own: it runs without --auto-apply.');
    } finally {
      await browser.close();
    }

    // apply --server with its defaults does exactly the pending plan: both tables back to the repository
    const applied = await cli(['apply', repo.repo, '--server', served.url, '--auto-approve', '--format', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    const appliedPlan = JSON.parse(applied.stdout).plan;
    expect(appliedPlan.fingerprint.desired).toEqual(pending.fingerprint.desired);
    expect(appliedPlan.changes.map((c: any) => c.name)).toEqual([CUSTOMERS, PRODUCTS]);
    expect((await api(`${TABLE_URL('customers')}/labels`)).body).toEqual(['critical', 'pii']);
    expect((await api(`${TABLE_URL('products')}/labels`)).body).toEqual(['catalog']);
    // fresh at once, without the loop's interval
    const afterApply = (await api('/api/gitops/status')).body;
    expect(afterApply).toMatchObject({ sync: 'Synced', objects: [] });

    // again, and now --keep-drift: the repository's field is applied, the API's labels stay, as its plan said
    await raiseMinCount(repo, 25000, 30000);
    await put(`${TABLE_URL('customers')}/labels`, ['critical', 'pii', 'again']);
    await put(`${TABLE_URL('products')}/labels`, ['catalog', 'again']);
    const keptPlan = JSON.parse((await cli(['plan', repo.repo, '--server', served.url, '--keep-drift', '--format', 'json'])).stdout);
    expect(keptPlan.changes.map((c: any) => c.name)).toEqual([CUSTOMERS]);
    expect(changeOf(keptPlan, CUSTOMERS).fields).toEqual([
      expect.objectContaining({ path: 'spec.labels', origin: 'api', kept: true }),
      expect.objectContaining({ path: MIN_COUNT, origin: 'repository', before: 25000, after: 30000 }),
    ]);
    const keptApply = await cli(['apply', repo.repo, '--server', served.url, '--keep-drift', '--auto-approve', '--format', 'json']);
    expect(keptApply.code, keptApply.stderr).toBe(0);
    expect((await api(`${TABLE_URL('customers')}/labels`)).body).toEqual(['critical', 'pii', 'again']);
    expect((await api(`${TABLE_URL('products')}/labels`)).body).toEqual(['catalog', 'again']);
    // what is left is the API's labels alone: the repository's field was applied
    const left = (await api('/api/gitops/plan')).body;
    expect(left.changes.map((c: any) => [c.name, c.reason_code, c.fields.map((f: FieldDoc) => `${f.path}:${f.origin}`)])).toEqual([
      [CUSTOMERS, 'restore_drift', ['spec.labels:api']],
      [PRODUCTS, 'restore_drift', ['spec.labels:api']],
    ]);

    if (engine.name === 'postgres') {
      // another process applies to the store the server reads: the server's status is fresh at once
      expect((await cli(['apply', repo.repo, ...store, '--auto-approve'])).code).toBe(0);
      expect((await api('/api/gitops/status')).body).toMatchObject({ sync: 'Synced', objects: [] });
      expect((await api('/api/gitops/plan')).body.changes).toEqual([]);
      return;
    }
    await killAll(children);
    // a local apply on the store (the server is gone): its plan is the one the server showed last
    const localPlan = JSON.parse((await cli(['plan', repo.repo, ...store, '--format', 'json'])).stdout);
    expect(localPlan.fingerprint.plan).toEqual(left.fingerprint.plan);
    expect((await cli(['apply', repo.repo, ...store, '--auto-approve'])).code).toBe(0);
    const clean = await cli(['plan', repo.repo, ...store, '--detailed-exitcode']);
    expect(clean.code, clean.stdout).toBe(0);
  });
});
