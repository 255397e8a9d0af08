import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResultsWithIncidents } from '../../src/incidents/index.js';
import type { PlannedCheck } from '../../src/jobs/checkRun/plannedChecks.js';
import { findPlanned, plannedChecksOf, runResults } from '../helpers/plannedResults.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The example's fact_orders compares itself with the shop's orders (`matches_shop_orders`: the table's row count
 * by order status, and gross_amount's sum against order_total). Its comparison checks are checks of the table in
 * every view: the effective checks with their newest results, the check container models (as DQOps names them),
 * a model written back, the table's status, the overview and the incidents.
 */
const TABLE = '/api/connections/analytics_dwh/schemas/mart/tables/fact_orders';
const NAME = 'analytics_dwh/mart.fact_orders';
const NOW = new Date('2026-11-20T10:00:00.000Z');

interface EffectiveRow {
  column_name: string | null;
  check_category: string;
  check_name: string;
  table_comparison: string | null;
  reference_column: string | null;
  disabled: boolean;
  latest_results: null | { severity: string | null; valid: number; warnings: number; errors: number; fatals: number; execution_errors: number; data_group: string };
}

describe('comparison checks are checks of the table', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  let planned: PlannedCheck[];

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    planned = await plannedChecksOf(fx.store, NAME);
    const earlier = '2026-11-19T10:00:00.000Z';
    const latest = '2026-11-20T10:00:00.000Z';
    const rows = [
      // an earlier run that the newest replaces in every count
      ...runResults(findPlanned(planned, null, 'daily_row_count_match'), { paid: 3, shipped: 3, cancelled: 3 }, earlier, NOW),
      ...runResults(findPlanned(planned, null, 'daily_row_count_match'), { paid: 1, shipped: 1, cancelled: 0 }, latest, NOW),
      ...runResults(findPlanned(planned, 'gross_amount', 'daily_sum_match'), { paid: 2, shipped: null }, latest, NOW),
      ...runResults(findPlanned(planned, null, 'daily_row_count'), { '': 0 }, latest, NOW),
    ];
    await recordResultsWithIncidents(fx.store, rows.slice(0, 3), { connectionSpec: () => undefined, tableSpec: () => undefined, defaultNotifications: undefined });
    await recordResultsWithIncidents(fx.store, rows.slice(3), { connectionSpec: () => undefined, tableSpec: () => undefined, defaultNotifications: undefined });
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('the runner plans the comparison checks the effective checks list, and GET effectivechecks lists them with their newest run', async () => {
    const { status, body } = await call(app, { method: 'GET', url: `${TABLE}/effectivechecks` });
    expect(status).toBe(200);
    const rows = body as EffectiveRow[];
    const comparisons = rows.filter((r) => r.table_comparison !== null);
    expect(comparisons.map((r) => `${r.column_name ?? '(table)'} ${r.check_category} ${r.table_comparison} ${r.check_name} ${r.reference_column}`).sort()).toEqual([
      '(table) comparisons matches_shop_orders daily_row_count_match null',
      'gross_amount comparisons matches_shop_orders daily_sum_match order_total',
    ]);
    // the runner runs exactly the checks listed (same check, column and comparison)
    const listed = rows.filter((r) => !r.disabled).map((r) => `${r.column_name}/${r.check_name}/${r.table_comparison}`).sort();
    expect(planned.map((c) => `${c.column}/${c.checkName}/${c.comparison?.name ?? null}`).sort()).toEqual(listed);

    const rowCount = comparisons.find((r) => r.check_name === 'daily_row_count_match')!;
    expect(rowCount.latest_results).toMatchObject({ severity: 'warning', valid: 1, warnings: 2, errors: 0, fatals: 0, execution_errors: 0 });
    const sum = comparisons.find((r) => r.check_name === 'daily_sum_match')!;
    expect(sum.latest_results).toMatchObject({ severity: 'error', valid: 0, warnings: 0, errors: 1, execution_errors: 1, data_group: 'paid' });
    expect(rows.find((r) => r.check_name === 'daily_row_count')!.latest_results).toMatchObject({ severity: 'valid', valid: 1 });
    expect(rows.find((r) => r.check_name === 'daily_duplicate_record_percent')!.latest_results).toBeNull();
  });

  it('the table and the overview count the same results: the rows of the effective checks add up to both', async () => {
    const rows = (await call(app, { method: 'GET', url: `${TABLE}/effectivechecks` })).body as EffectiveRow[];
    const total = (key: 'valid' | 'warnings' | 'errors' | 'fatals' | 'execution_errors') => rows.reduce((n, r) => n + (r.latest_results?.[key] ?? 0), 0);
    const sums = { valid: total('valid'), warnings: total('warnings'), errors: total('errors'), fatals: total('fatals'), execution_errors: total('execution_errors') };
    expect(sums).toEqual({ valid: 2, warnings: 2, errors: 1, fatals: 0, execution_errors: 1 });

    const status = (await call(app, { method: 'GET', url: `${TABLE}/status` })).body;
    expect({ valid: status.valid_results, warnings: status.warnings, errors: status.errors, fatals: status.fatals ?? 0, execution_errors: status.execution_errors }).toEqual(sums);
    expect(status.current_severity).toBe('error');

    const overview = (await call(app, { method: 'GET', url: '/api/overview' })).body;
    const worst = overview.quality.worst_tables.find((t: { table: string }) => t.table === 'fact_orders');
    expect(worst).toMatchObject({ quality_status: 'error', errors: sums.errors, warnings: sums.warnings, fatals: sums.fatals });
    expect(overview.quality.results).toEqual(sums);
  });

  it('check container models list the comparison as DQOps does, and a model written back round-trips it', async () => {
    const url = `${TABLE}/monitoring/daily/model`;
    const model = (await call(app, { method: 'GET', url })).body;
    const category = model.categories.find((c: { category: string }) => c.category === 'comparisons/matches_shop_orders');
    expect(category).toMatchObject({ comparison_name: 'matches_shop_orders' });
    expect(category.checks.find((c: { check_name: string }) => c.check_name === 'daily_row_count_match')).toMatchObject({ configured: true, default_check: false });
    expect(model.categories.map((c: { category: string }) => c.category)).not.toContain('comparisons');
    const column = (await call(app, { method: 'GET', url: `${TABLE}/columns/gross_amount/monitoring/daily/model` })).body;
    expect(column.categories.find((c: { category: string }) => c.category === 'comparisons/matches_shop_orders')).toMatchObject({
      comparison_name: 'matches_shop_orders',
      compare_to_column: 'order_total',
    });
    // the basic model leaves comparisons out, as DQOps's
    const basic = (await call(app, { method: 'GET', url: `${url}/basic` })).body;
    expect(basic.checks.some((c: { check_category: string }) => c.check_category.startsWith('comparisons'))).toBe(false);

    const before = (await fx.store.getObjects([{ kind: 'table', name: NAME }]))[0];
    for (const target of [url, `${TABLE}/columns/gross_amount/monitoring/daily/model`]) {
      const sent = (await call(app, { method: 'GET', url: target })).body;
      expect((await call(app, { method: 'PUT', url: target, payload: sent })).status).toBe(204);
    }
    expect((await fx.store.getObjects([{ kind: 'table', name: NAME }]))[0].contentHash).toBe(before.contentHash);

    const rowCount = category.checks.find((c: { check_name: string }) => c.check_name === 'daily_row_count_match');
    rowCount.rule.error.rule_parameters.find((p: { definition: { field_name: string } }) => p.definition.field_name === 'max_diff_percent').double_value = 7.5;
    expect((await call(app, { method: 'PUT', url, payload: model })).status).toBe(204);
    const container = (await call(app, { method: 'GET', url: `${TABLE}/monitoring/daily` })).body;
    expect(container.comparisons.matches_shop_orders.daily_row_count_match).toEqual({ warning: { max_diff_percent: 0 }, error: { max_diff_percent: 7.5 } });
    expect(container.volume.daily_row_count).toBeDefined();
  });

  it('the failed comparison results open the table\'s incident and are among its issues', async () => {
    const incidents = (await call(app, { method: 'GET', url: '/api/incidents/analytics_dwh' })).body as Array<{ table: string; year: number; month: number; incidentId: string }>;
    const incident = incidents.find((i) => i.table === 'fact_orders')!;
    expect(incident).toBeDefined();
    const issues = (await call(app, { method: 'GET', url: `/api/incidents/analytics_dwh/${incident.year}/${incident.month}/${incident.incidentId}/issues?pageSize=100` })).body as Array<{ checkName: string; tableComparison: string | null }>;
    const comparisonIssues = issues.filter((i) => i.tableComparison === 'matches_shop_orders').map((i) => i.checkName);
    expect(comparisonIssues).toContain('daily_row_count_match');
  });
});
