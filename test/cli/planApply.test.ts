import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines, runCli, startCli, workspace } from '../helpers/cli.js';

const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';

describe.each(engines())('plan and apply through the real bin on $name', (engine) => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let store: string[];
  const cli = (...args: string[]) => runCli([...args], { cwd: ws.dir });

  beforeEach(async () => {
    ws = await workspace();
    store = await engine.fresh(ws.dir);
  });
  afterEach(() => ws.cleanup());
  afterAll(() => engine.teardown());

  it('round trip: plan shows everything, apply applies it, plan again shows no changes', async () => {
    const first = await cli('plan', ws.repo, ...store, '--detailed-exitcode');
    expect(first.code).toBe(2);
    expect(first.stdout).toContain('Plan: 22 to add, 0 to change, 0 to destroy.');
    expect(first.stdout).toContain('+ source "shop_oltp"');

    const apply = await cli('apply', ws.repo, ...store, '--auto-approve');
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('Apply complete! Objects: 22 added, 0 changed, 0 destroyed.');

    const again = await cli('plan', ws.repo, ...store, '--detailed-exitcode');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes. The live state matches the repository.');

    const state = await cli('state', 'list', ...store, '--format', 'json');
    const listed = JSON.parse(state.stdout);
    expect(listed.objects).toHaveLength(22);
    expect(listed.objects.every((o: { managed_by: string; owner: string }) => o.managed_by === 'git' && o.owner === 'shop')).toBe(true);
    expect(listed.objects.find((o: { name: string }) => o.name === 'analytics_dwh/staging.web events').origin.file).toBe(
      'sources/analytics_dwh/staging.web events.dqotable.yaml',
    );
  });

  it('changing one file changes exactly that object, field by field', async () => {
    await cli('apply', ws.repo, ...store, '--auto-approve');
    const file = join(ws.repo, ORDERS);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/min_count: 1\b/, 'min_count: 7'));
    const plan = await cli('plan', ws.repo, ...store, '--format', 'json');
    const doc = JSON.parse(plan.stdout);
    expect(doc.summary).toMatchObject({ add: 0, change: 1, destroy: 0 });
    expect(doc.changes).toHaveLength(1);
    expect(doc.changes[0]).toMatchObject({ kind: 'table', name: 'shop_oltp/public.orders', actions: ['update'], reason_code: 'repository_changed' });
    expect(doc.changes[0].fields).toEqual([expect.objectContaining({ before: 1, after: 7 })]);
  });

  it('deletes a table whose file left the repository, with the reason', async () => {
    await cli('apply', ws.repo, ...store, '--auto-approve');
    await rm(join(ws.repo, ORDERS));
    const plan = await cli('plan', ws.repo, ...store);
    expect(plan.stdout).toContain('# table "shop_oltp/public.orders" will be destroyed');
    expect(plan.stdout).toContain('(its file left the repository)');
    expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
  });

  it('an emptied repository deletes nothing without --allow-mass-delete', async () => {
    await cli('apply', ws.repo, ...store, '--auto-approve');
    for (const top of ['sources', 'rules', 'patterns']) await rm(join(ws.repo, top), { recursive: true });
    const plan = await cli('plan', ws.repo, ...store);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('deletes 21 of the 22 objects managed by this repository');
    const apply = await cli('apply', ws.repo, ...store, '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('--allow-mass-delete');
    const state = JSON.parse((await cli('state', 'list', ...store, '--format', 'json')).stdout);
    expect(state.objects).toHaveLength(22);
    // protected (dqctl.yaml: source:shop_oltp) survives even an allowed mass delete
    const allowed = await cli('apply', ws.repo, ...store, '--auto-approve', '--allow-mass-delete');
    expect(allowed.code).toBe(0);
    const after = JSON.parse((await cli('state', 'list', ...store, '--format', 'json')).stdout);
    expect(after.objects.map((o: { name: string }) => o.name)).toEqual(['shop_oltp']);
  });

  it('refuses to apply without confirmation when not on a terminal, and writes nothing', async () => {
    const apply = await cli('apply', ws.repo, ...store);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('--auto-approve');
    const state = JSON.parse((await cli('state', 'list', ...store, '--format', 'json')).stdout);
    expect(state.objects).toHaveLength(0);
    expect(state.store.revision).toBe(0);
  });

  it('an invalid repository is neither planned nor applied (exit 3, nothing written)', async () => {
    const file = join(ws.repo, ORDERS);
    await writeFile(file, (await readFile(file, 'utf8')).replace('min_count: 1', 'min_cont: 1'));
    const plan = await cli('plan', ws.repo, ...store);
    expect(plan.code).toBe(3);
    expect(plan.stderr).toMatch(/public\.orders\.dqotable\.yaml:\d+:\d+: error\[unknown_rule_parameter\]/);
    const apply = await cli('apply', ws.repo, ...store, '--auto-approve');
    expect(apply.code).toBe(3);
    const state = JSON.parse((await cli('state', 'list', ...store, '--format', 'json')).stdout);
    expect(state.store.revision).toBe(0);
  });

  it('applies a saved plan, and refuses it once stale (repository or store moved)', async () => {
    const planFile = join(ws.dir, 'plan.json');
    const saved = await cli('plan', ws.repo, ...store, '--out', planFile);
    expect(saved.code).toBe(0);
    const shown = await cli('show', planFile);
    expect(shown.stdout).toContain('Plan: 22 to add, 0 to change, 0 to destroy.');
    expect((await cli('show', planFile, '--format', 'markdown')).stdout).toMatch(/^### dqctl plan: 22 to add/);
    const applied = await cli('apply', planFile, ...store);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('22 added');

    // the same plan again: the store moved since it was saved
    const stale = await cli('apply', planFile, ...store);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale plan');

    // a fresh plan, then the repository changes before it is applied
    await cli('plan', ws.repo, ...store, '--out', planFile);
    await rm(join(ws.repo, 'sources/shop_oltp/public.shipments.dqotable.yaml'));
    const staleRepo = await cli('apply', planFile, ...store);
    expect(staleRepo.code).toBe(1);
    expect(staleRepo.stderr).toContain('the repository changed since the plan was saved');
  });

  it('a process killed in the middle of apply leaves the old state whole', async () => {
    await cli('apply', ws.repo, ...store, '--auto-approve');
    const before = (await cli('state', 'list', ...store, '--format', 'json')).stdout;
    await rm(join(ws.repo, ORDERS));
    const file = join(ws.repo, 'sources/shop_oltp/public.customers.dqotable.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace(/max_count: 0\b/, 'max_count: 3'));
    const killed = await runCli(['apply', ws.repo, ...store, '--auto-approve'], {
      cwd: ws.dir,
      env: { DQCTL_FAULT_INJECTION: 'kill-after-writes' },
    });
    expect(killed.code).not.toBe(0);
    const after = (await cli('state', 'list', ...store, '--format', 'json')).stdout;
    expect(after).toBe(before);
    const plan = await cli('plan', ws.repo, ...store, '--format', 'json');
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ change: 1, destroy: 1 });
  });

  it('two applies at once: the second fails after --lock-timeout, naming the first', async () => {
    const applying = startCli(['apply', ws.repo, ...store, '--auto-approve'], {
      cwd: ws.dir,
      // it pauses until let go (SIGUSR2 below), at most 60 s
      env: { DQCTL_FAULT_INJECTION: 'pause-after-writes', DQCTL_FAULT_PAUSE_MS: '60000', DQCTL_ACTOR: 'first-apply' },
    });
    const first = applying.done;
    await applying.printed('fault injection: pausing inside the apply transaction'); // it holds the lock now
    const second = await runCli(['apply', ws.repo, ...store, '--auto-approve', '--lock-timeout', '1s'], {
      cwd: ws.dir,
      env: { DQCTL_ACTOR: 'second-apply' },
    });
    applying.signal('SIGUSR2'); // let the first go on
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(engine.name === 'postgres' ? /locked by/ : /in use by another dqctl process/);
    expect(second.stderr).toContain('first-apply');
    expect(second.stderr).toMatch(/pid \d+/);
    const done = await first;
    expect(done.code).toBe(0);
  });
});
