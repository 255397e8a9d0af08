import type { CheckResultInput } from '../../src/store/store.js';

/**
 * A passed daily_row_count result (10 rows) on shop's public.orders for 2026-11-20: the plain result row the
 * store, API and console tests write; each test names what it changes.
 */
export function rowCountResult(overrides: Partial<CheckResultInput> = {}): CheckResultInput {
  return {
    connectionName: 'shop',
    schemaName: 'public',
    tableName: 'orders',
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'volume',
    checkName: 'daily_row_count',
    checkHash: 1,
    timePeriod: '2026-11-20T00:00:00.000Z',
    actualValue: 10,
    severity: 0,
    ...overrides,
  };
}
