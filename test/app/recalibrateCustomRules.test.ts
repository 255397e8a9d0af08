import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recalibrateIncidentChecks } from '../../src/app/recalibrateIncidentChecks.js';
import { recordResultsWithIncidents } from '../../src/incidents/index.js';
import { LiveObjects } from '../../src/inspect/liveObjects.js';
import { checkHashOf } from '../../src/jobs/checkRun/plannedChecks.js';
import type { JsonObject } from '../../src/model/index.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * Recalibrating the checks of an incident on a table whose checks use custom rules, found as a check run finds
 * them: a built-in check whose rule a custom rule file replaces is loosened as the built-in rule (its thresholds
 * are the built-in parameters, as DQOps's typed parameters are); a custom check is left as it is, whatever its
 * rule (DQOps's CustomRuleParametersSpec loosens nothing), instead of failing the request.
 */
const TABLE = 'src/shop.sales';
const rowCount = (ruleName: string, thresholds: JsonObject): JsonObject => ({ sensor_name: 'table/volume/row_count', rule_name: ruleName, ...thresholds });
const SPEC: JsonObject = {
  monitoring_checks: {
    daily: {
      volume: {
        daily_row_count: { error: { min_count: 100 } },
        custom_checks: {
          in_band: rowCount('myrules/band', { error: { min_value: 100 } }),
          enough: rowCount('comparison/min_count', { error: { min_count: 100 } }),
        },
      },
    },
  },
};

describe('recalibrate with custom rules', () => {
  let fx: StoreFixture;
  let objects: LiveObjects;

  beforeAll(async () => {
    fx = await STORE_ENGINES[0].setup();
    objects = new LiveObjects(fx.store, { revisionCheckMs: 0 });
    await objects.create('source', 'src', { provider_type: 'postgresql', postgresql: { host: '127.0.0.1', database: 'nowhere' } }, { caller: 'test' });
    const rule = (name: string) => objects.create('rule', name, { type: 'python', mode: 'current_value' }, { caller: 'test' }, { python_module: "def evaluate_rule(p):\n    return {'passed': False}\n" });
    await rule('comparison/min_count');
    await rule('myrules/band');
    await objects.create('table', TABLE, SPEC, { caller: 'test' });
  }, 60_000);
  afterAll(async () => {
    await fx?.dispose();
  });

  it('loosens the built-in check whose rule a custom file replaces, and leaves the custom checks as they are', async () => {
    const today = `${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`;
    const failed = (checkName: string): CheckResultInput => ({
      connectionName: 'src',
      schemaName: 'shop',
      tableName: 'sales',
      checkType: 'monitoring',
      timeGradient: 'day',
      checkCategory: 'volume',
      checkName,
      checkHash: checkHashOf(TABLE, null, 'monitoring', 'daily', checkName),
      qualityDimension: 'Completeness',
      timePeriod: today,
      actualValue: 40,
      severity: 2,
      executedAt: new Date().toISOString(),
    });
    await recordResultsWithIncidents(fx.store, ['daily_row_count', 'in_band', 'enough'].map(failed), {
      connectionSpec: () => ({ incident_grouping: { grouping_level: 'table' } }),
      tableSpec: () => undefined,
      defaultNotifications: undefined,
    });
    const [incident] = await fx.store.incidents.list({ connection: 'src' });
    expect(incident).toBeDefined();

    const outcome = await recalibrateIncidentChecks({ store: fx.store, objects }, incident, 'test');
    expect(outcome.map((c) => [c.checkName, c.loosened]).sort()).toEqual([
      ['daily_row_count', ['error']],
      ['enough', []],
      ['in_band', []],
    ]);
    const spec = (await objects.get('table', TABLE))!.spec as any;
    // min_count 100, 40 seen: 30 % lower (DQOps's rule for min_count)
    expect(spec.monitoring_checks.daily.volume.daily_row_count).toEqual({ error: { min_count: 70 } });
    expect(spec.monitoring_checks.daily.volume.custom_checks).toEqual((SPEC as any).monitoring_checks.daily.volume.custom_checks);
  });
});
