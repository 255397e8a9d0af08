import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCheckCatalog } from '../../src/catalog/index.js';
import { apiSchemas } from '../../src/server/apiSchemas.js';
import { applyExamples, call, serverOn } from '../helpers/server.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Schema-level check operations on the examples: the check configuration model (the EFFECTIVE checks of every
 * table and column of a schema: their own and the matching policies') and the check templates for bulk enable.
 */
const ajv = new Ajv({ strict: false, allErrors: true });
for (const schema of apiSchemas()) ajv.addSchema(schema);
function expectValid(model: string, body: unknown[]): void {
  const validate = ajv.getSchema(model)!;
  for (const item of body) {
    const ok = validate(item);
    expect(ok ? [] : validate.errors, `${model}: ${JSON.stringify(item).slice(0, 300)}`).toEqual([]);
  }
}

const SCHEMA = '/api/connections/shop_oltp/schemas/public';
const OLTP_TABLES = ['customers', 'order_items', 'orders', 'payments', 'products', 'shipments'];

/** The value of a rule parameter in a RuleParametersModel, whatever its type field. */
function ruleValue(rule: any, field: string): unknown {
  const found = rule.rule_parameters.find((p: any) => p.definition.field_name === field);
  if (!found) return undefined;
  const key = Object.keys(found).find((k) => k.endsWith('_value'));
  return key ? found[key] : undefined;
}

const where = (r: any) => `${r.table_name}${r.column_name === null ? '' : `.${r.column_name}`}/${r.category_name}/${r.check_name}`;

