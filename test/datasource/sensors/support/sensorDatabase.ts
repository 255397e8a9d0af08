/**
 * A test data source for sensor tests: a private database (createTestDatabase), a plain pg Client, and
 * `measure`, which plans a request, runs every query as the check runner will (one read-only transaction per
 * query, the query object passed as it is) and returns the readouts of all sensors.
 */
import pg from 'pg';
import { planSensorQueries, type SensorQuery, type SensorReadout, type SensorReadouts, type TableQueryRequest } from '../../../../src/datasource/sensors/index.js';
import { createTestDatabase, type TestDatabase } from '../../../helpers/testDatabase.js';

export interface SensorDatabase {
  client: pg.Client;
  database: TestDatabase;
  /** Runs one query in a read-only transaction; a failure of the query is thrown (after rollback). */
  run(query: SensorQuery): Promise<SensorReadouts>;
  /** Plans and runs a request; throws when a sensor is rejected (tests expect every sensor to be built). */
  measure(request: TableQueryRequest): Promise<{ readouts: SensorReadouts; queries: SensorQuery[] }>;
  close(): Promise<void>;
}

export async function openSensorDatabase(seed: string): Promise<SensorDatabase> {
  const database = await createTestDatabase();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query("set time zone 'UTC'");
  await client.query(seed);
  const run = async (query: SensorQuery): Promise<SensorReadouts> => {
    await client.query('begin read only');
    try {
      const result = await client.query(query);
      await client.query('commit');
      return query.parse(result.rows as Record<string, unknown>[]);
    } catch (error) {
      await client.query('rollback');
      if (query.parseError) return query.parseError(error);
      throw error;
    }
  };
  return {
    client,
    database,
    run,
    async measure(request) {
      const plan = planSensorQueries(request);
      if (plan.rejected.length > 0) throw new Error(`rejected: ${JSON.stringify(plan.rejected)}`);
      const readouts: SensorReadouts = new Map();
      for (const query of plan.queries) {
        for (const [id, values] of await run(query)) readouts.set(id, values);
      }
      return { readouts, queries: plan.queries };
    },
    async close() {
      await client.end();
      await database.drop();
    },
  };
}

/** The one readout of an ungrouped, unpartitioned sensor. */
export function single(readouts: SensorReadouts, id: string): SensorReadout {
  const values = readouts.get(id);
  if (values === undefined || values.length !== 1) throw new Error(`expected one readout of ${id}, got ${JSON.stringify(values)}`);
  return values[0]!;
}

/** Rounds to 9 decimals so exact expectations survive float noise (`100 * 1 / 3`). */
export function rounded(value: number | null | undefined): number | null {
  return value === null || value === undefined ? null : Math.round(value * 1e9) / 1e9;
}
