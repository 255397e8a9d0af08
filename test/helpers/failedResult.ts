import type { CheckResultInput } from '../../src/store/store.js';

/**
 * A failed check result (an error of daily_nulls_count on shop's public.orders), the row the incident tests
 * group; each test names what it changes.
 */
export function failedResult(overrides: Partial<CheckResultInput> = {}): CheckResultInput {
  return {
    connectionName: 'shop',
    schemaName: 'public',
    tableName: 'orders',
    checkType: 'monitoring',
    timeGradient: 'day',
    checkCategory: 'nulls',
    checkName: 'daily_nulls_count',
    checkHash: 1,
    qualityDimension: 'Completeness',
    timePeriod: '2026-11-20T00:00:00.000Z',
    severity: 2,
    executedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}
