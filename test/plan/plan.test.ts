import { describe, expect, it } from 'vitest';
import { diff, keysNeedingDetail, type DiffOptions } from '../../src/diff/diff.js';
import { keyId, type DesiredObject, type LiveObject } from '../../src/model/index.js';
import { buildPlan, planEnvironment, type PlanContext } from '../../src/plan/plan.js';
import { parsePlanDocument, toPlanDocument } from '../../src/plan/planDocument.js';
import { renderPlanMarkdown, MARKDOWN_LIMIT } from '../../src/plan/renderMarkdown.js';
import { NO_CHANGES, renderPlanText } from '../../src/plan/renderText.js';
import { applyOutcomeJsonChunks, planDocumentChunks, planJsonChunks, type ApplyResult } from '../../src/app/planRendering.js';
import { desired, drifted, live } from '../helpers/objects.js';

const diffOptions: DiffOptions = { namespace: 'default', protectedPatterns: [], pruneUnmanaged: false, keepDrift: false };

function plan(d: DesiredObject[], l: LiveObject[], context: Partial<PlanContext> = {}) {
  const needed = new Set(keysNeedingDetail(d, l, diffOptions).map(keyId));
  const result = diff(d, l, new Map(l.filter((x) => needed.has(keyId(x))).map((x) => [keyId(x), x])), diffOptions);
  return buildPlan(result, {
    repository: { description: 'examples/shop', commit: '0123456789abcdef0123' },
    store: { engine: 'pglite', description: 'pglite:.dqctl/pglite', revision: 7 },
    namespace: 'default',
    desiredFingerprint: 'f'.repeat(64),
    managedCount: l.filter((x) => x.managedBy === 'git').length,
    options: { pruneUnmanaged: false, keepDrift: false, allowMassDelete: false, massDeleteThreshold: 0.5 },
    environment: planEnvironment(null, null),
    createdAt: '2026-11-21T12:00:00.000Z',
    ...context,
  });
}

const source = { provider_type: 'postgresql', postgresql: { host: 'db', port: 5432, user: 'dq', password: '${PG_PASSWORD}' } };

describe('buildPlan', () => {
  it('renders the Terraform-style golden plan', async () => {
    const p = plan(
      [
        desired('source', 'shop', { ...source, postgresql: { ...source.postgresql, password: 'hunter2' } }),
        desired('table', 'shop/public.orders', {
          monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 5 } } } } },
        }),
        desired('default_table_checks', 'Detect empty tables', { target: { table: '*' } }),
      ],
      [
        live('source', 'shop', source),
        live('table', 'shop/public.orders', { monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } } }),
        live('rule', 'custom/old', { type: 'python' }),
        live('table', 'shop/public.api_made', {}, { managedBy: 'api', appliedHash: null }),
      ],
      { managedCount: 10 },
    );
    expect(p.summary).toEqual({ add: 1, change: 2, destroy: 1 });
    const text = renderPlanText(toPlanDocument(p));
    expect(text).not.toContain('hunter2');
    expect(text).toContain('(sensitive)');
    expect(text).toContain('Plan: 1 to add, 2 to change, 1 to destroy.');
    await expect(text).toMatchFileSnapshot('golden/plan.txt');
  });

  it('says there is nothing to do', () => {
    const p = plan([desired('source', 'shop', source)], [live('source', 'shop', source)]);
    expect(renderPlanText(toPlanDocument(p))).toContain(NO_CHANGES);
    expect(p.changes).toEqual([]);
  });

  it('refuses to delete everything, or more than half, without allowMassDelete', () => {
    const lives = ['a', 'b', 'c', 'd'].map((n) => live('rule', `r/${n}`, {}));
    const all = plan([], lives);
    expect(all.findings).toEqual([expect.objectContaining({ code: 'MASS_DELETE', severity: 'error' })]);
    expect(all.findings[0].message).toContain('ALL 4');
    const three = plan([desired('rule', 'r/a', {})], lives);
    expect(three.findings.map((f) => f.code)).toEqual(['MASS_DELETE']);
    const two = plan([desired('rule', 'r/a', {}), desired('rule', 'r/b', {})], lives);
    expect(two.findings).toEqual([]);
    const allowed = plan([], lives, { options: { pruneUnmanaged: false, keepDrift: false, allowMassDelete: true, massDeleteThreshold: 0.5 } });
    expect(allowed.findings).toEqual([]);
  });

  it('lists drift in its own section', () => {
    const base = live('source', 'shop', source);
    const p = plan([desired('source', 'shop', source)], [drifted(base, { ...source, parallel_jobs_limit: 9 })]);
    const text = renderPlanText(toPlanDocument(p));
    expect(text).toContain('Objects changed outside git since the last apply:');
    expect(text).toContain('spec.parallel_jobs_limit: 9 (live) vs null (repository)');
  });

  it('round-trips through the JSON document and refuses other formats', () => {
    const p = plan([desired('source', 'shop', source)], []);
    const doc = toPlanDocument(p);
    expect(doc).toMatchObject({ format_version: '1.0', changes: [{ actions: ['create'], before: null }], fingerprint: { live_revision: 7 } });
    expect(parsePlanDocument(JSON.stringify(doc), 'p.json')).toEqual(doc);
    expect(() => parsePlanDocument('{"format_version":"9.0"}', 'p.json')).toThrow(/format 9.0/);
    expect(() => parsePlanDocument('nope', 'p.json')).toThrow(/not a JSON plan/);
  });

  it('keeps the markdown under the limit however large the plan, with counts of what was left out', () => {
    const many = Array.from({ length: 3000 }, (_, i) =>
      desired('table', `shop/public.t${i}`, { columns: { id: { profiling_checks: { nulls: { profile_nulls_count: { error: { max_count: i } } } } } } }),
    );
    const md = renderPlanMarkdown(toPlanDocument(plan(many, [])));
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(md.startsWith('### dqctl plan: 3000 to add, 0 to change, 0 to destroy')).toBe(true);
    expect(md).toMatch(/and \d+ more change\(s\) not listed/);
    expect(md).toMatch(/Details of \d+ more object\(s\) left out/);
  });
});

