import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MARKDOWN_LIMIT } from '../../src/plan/renderMarkdown.js';
import { engines, runCli } from '../helpers/cli.js';
import { git, gitRepo, type GitRepo } from '../helpers/gitRepo.js';

const ORDERS = 'sources/shop_oltp/public.orders.dqotable.yaml';
const CUSTOMERS = 'sources/shop_oltp/public.customers.dqotable.yaml';
const SHIPMENTS = 'sources/shop_oltp/public.shipments.dqotable.yaml';
const MART_POLICY = 'patterns/mart_volume_and_schema.dqotablepattern.yaml';
const ROW_COUNT_ERROR = 'spec.monitoring_checks.daily.volume.daily_row_count.error.min_count';
/** Nothing listens there: a command that opened this store would fail. */
const NO_DATABASE = 'postgres://nobody@127.0.0.1:1/none';

async function edit(repo: string, file: string, from: string | RegExp, to: string): Promise<void> {
  const path = join(repo, file);
  const text = await readFile(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`edit: ${String(from)} not found in ${file}`);
  await writeFile(path, next);
}

/** On branch `pr`: one threshold changed, one table deleted, one policy target widened from fact_*,dim_*,daily_* to *. */
async function pullRequestBranch(r: GitRepo): Promise<void> {
  await git(r.repo, 'checkout', '-q', '-b', 'pr');
  await edit(r.repo, ORDERS, /min_count: 5000\b/, 'min_count: 7000');
  await rm(join(r.repo, SHIPMENTS));
  await edit(r.repo, MART_POLICY, 'table: "fact_*,dim_*,daily_*"', 'table: "*"');
  await r.commitAll('the pull request');
}

/** PostgreSQL, one database per test: opening it is quicker than an embedded store for every CLI call. */
const postgres = engines().find((e) => e.name === 'postgres')!;
afterAll(() => postgres.teardown());

