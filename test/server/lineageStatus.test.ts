import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeverityNumber } from '../../src/model/index.js';
import type { CheckResultInput } from '../../src/store/readResults.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const result = (table: string, checkHash: number, severity: SeverityNumber | null, executedAt: string): CheckResultInput => ({
  connectionName: 'shop_oltp',
  schemaName: 'public',
  tableName: table,
  checkType: 'monitoring',
  timeGradient: 'day',
  checkCategory: 'volume',
  checkName: `check_${checkHash}`,
  checkHash,
  timePeriod: '2026-11-20T00:00:00.000Z',
  actualValue: 1,
  severity,
  ...(severity === null ? { errorMessage: 'sensor failed' } : {}),
  executedAt,
});

describe('lineage tree carries the quality status of each table', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
    await fx.store.insertCheckResults([
      // an older run of orders with a fatal: only the newest run counts as current
      result('orders', 1, 3, '2026-11-19T08:00:00.000Z'),
      result('orders', 1, 0, '2026-11-20T08:00:00.000Z'),
      result('orders', 2, 2, '2026-11-20T08:00:00.000Z'),
      result('order_items', 3, 1, '2026-11-20T09:00:00.000Z'),
      result('order_items', 4, null, '2026-11-20T09:00:00.000Z'),
    ]);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it('statuses per table, null without results, and the worst upstream combined', async () => {
    const tree = (await call(app, { method: 'GET', url: '/api/connections/analytics_dwh/schemas/mart/tables/fact_orders/lineage/tree' })).body;
    const flow = (source: string) => tree.flows.find((f: { source_table: { physical_table_name: { table_name: string } } }) => f.source_table.physical_table_name.table_name === source);
    expect(flow('orders').source_table_quality_status).toMatchObject({ current_severity: 'error', valid_results: 1, errors: 1, fatals: 0, executed_checks: 2 });
    expect(flow('order_items').source_table_quality_status).toMatchObject({ current_severity: 'warning', warnings: 1, execution_errors: 1 });
    expect(flow('orders').target_table_quality_status).toBeUndefined();
    expect(tree.relative_table_cumulative_quality_status).toMatchObject({ current_severity: 'error', errors: 1, warnings: 1, execution_errors: 1 });
  });
});