describe('the environment of a plan', () => {
  it('is a switch only when the store recorded another environment (none recorded: any environment is taken)', () => {
    expect(planEnvironment('dev', 'prod').switching).toBe(true);
    expect(planEnvironment(null, 'prod').switching).toBe(true);
    expect(planEnvironment('prod', 'prod').switching).toBe(false);
    expect(planEnvironment('prod', null).switching).toBe(false);
    expect(planEnvironment(null, null).switching).toBe(false);
  });

  it('a switch is said at the top of the text, before any change, and once; a plan without environments says nothing', () => {
    const d = [desired('table', 'c/s.t', { priority: 2 })];
    const l = [live('table', 'c/s.t', { priority: 1 })];
    const switching = toPlanDocument(plan(d, l, { environment: planEnvironment('dev', 'prod') }));
    expect(switching.environment).toEqual({ name: 'dev', live: 'prod', switching: true });
    expect(switching.findings.map((f) => [f.code, f.severity])).toEqual([['ENVIRONMENT_SWITCH', 'warning']]);
    const text = renderPlanText(switching);
    const lines = text.split('\n');
    expect(lines[2]).toBe('Environment: dev (the live store was applied with prod)');
    expect(lines[4]).toBe(
      'Warning: the live store was applied with the environment prod (namespace default); this plan is for the environment dev: apply refuses it without --switch-env',
    );
    expect(text.split('the live store was applied with the environment prod')).toHaveLength(2);
    expect(text.indexOf('Warning:')).toBeLessThan(text.indexOf('will be updated'));
    const plain = renderPlanText(toPlanDocument(plan(d, l)));
    expect(plain).not.toContain('Environment:');
    // a plan saved before environments existed reads as one without
    const old = toPlanDocument(plan(d, l)) as Partial<ReturnType<typeof toPlanDocument>>;
    delete old.environment;
    expect(parsePlanDocument(JSON.stringify(old), 'old.json').environment).toEqual({ name: null, live: null, switching: false });
  });
});