describe('plan --git-ref', () => {
  let r: GitRepo;
  let store: string[];
  const cli = (...args: string[]) => runCli(args, { cwd: r.dir });

  beforeEach(async () => {
    r = await gitRepo();
    store = await postgres.fresh(r.dir);
  });
  afterEach(() => r.cleanup());

  it('plans the committed state of the ref, not the uncommitted edits of the working copy; the saved plan applies from a clean checkout', async () => {
    expect((await cli('apply', r.repo, ...store, '--auto-approve')).code).toBe(0);
    await edit(r.repo, ORDERS, /min_count: 5000\b/, 'min_count: 7000');
    const commit = await r.commitAll('raise the orders threshold');
    // uncommitted: an edit, a deletion and a new file
    await edit(r.repo, CUSTOMERS, /min_count: \d+/, 'min_count: 123456');
    await rm(join(r.repo, SHIPMENTS));
    await writeFile(join(r.repo, 'sources/shop_oltp/public.scratch.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {}\n');

    const fromRef = await cli('plan', '--git-ref', 'HEAD', r.repo, ...store, '--format', 'json', '--out', join(r.dir, 'plan.json'), '--detailed-exitcode');
    expect(fromRef.stderr).toBe('');
    expect(fromRef.code).toBe(2);
    const doc = JSON.parse(fromRef.stdout);
    expect(doc.repository).toEqual({ path: r.repo, commit });
    expect(doc.summary).toMatchObject({ add: 0, change: 1, destroy: 0 });
    expect(doc.changes).toHaveLength(1);
    expect(doc.changes[0]).toMatchObject({ name: 'shop_oltp/public.orders', fields: [{ path: ROW_COUNT_ERROR, before: 5000, after: 7000 }] });

    const fromFolder = await cli('plan', r.repo, ...store, '--format', 'json');
    expect(JSON.parse(fromFolder.stdout).summary).toMatchObject({ add: 1, change: 2, destroy: 1 });

    // the working copy differs from the ref: the saved plan is stale there; once it is clean, it applies
    const stale = await cli('apply', join(r.dir, 'plan.json'), ...store);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale plan');
    await git(r.repo, 'checkout', '-q', '--', '.');
    await rm(join(r.repo, 'sources/shop_oltp/public.scratch.dqotable.yaml'));
    const applied = await cli('apply', join(r.dir, 'plan.json'), ...store);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain('Apply complete! Objects: 0 added, 1 changed, 0 destroyed.');

    const previous = await cli('plan', '--git-ref', 'HEAD~1', r.repo, ...store, '--format', 'json');
    expect(JSON.parse(previous.stdout).changes).toEqual([expect.objectContaining({ name: 'shop_oltp/public.orders', fields: [{ path: ROW_COUNT_ERROR, before: 7000, after: 5000, origin: 'repository' }] })]);
  });

  it('reads a bare repository with --path, in every format, and names an unknown ref', async () => {
    const mono = await gitRepo({ subPath: 'quality/home' });
    try {
      const bare = join(r.dir, 'remote.git');
      await git(r.dir, 'clone', '-q', '--bare', mono.repo, bare);
      const text = await cli('plan', '--git-ref', 'main', '--path', 'quality/home', bare, ...store);
      expect(text.stderr).toBe('');
      expect(text.stdout).toContain('Plan: 22 to add, 0 to change, 0 to destroy.');
      const markdown = await cli('plan', '--git-ref', 'main', '--path', 'quality/home', bare, ...store, '--format', 'markdown');
      expect(markdown.stdout).toContain('### dqctl plan: 22 to add, 0 to change, 0 to destroy');

      const unknown = await cli('plan', '--git-ref', 'release-9', bare, ...store);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('unknown git ref "release-9"');
      const noPath = await cli('plan', '--git-ref', 'main', '--path', 'elsewhere', bare, ...store);
      expect(noPath.code).toBe(1);
      expect(noPath.stderr).toContain('elsewhere is not a folder at main');
    } finally {
      await mono.cleanup();
    }
  });

  it('refuses an invalid ref with exit 3 and the diagnostics, even when the working copy is valid', async () => {
    await edit(r.repo, ORDERS, /min_count: 5000\b/, 'min_cont: 5000');
    await r.commitAll('a typo');
    await git(r.repo, 'checkout', '-q', 'HEAD~1', '--', ORDERS);
    const run = await cli('plan', '--git-ref', 'HEAD', r.repo, ...store);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`${ORDERS}:`);
    expect(run.stderr).toContain('unknown_rule_parameter');
    expect((await cli('plan', r.repo, ...store)).code).toBe(0);
  });
});

