import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { exampleCopy, waitFor } from '../reconcile/helpers.js';
import { getJson, serve } from './reconcileSupport.js';

/** The real bin: `dqctl serve --repo` (plan only) serves the console at / and what its plan and overview pages read. */
describe('dqctl serve --repo: the console and the routes it reads', () => {
  let database: TestDatabase;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let child: ChildProcess | undefined;
  let url: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    repo = await exampleCopy('dqctl-console-serve-');
    const server = await serve(['--repo', repo.dir, '--database', database.url, '--interval', '2s'], repo.dir);
    child = server.child;
    url = server.url;
    await waitFor(async () => (await getJson(`${url}/api/gitops/status`)).body.last_pass !== null, 30_000, 'the first pass');
  }, 180_000);
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await database?.drop();
    await repo?.cleanup();
  });

  it('serves the console page with its CSP, the pending plan as text and the overview with the loop', async () => {
    const page = await fetch(`${url}/plan`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await page.text()).toMatch(/<script type="module"[^>]* src="\/assets\/[^"]+\.js"><\/script>/);

    const plan = await fetch(`${url}/api/gitops/plan?format=text`);
    expect(plan.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await plan.text();
    expect(text).toMatch(/^ {2}\+ table "shop_oltp\/public\.customers"$/m);
    expect(text).toMatch(/^Plan: 22 to add, 0 to change, 0 to destroy\.$/m);

    const overview = (await getJson(`${url}/api/overview`)).body;
    expect(overview.sync).toMatchObject({ sync: 'OutOfSync', loop: true, repository: { type: 'folder', location: repo.dir }, last_applied: null });
    expect(overview.sync.counts.Missing).toBe(22);
    expect(overview.objects.total).toBe(0);
  });
});