describe('who changed each field, as every renderer says it', () => {
  const applied = { labels: ['core'], monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 1000 } } } } } };
  const base = live('table', 'shop/public.customers', applied);
  const apiChanged = drifted(base, { ...applied, labels: ['core', 'from-api'] });
  const repository = desired('table', 'shop/public.customers', {
    ...applied,
    monitoring_checks: { daily: { volume: { daily_row_count: { warning: { min_count: 25000 } } } } },
  });

  it('the golden text plan marks the API change and credits the commit to the repository', async () => {
    const text = renderPlanText(toPlanDocument(plan([repository], [apiChanged])));
    expect(text).toContain('~ spec.monitoring_checks.daily.volume.daily_row_count.warning.min_count = 1000 -> 25000\n');
    expect(text).toContain('~ spec.labels = ["core","from-api"] -> ["core"]  # changed outside git; restored');
    // the drift section lists the API's field only
    expect(text).toMatch(/changed through the API; apply restores the repository version\n {6}spec\.labels: \["core","from-api"\] \(live\) vs \["core"\] \(repository\)\n\n/);
    await expect(text).toMatchFileSnapshot('golden/plan-origins.txt');
  });

  it('the JSON plan gives each field its origin, and the markdown says the same', () => {
    const doc = toPlanDocument(plan([repository], [apiChanged]));
    expect(doc.changes[0].fields.map((f) => [f.path, f.origin])).toEqual([
      ['spec.labels', 'api'],
      ['spec.monitoring_checks.daily.volume.daily_row_count.warning.min_count', 'repository'],
    ]);
    expect(doc.drift[0].fields.map((f) => f.path)).toEqual(['spec.labels']);
    const markdown = renderPlanMarkdown(doc);
    expect(markdown).toContain('! spec.labels = ["core","from-api"] -> ["core"]  # changed outside git; restored');
    expect(markdown).toContain('`spec.labels`');
  });
});

describe('a plan written in pieces', () => {
  // 1,500 creates (with a secret and unicode), updates and a delete: more lines than one piece of the text holds
  const many = (): ReturnType<typeof plan> =>
    plan(
      [
        desired('source', 'shop', { ...source, postgresql: { ...source.postgresql, password: 'hunter2' } }),
        ...Array.from({ length: 1_500 }, (_, i) =>
          desired('table', `shop/public.t${i}`, { columns: { 'naïve "name"\n': { labels: [`ünïcode ${i}`] } }, monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: i } } } } } }),
        ),
      ],
      [live('source', 'shop', source), live('rule', 'custom/old', { type: 'python' })],
      { managedCount: 10 },
    );

  it('the JSON pieces make JSON.stringify(doc, null, 2) exactly, with and without changes', () => {
    for (const p of [many(), plan([desired('source', 'shop', source)], [live('source', 'shop', source)])]) {
      const doc = toPlanDocument(p);
      const pieces = [...planJsonChunks(doc)];
      expect(pieces.join('')).toBe(JSON.stringify(doc, null, 2) + '\n');
      expect(JSON.parse(pieces.join(''))).toEqual(JSON.parse(JSON.stringify(doc)));
    }
  });

  it("apply's JSON answer in pieces is JSON.stringify({ plan, applied }, null, 2) exactly, applied or not", () => {
    const doc = toPlanDocument(many());
    const applied = { storeRevision: 8, applied: { add: 1500, change: 1, destroy: 1 }, note: 'ünïcode "quoted"\n' } as unknown as ApplyResult;
    for (const outcome of [{ plan: doc, applied }, { plan: doc, applied: null }]) {
      expect([...applyOutcomeJsonChunks(outcome)].join('')).toBe(JSON.stringify(outcome, null, 2) + '\n');
    }
  });

  it('the text pieces make renderPlanText exactly, none of them the whole text', () => {
    const doc = toPlanDocument(many());
    const pieces = [...planDocumentChunks(doc, 'text')];
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join('')).toBe(renderPlanText(doc));
    expect(pieces.join('')).not.toContain('hunter2');
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(renderPlanText(doc).length / 2);
    const empty = toPlanDocument(plan([desired('source', 'shop', source)], [live('source', 'shop', source)]));
    expect([...planDocumentChunks(empty, 'text')].join('')).toBe(renderPlanText(empty));
  });

  it("a create's after and a delete's before are read when asked, the same each time, redacted, and can be replaced", () => {
    const doc = toPlanDocument(many());
    const create = doc.changes.find((c) => c.address === 'table "shop/public.t7"')!;
    const deleted = doc.changes.find((c) => c.actions[0] === 'delete')!;
    expect(Object.keys(create)).toEqual(['address', 'kind', 'name', 'actions', 'reason', 'reason_code', 'file', 'before', 'after', 'fields']);
    expect(Object.keys(deleted)).toEqual(Object.keys(create));
    expect(create.after).toEqual(create.after);
    expect(create.after).not.toBe(create.after); // computed per read, not kept
    expect(create.after).toEqual({ spec: expect.objectContaining({ monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 7 } } } } } }) });
    expect(deleted).toMatchObject({ before: { spec: { type: 'python' } }, after: null });
    create.after = null;
    expect(create.after).toBeNull();
  });
});