describe('diff --base --head', () => {
  let r: GitRepo;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: r.dir, env });

  beforeEach(async () => {
    r = await gitRepo();
  });
  afterEach(() => r.cleanup());

  it('lists exactly the changes with field paths and the blast radius of the policy change, with no store at all', async () => {
    await pullRequestBranch(r);
    const run = await cli(['diff', '--base', 'main', '--head', 'pr', r.repo, '--format', 'json', '--no-store'], { DQCTL_DATABASE_URL: NO_DATABASE });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.base).toMatchObject({ ref: 'main', valid: true, commit: (await git(r.repo, 'rev-parse', 'main')).trim() });
    expect(doc.head).toMatchObject({ ref: 'pr', commit: (await git(r.repo, 'rev-parse', 'pr')).trim() });
    expect(doc.live).toBeNull();
    expect(doc.summary).toEqual({ added: 0, changed: 2, removed: 1, settings_changed: false, policies_changed: 1 });
    expect(doc.changes.map((c: { action: string; address: string }) => `${c.action} ${c.address}`)).toEqual([
      'changed table "shop_oltp/public.orders"',
      'removed table "shop_oltp/public.shipments"',
      'changed default_table_checks "mart_volume_and_schema"',
    ]);
    expect(doc.changes[0].fields).toEqual([{ path: ROW_COUNT_ERROR, before: 5000, after: 7000 }]);
    expect(doc.changes[1].file).toEqual({ base: SHIPMENTS, head: null });
    expect(doc.changes[2].fields).toEqual([{ path: 'spec.target.table', before: 'fact_*,dim_*,daily_*', after: '*' }]);

    // the policy reached the four gold mart tables named fact_*, dim_*, daily_*; with * it reaches the fifth
    expect(doc.blast_radius).toHaveLength(1);
    expect(doc.blast_radius[0]).toMatchObject({
      name: 'mart_volume_and_schema',
      action: 'changed',
      target: { before: { table: 'fact_*,dim_*,daily_*' }, after: { table: '*' } },
      repository: {
        before: { tables: 4, columns: null },
        after: { tables: 5, columns: null },
        tables_gained: { count: 1, first: ['analytics_dwh/mart.kundenübersicht'] },
        tables_lost: { count: 0, first: [] },
      },
      live: null,
    });
    expect(existsSync(join(r.dir, '.dqctl'))).toBe(false);

    const text = await cli(['diff', '--base', 'main', '--head', 'pr', r.repo]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`~ ${ROW_COUNT_ERROR} = 5000 -> 7000`);
    expect(text.stdout).toContain(`- table "shop_oltp/public.shipments"  # was ${SHIPMENTS}`);
    expect(text.stdout).toContain('repository: 4 -> 5 tables');
    expect(text.stdout).toContain('+ reaches 1 table: analytics_dwh/mart.kundenübersicht');
    expect(text.stdout).toContain('Diff: 0 added, 2 changed, 1 removed; 1 policy with a blast radius.');
    expect(existsSync(join(r.dir, '.dqctl'))).toBe(false);

    // a named store is opened: here it does not exist, so the same diff fails; --no-store is what kept it out
    const withStore = await cli(['diff', '--base', 'main', '--head', 'pr', r.repo], { DQCTL_DATABASE_URL: NO_DATABASE });
    expect(withStore.code).toBe(1);
    expect(withStore.stderr).toContain('127.0.0.1:1');
  });

  it('also counts the policy reach on the live store tables when a store is given', async () => {
    const store = await postgres.fresh(r.dir);
    // the live store has the base, minus one of the mart tables the policy reaches
    await rm(join(r.repo, 'sources/analytics_dwh/mart.dim_product.dqotable.yaml'));
    expect((await runCli(['apply', r.repo, ...store, '--auto-approve'], { cwd: r.dir })).code).toBe(0);
    await git(r.repo, 'checkout', '-q', '--', '.');
    await pullRequestBranch(r);
    const run = await cli(['diff', '--base', 'main', '--head', 'pr', r.repo, ...store, '--format', 'json']);
    expect(run.stderr).toBe('');
    const doc = JSON.parse(run.stdout);
    expect(doc.live).toMatchObject({ engine: 'postgres', revision: 1 });
    expect(doc.blast_radius[0].repository).toMatchObject({ before: { tables: 4 }, after: { tables: 5 } });
    expect(doc.blast_radius[0].live).toMatchObject({
      before: { tables: 3 },
      after: { tables: 4 },
      tables_gained: { count: 1, first: ['analytics_dwh/mart.kundenübersicht'] },
    });
    const markdown = await cli(['diff', '--base', 'main', '--head', 'pr', r.repo, ...store, '--format', 'markdown']);
    expect(markdown.stdout).toContain('| policy | change | repository | reaches now | no longer reaches | live store |');
    expect(markdown.stdout).toContain('| `mart_volume_and_schema` table policy | 🔄 changed | 4 → **5** tables | 1 table: `analytics_dwh/mart.kundenübersicht` | – | 3 → **4** tables |');
  });

  it('stays under the comment limit for a huge diff, counting what it leaves out', async () => {
    await git(r.repo, 'checkout', '-q', '-b', 'big');
    const folder = join(r.repo, 'sources/shop_oltp');
    await Promise.all(
      Array.from({ length: 2500 }, (_, i) =>
        writeFile(
          join(folder, `public.generated_${String(i).padStart(4, '0')}.dqotable.yaml`),
          `apiVersion: dqo/v1\nkind: table\nspec:\n  labels: [generated]\n  monitoring_checks:\n    daily:\n      volume:\n        daily_row_count:\n          warning:\n            min_count: ${i + 10}\n          error:\n            min_count: ${i + 1}\n`,
        ),
      ),
    );
    await edit(r.repo, 'patterns/Detect empty tables daily.dqotablepattern.yaml', 'connection: "*"', 'connection: "shop_oltp"');
    await r.commitAll('2,500 new tables');
    const run = await cli(['diff', '--base', 'main', '--head', 'big', r.repo, '--format', 'markdown']);
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(out.startsWith('### dqctl diff: 2500 added, 1 changed, 0 removed')).toBe(true);
    expect(out).toMatch(/…and \d+ more change\(s\) not listed\./);
    expect(out).toMatch(/_Details of \d+ more object\(s\) left out to stay under 60,000 characters/);
    // the catch-all policy reached the 12 tables of the base; narrowed to shop_oltp it reaches its 6 + 2,500 new ones
    expect(out).toContain('| `Detect empty tables daily` table policy | 🔄 changed | 12 → **2506** tables | 2500 tables: `shop_oltp/public.generated_0000`');
    expect(out).toContain('+2495 more');
    expect(out).toContain('6 tables: `analytics_dwh/mart.daily_revenue`');
  });

  it('refuses an invalid head with exit 3 and its diagnostics, and compares an invalid base by its valid part', async () => {
    await git(r.repo, 'checkout', '-q', '-b', 'broken');
    await edit(r.repo, ORDERS, /min_count: 5000\b/, 'min_cont: 5000');
    await r.commitAll('a typo');

    const invalidHead = await cli(['diff', '--base', 'main', '--head', 'broken', r.repo]);
    expect(invalidHead.code).toBe(3);
    expect(invalidHead.stderr).toContain(`${ORDERS}:`);
    expect(invalidHead.stderr).toContain('unknown_rule_parameter');
    expect(invalidHead.stderr).toContain('Error: the head broken has 1 validation error; nothing was compared');
    const markdown = await cli(['diff', '--base', 'main', '--head', 'broken', r.repo, '--format', 'markdown']);
    expect(markdown.code).toBe(3);
    expect(markdown.stdout).toContain('### dqctl diff: `broken` does not validate (1 error)');
    expect(markdown.stdout).toMatch(new RegExp(`- \`${ORDERS.replace(/\./g, '\\.')}:\\d+:\\d+\` \\*\\*unknown_rule_parameter\\*\\*`));
    const json = await cli(['diff', '--base', 'main', '--head', 'broken', r.repo, '--format', 'json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, error_count: 1 });

    // the fix lands on top: base (broken) is compared by its valid files, with a warning
    await edit(r.repo, ORDERS, /min_cont: 5000\b/, 'min_count: 6000');
    await r.commitAll('fixed');
    const fromBroken = await cli(['diff', '--base', 'broken~1', '--head', 'broken', r.repo, '--format', 'json']);
    expect(fromBroken.code).toBe(0);
    expect(fromBroken.stderr).toContain('Warning: the base broken~1 has 1 validation error');
    const doc = JSON.parse(fromBroken.stdout);
    expect(doc.base).toMatchObject({ valid: false, error_count: 1 });
    expect(doc.changes.map((c: { action: string; name: string }) => `${c.action} ${c.name}`)).toEqual(['added shop_oltp/public.orders']);
  });

  it('shows nothing between equal trees, reads a sub-path, and names an unknown ref', async () => {
    const mono = await gitRepo({ subPath: 'dq' });
    try {
      await mkdir(join(mono.repo, 'docs'));
      await writeFile(join(mono.repo, 'docs/readme.md'), 'not configuration\n');
      await mono.commitAll('docs only');
      const same = await runCli(['diff', '--base', 'HEAD~1', '--path', 'dq', mono.repo], { cwd: mono.dir });
      expect(same.code).toBe(0);
      expect(same.stdout).toContain('No changes: base and head hold the same objects.');
      const unknown = await runCli(['diff', '--base', 'origin/main', mono.repo], { cwd: mono.dir });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('unknown git ref "origin/main"');
    } finally {
      await mono.cleanup();
    }
  });
});
