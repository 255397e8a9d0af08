import type { CheckResultInput } from '../../src/store/store.js';

/** What the result rows of the tests share: a daily monitoring check on shop's public.orders, for 2026-11-20. */
const ON_SHOP_ORDERS = {
  connectionName: 'shop',
  schemaName: 'public',
  tableName: 'orders',
  checkType: 'monitoring',
  timeGradient: 'day',
  checkHash: 1,
  timePeriod: '2026-11-20T00:00:00.000Z',
} as const;

/** A failed check result (an error of daily_nulls_count), the row the incident tests group; each test names what it changes. */
export function failedResult(overrides: Partial<CheckResultInput> = {}): CheckResultInput {
  return {
    ...ON_SHOP_ORDERS,
    checkCategory: 'nulls',
    checkName: 'daily_nulls_count',
    qualityDimension: 'Completeness',
    severity: 2,
    executedAt: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

/** A passed daily_row_count result (10 rows), the plain row the store, API and console tests write. */
export function rowCountResult(overrides: Partial<CheckResultInput> = {}): CheckResultInput {
  return { ...ON_SHOP_ORDERS, checkCategory: 'volume', checkName: 'daily_row_count', actualValue: 10, severity: 0, ...overrides };
}