describe('schema-level check model and templates', () => {
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

  const get = (url: string) => call(app, { method: 'GET', url });

  describe('model', () => {
    it('lists the configured checks of the table files and those of the matching policies', async () => {
      const { status, body } = await get(`${SCHEMA}/monitoring/daily/model?check_configured=true&limit=100000`);
      expect(status).toBe(200);
      expectValid('CheckConfigurationModel', body);
      const places = body.map(where);
      // "Detect empty tables daily" gives every table daily_row_count; a table file's own one wins
      const rowCounts = body.filter((r: any) => r.column_name === null && r.check_name === 'daily_row_count');
      expect(rowCounts.map((r: any) => r.table_name)).toEqual(OLTP_TABLES);
      for (const row of rowCounts) {
        expect(row).toMatchObject({ connection_name: 'shop_oltp', schema_name: 'public', check_target: 'table', check_type: 'monitoring', check_time_scale: 'daily', category_name: 'volume', configured: true, disabled: false });
      }
      const rowCountOf = (table: string) => rowCounts.find((r: any) => r.table_name === table);
      expect(ruleValue(rowCountOf('orders').error, 'min_count')).toBe(5000);
      expect(ruleValue(rowCountOf('products').error, 'min_count')).toBe(1);
      expect(rowCountOf('products').warning.configured).toBe(false);
      // critical tables of priority <= 2 get the schema drift policy's checks
      expect(places).toEqual(expect.arrayContaining(['orders/availability/daily_table_availability', 'customers/availability/daily_table_availability']));
      // column policies: integer *_id columns, e-mail columns
      expect(places).toEqual(expect.arrayContaining(['order_items.order_id/nulls/daily_nulls_count', 'customers.email/patterns/daily_invalid_email_format_percent']));
      // a check only in a table file
      expect(places).toContain('orders/custom_sql/daily_sql_condition_failed_on_table');
      const sql = body.find((r: any) => where(r) === 'orders/custom_sql/daily_sql_condition_failed_on_table');
      expect(sql.sensor_parameters.find((p: any) => p.definition.field_name === 'sql_condition').string_value).toContain('paid_at IS NOT NULL');
      // only configured checks, every one configured
      expect(body.every((r: any) => r.configured)).toBe(true);
    });

    it('lists unconfigured catalog checks too, up to the default limit of 1000', async () => {
      const { body } = await get(`${SCHEMA}/monitoring/daily/model`);
      expect(body).toHaveLength(1000);
      expect(body.some((r: any) => !r.configured)).toBe(true);
      const configured = await get(`${SCHEMA}/monitoring/daily/model?checkConfigured=false&limit=5`);
      expect(configured.body).toHaveLength(5);
      expect(configured.body.every((r: any) => !r.configured)).toBe(true);
    });

    it('filters by table, column, data type, target, category, check name, enabled and limit in both spellings', async () => {
      const rows = async (query: string) => {
        const { status, body } = await get(`${SCHEMA}/monitoring/daily/model?check_configured=true&limit=100000&${query}`);
        expect(status, query).toBe(200);
        return body.map(where);
      };
      expect(await rows('table_name_pattern=orders&check_target=table&check_category=volume')).toEqual(['orders/volume/daily_row_count', 'orders/volume/daily_row_count_anomaly']);
      expect(await rows('tableNamePattern=order*&checkTarget=table&checkName=daily_row_count')).toEqual(['order_items/volume/daily_row_count', 'orders/volume/daily_row_count']);
      expect(await rows('check_name=daily_row_count')).toEqual(OLTP_TABLES.map((t) => `${t}/volume/daily_row_count`));
      expect(await rows('table_name_pattern=customers&column_name_pattern=email')).toEqual([
        'customers.email/patterns/daily_invalid_email_format_found',
        'customers.email/patterns/daily_invalid_email_format_percent',
        'customers.email/uniqueness/daily_duplicate_count',
        'customers.email/whitespace/daily_text_surrounded_by_whitespace_found',
      ]);
      const ids = await rows('columnDataType=bigint&checkCategory=nulls');
      expect(ids.length).toBeGreaterThan(3);
      expect(ids.every((p: string) => /\.[a-z_]*_id\/nulls\/daily_nulls_count$/.test(p))).toBe(true);
      expect(await rows('check_target=column&table_name_pattern=orders&check_name=daily_row_count')).toEqual([]);
      const enabled = await get(`${SCHEMA}/monitoring/daily/model?check_enabled=true&limit=100000`);
      expect(enabled.body.length).toBeGreaterThan(0);
      expect(enabled.body.every((r: any) => r.configured && !r.disabled)).toBe(true);
      const limited = await get(`${SCHEMA}/monitoring/daily/model?check_configured=true&limit=3`);
      expect(limited.body.map(where)).toEqual((await rows('')).slice(0, 3));
    });

    it('serves profiling and partitioned models: policy profiling checks, partitioned checks of partitioned tables', async () => {
      const profiling = await get(`${SCHEMA}/profiling/model?check_configured=true&check_name=profile_row_count`);
      expect(profiling.status).toBe(200);
      expectValid('CheckConfigurationModel', profiling.body);
      expect(profiling.body.map((r: any) => r.table_name)).toEqual(OLTP_TABLES);
      expect(profiling.body[0]).toMatchObject({ check_type: 'profiling' });
      expect(profiling.body[0]).not.toHaveProperty('check_time_scale');
      const partitioned = await get(`${SCHEMA}/partitioned/daily/model?checkConfigured=true&limit=100000`);
      expect(partitioned.body.map(where)).toEqual(expect.arrayContaining(['orders/volume/daily_partition_row_count', 'orders.order_total/numeric/daily_partition_number_below_min_value']));
      const monthly = await get(`${SCHEMA}/monitoring/monthly/model?check_configured=true`);
      expect(monthly.status).toBe(200);
      expect(monthly.body.every((r: any) => r.check_time_scale === 'monthly')).toBe(true);
    });
  });

  describe('templates', () => {
    const catalog = getCheckCatalog();
    const catalogNames = (target: 'table' | 'column', checkType: 'profiling' | 'monitoring' | 'partitioned', timeScale: 'daily' | 'monthly' | null, category?: string) =>
      catalog
        .checksIn({ target, checkType, timeScale })
        .filter((c) => c.category !== 'comparisons' && (category === undefined || c.category === category))
        .map((c) => c.checkName)
        .sort();

    it('lists the catalog checks of the container as templates, filtered by target, category and name', async () => {
      const { status, body } = await get(`${SCHEMA}/bulkenable/monitoring/daily?check_target=table&check_category=volume`);
      expect(status).toBe(200);
      expectValid('CheckTemplate', body);
      expect(body.map((t: any) => t.check_name).sort()).toEqual(catalogNames('table', 'monitoring', 'daily', 'volume'));
      const rowCount = body.find((t: any) => t.check_name === 'daily_row_count');
      expect(rowCount).toMatchObject({
        check_target: 'table',
        check_category: 'volume',
        check_container_type: { check_type: 'monitoring', check_time_scale: 'daily' },
        sensor_name: expect.stringContaining('row_count'),
        check_model: expect.objectContaining({ check_name: 'daily_row_count', configured: false }),
      });
      expect(rowCount.rule_parameters_definitions.map((d: any) => d.field_name)).toContain('min_count');

      const columns = await get(`${SCHEMA}/bulkenable/partitioned/monthly?checkTarget=column&checkCategory=nulls`);
      expect(columns.body.map((t: any) => t.check_name).sort()).toEqual(catalogNames('column', 'partitioned', 'monthly', 'nulls'));
      expect(columns.body.every((t: any) => t.check_name.startsWith('monthly_partition_'))).toBe(true);
      const named = await get(`${SCHEMA}/bulkenable/profiling?checkName=profile_row_count`);
      expect(named.body.map((t: any) => [t.check_target, t.check_name, t.check_container_type.check_time_scale])).toEqual([['table', 'profile_row_count', undefined]]);
      const all = await get(`${SCHEMA}/bulkenable/profiling`);
      expect(all.body).toHaveLength(catalogNames('table', 'profiling', null).length + catalogNames('column', 'profiling', null).length);
      expect(all.body[0].check_target).toBe('table');
    });
  });

  describe('errors of the request', () => {
    it('answers 404 for an unknown connection or schema', async () => {
      for (const suffix of ['profiling/model', 'monitoring/daily/model', 'bulkenable/profiling', 'bulkenable/partitioned/daily']) {
        const connection = await get(`/api/connections/nope/schemas/public/${suffix}`);
        expect(connection.status, suffix).toBe(404);
        expect(connection.body.message).toContain('connection "nope"');
        const schema = await get(`/api/connections/shop_oltp/schemas/nope/${suffix}`);
        expect(schema.status, suffix).toBe(404);
        expect(schema.body.message).toContain('schema "nope"');
      }
    });

    it('answers 400 for hostile names, unknown time scales and wrong query types', async () => {
      for (const url of [
        '/api/connections/..%2Fx/schemas/public/profiling/model',
        '/api/connections/shop_oltp/schemas/a%00b/profiling/model',
        `/api/connections/shop_oltp/schemas/${'s'.repeat(1100)}/bulkenable/profiling`,
      ]) {
        const response = await get(url);
        expect(response.status, url).toBe(400);
        expect(response.body.code).toBe('INVALID_ARGUMENT');
      }
      for (const url of [
        `${SCHEMA}/monitoring/weekly/model`,
        `${SCHEMA}/bulkenable/partitioned/hourly`,
        `${SCHEMA}/profiling/model?check_target=view`,
        `${SCHEMA}/profiling/model?limit=0`,
        `${SCHEMA}/profiling/model?limit=many`,
        `${SCHEMA}/profiling/model?check_enabled=maybe`,
        `${SCHEMA}/bulkenable/profiling?checkTarget=view`,
      ]) {
        const response = await get(url);
        expect(response.status, url).toBe(400);
        expect(response.body.code).toBe('BODY_INVALID');
      }
      const disagree = await get(`${SCHEMA}/profiling/model?check_name=a&checkName=b`);
      expect(disagree.status).toBe(400);
      expect(disagree.body.code).toBe('INVALID_ARGUMENT');
    });
  });
});
