import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Every (method, path) of ../shared/spec/rest-interface.md and of the compatibility page's path table, with
 * names of the examples filled in. None may answer "route not found"; what they answer otherwise is tested by
 * the route group's own tests.
 */
const CONN = '/api/connections/shop_oltp';
const SCHEMA = `${CONN}/schemas/public`;
const TABLE = `${SCHEMA}/tables/orders`;
const COLUMN = `${TABLE}/columns/status`;
const DTP = '/api/default/checks/table/Detect%20empty%20tables%20daily';
const DCP = '/api/default/checks/column/email_columns_valid';
const CQP = '/api/policies/checks/column/email_columns_valid';

const SPEC_ROUTES: Array<[method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string]> = [
  // lineage
  ['POST', `${TABLE}/lineage/sources/shop_oltp/schemas/public/tables/customers`],
  ['GET', `${TABLE}/lineage/sources/shop_oltp/schemas/public/tables/customers`],
  ['DELETE', `${TABLE}/lineage/sources/shop_oltp/schemas/public/tables/customers`],
  ['PUT', `${TABLE}/lineage/sources/shop_oltp/schemas/public/tables/customers`],
  ['GET', `${TABLE}/lineage/tree`],
  ['GET', `${TABLE}/lineage/sources`],
  ['GET', `${TABLE}/lineage/targets`],
  // overview
  ['GET', `${COLUMN}/monitoring/daily/overview`],
  ['GET', `${COLUMN}/partitioned/daily/overview`],
  ['GET', `${COLUMN}/profiling/overview`],
  ['GET', `${TABLE}/monitoring/daily/overview`],
  // connections
  ['PUT', `${CONN}/checks/daily_row_count/bulkactivate`],
  ['PUT', `${CONN}/checks/daily_row_count/bulkdeactivate`],
  ['POST', '/api/connections/another_connection'],
  ['POST', '/api/connections/another_basic/basic'],
  ['PUT', CONN],
  ['GET', `${CONN}/incidentgrouping`],
  ['GET', `${CONN}/comments`],
  ['GET', `${CONN}/commoncolumns`],
  ['GET', `${CONN}/defaultgroupingconfiguration`],
  ['GET', `${CONN}/labels`],
  ['GET', `${CONN}/schedules/partitioned_daily`],
  ['PUT', `${CONN}/autoimport`],
  ['GET', '/api/connections'],
  ['GET', CONN],
  // schemas
  ['GET', `${CONN}/schemas`],
  ['GET', `${SCHEMA}/monitoring/daily/model`],
  ['GET', `${SCHEMA}/partitioned/daily/model`],
  ['GET', `${SCHEMA}/profiling/model`],
  ['GET', `${SCHEMA}/bulkenable/monitoring/daily`],
  ['GET', `${SCHEMA}/bulkenable/partitioned/daily`],
  ['GET', `${SCHEMA}/bulkenable/profiling`],
  // tables and columns
  ['GET', `${SCHEMA}/tables`],
  ['GET', TABLE],
  ['PUT', TABLE],
  ['POST', `${SCHEMA}/tables/new_table`],
  ['GET', `${TABLE}/columns`],
  ['GET', COLUMN],
  ['PUT', COLUMN],
  ['POST', `${TABLE}/columns/new_column`],
  // jobs
  ['POST', '/api/jobs/collecterrorsamples'],
  ['POST', '/api/jobs/collectstatistics/withgrouping'],
  ['POST', '/api/jobs/collectstatistics/table'],
  ['POST', '/api/jobs/deletestoreddata'],
  ['POST', '/api/jobs/runchecks'],
  ['GET', '/api/jobs/jobs/1'],
  ['GET', '/api/jobs/jobs/1/wait?waitTimeout=0'],
  ['GET', '/api/jobs/runchecks/1/wait?waitTimeout=0'],
  ['DELETE', '/api/jobs/jobs/1'],
  // rules
  ['GET', '/api/rules'],
  ['GET', '/api/definitions/rules'],
  ['POST', '/api/rules/custom%2Fspec_rule'],
  ['PUT', '/api/rules/custom%2Fspec_rule'],
  ['GET', '/api/rules/comparison%2Fmin_count'],
  ['GET', '/api/rules/comparison/min_count'],
  ['DELETE', '/api/rules/custom%2Fspec_rule'],
  // default table check patterns
  ['GET', '/api/default/checks/table'],
  ['POST', '/api/default/checks/table/new_pattern'],
  ['POST', '/api/default/checks/table/new_target_pattern/target'],
  ['GET', `${DTP}/monitoring/daily`],
  ['PUT', `${DTP}/monitoring/daily`],
  ['PUT', `${DTP}/monitoring/monthly`],
  ['PUT', `${DTP}/partitioned/daily`],
  ['PUT', `${DTP}/partitioned/monthly`],
  ['POST', `/api/default/checks/table/copied_pattern/copyfrom/Detect%20empty%20tables%20daily`],
  ['DELETE', '/api/default/checks/table/copied_pattern'],
  // default column check patterns
  ['GET', '/api/default/checks/column'],
  ['POST', '/api/default/checks/column/new_column_pattern'],
  ['GET', DCP],
  ['PUT', DCP],
  ['POST', '/api/default/checks/column/new_column_target/target'],
  ['PUT', `${DCP}/target`],
  ['PUT', `${DCP}/monitoring/daily`],
  ['PUT', `${DCP}/monitoring/monthly`],
  ['POST', '/api/default/checks/column/copied_column/copyfrom/email_columns_valid'],
  ['DELETE', '/api/default/checks/column/copied_column'],
  // column quality policies
  ['GET', '/api/policies/checks/column'],
  ['POST', '/api/policies/checks/column/new_policy'],
  ['GET', CQP],
  ['PUT', CQP],
  ['POST', '/api/policies/checks/column/new_policy_target/target'],
  ['PUT', `${CQP}/target`],
  ['PUT', `${CQP}/monitoring/daily`],
  ['PUT', `${CQP}/monitoring/monthly`],
  ['PUT', `${CQP}/partitioned/daily`],
  ['POST', '/api/policies/checks/column/copied_policy/copyfrom/email_columns_valid'],
  ['DELETE', '/api/policies/checks/column/copied_policy'],
  // table comparison results
  ['GET', `${TABLE}/monitoring/daily/comparisons/cmp/results`],
  ['GET', `${TABLE}/partitioned/daily/comparisons/cmp/results`],
  ['GET', `${TABLE}/profiling/comparisons/cmp/results`],
  // execution errors and error samples
  ['GET', `${COLUMN}/monitoring/daily/errors`],
  ['GET', `${COLUMN}/partitioned/daily/errors`],
  ['GET', `${COLUMN}/profiling/errors`],
  ['GET', `${TABLE}/monitoring/daily/errors`],
  ['GET', `${TABLE}/partitioned/daily/errors`],
  ['GET', `${TABLE}/profiling/errors`],
  ['GET', `${COLUMN}/monitoring/daily/errorsamples`],
  ['GET', `${COLUMN}/partitioned/daily/errorsamples`],
  ['GET', `${COLUMN}/profiling/errorsamples`],
  ['GET', `${COLUMN}/profiling/errorsamples/download`],
  ['GET', `${COLUMN}/monitoring/daily/errorsamples/download`],
  ['GET', `${COLUMN}/partitioned/daily/errorsamples/download`],
  ['GET', `${TABLE}/monitoring/daily/errorsamples`],
  // last: deletes of what the rows above use
  ['DELETE', `${TABLE}/columns/new_column`],
  ['DELETE', `${SCHEMA}/tables/new_table`],
  ['DELETE', '/api/connections/another_connection'],
];

describe('every operation of the spec has a route', () => {
  let fx: StoreFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    await applyExamples(fx.store);
    app = await serverOn(fx.store);
  });
  afterAll(async () => {
    await app.close();
    await fx.dispose();
  });

  it.each(SPEC_ROUTES)('%s %s is served', async (method, url) => {
    const answer = await call(app, { method, url, payload: method === 'POST' || method === 'PUT' ? {} : undefined });
    const notRouted = answer.status === 404 && String(answer.body?.message ?? '').startsWith('route not found');
    expect(notRouted, `${method} ${url} answered ${answer.status} ${answer.raw.slice(0, 200)}`).toBe(false);
    expect(answer.status, answer.raw.slice(0, 300)).toBeLessThan(500 + (answer.body?.code === 'NOT_IMPLEMENTED' ? 2 : 0));
  });

  it('the OpenAPI document lists every route with a unique operation id', async () => {
    const doc = (await call(app, { method: 'GET', url: '/api/openapi.json' })).body;
    const operations = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((p) => Object.values(p));
    const ids = operations.map((o) => o.operationId).filter(Boolean);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations.length).toBeGreaterThan(150);
  });
});
