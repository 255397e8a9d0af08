import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { sensorProviders } from '../../src/model/index.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const HOME = resolve(import.meta.dirname, '../fixtures/customHome');
const TEMPLATE = 'sensors/column/custom/accepted_count/postgresql.sql.jinja2';
const SAMPLE_TEMPLATE = 'sensors/column/custom/accepted_count/postgresql.sample.sql.jinja2';

/** Custom sensors, check definitions and dictionaries are objects of the plan: add, apply, no changes, change, delete. */
describe('plan and apply of a customized home', () => {
  let fx: StoreFixture;
  let dir: string;
  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-custom-'));
    await cp(HOME, dir, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await fx?.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  const apply = async () => {
    const { plan } = await planRepository({ repository: dir, store: fx.store });
    await applyPlan(plan, fx.store, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 30_000 });
    return plan;
  };
  const changes = (plan: Awaited<ReturnType<typeof apply>>) => plan.changes.map((c) => `${c.action} ${c.key.kind}:${c.key.name}`).sort();

  it('adds each, then plans nothing; a changed template changes its sensor; a removed dictionary is deleted', async () => {
    expect(changes(await apply())).toEqual([
      'create check:column/partitioned/daily/accepted_values/paid_status_count',
      'create dictionary:statuses.csv',
      'create sensor:column/custom/accepted_count',
      'create source:shop',
      'create table:shop/public.orders',
    ]);
    const [sensor] = await fx.store.listObjects({ kind: 'sensor' });
    expect(sensorProviders(sensor.attachments).get('postgresql')).toMatchObject({ definition: { type: 'sql_template' } });
    expect(sensorProviders(sensor.attachments).get('postgresql')?.sampleTemplate).toContain('lib.render_error_sampler()');
    expect((await planRepository({ repository: dir, store: fx.store })).plan.changes).toEqual([]);

    // the error sampling template is part of the sensor: removing it updates the sensor
    await rm(join(dir, SAMPLE_TEMPLATE));
    expect(changes(await apply())).toEqual(['update sensor:column/custom/accepted_count']);
    const [withoutSample] = await fx.store.listObjects({ kind: 'sensor' });
    expect(sensorProviders(withoutSample.attachments).get('postgresql')?.sampleTemplate).toBeUndefined();

    await writeFile(join(dir, TEMPLATE), 'SELECT\n    COUNT(*) AS actual_value\nFROM {{ lib.render_target_table() }} AS analyzed_table\n');
    await rm(join(dir, 'dictionaries/statuses.csv'));
    await writeFile(join(dir, 'sources/shop/public.orders.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {}\n');
    expect(changes(await apply())).toEqual(['delete dictionary:statuses.csv', 'update sensor:column/custom/accepted_count', 'update table:shop/public.orders']);
    const [changed] = await fx.store.listObjects({ kind: 'sensor' });
    expect(sensorProviders(changed.attachments).get('postgresql')?.sqlTemplate).toContain('COUNT(*) AS actual_value');
  }, 60_000);
});
