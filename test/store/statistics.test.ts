import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StatisticsInput } from '../../src/store/statistics.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const row = (overrides: Partial<StatisticsInput> = {}): StatisticsInput => ({
  connectionName: 'shop',
  schemaName: 'Sales "EU"',
  tableName: 'order lines.2024',
  columnName: 'Ünit Price',
  collectorCategory: 'nulls',
  collectorName: 'nulls_count',
  resultDouble: 2,
  collectedAt: '2026-01-01T10:00:00.000Z',
  durationMs: 12,
  ...overrides,
});

describe.each(STORE_ENGINES)('statistics rows on $engine', ({ setup }) => {
  let fx: StoreFixture;
  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(() => fx.dispose());
  beforeEach(() => fx.reset());

  it('stores doubles, texts and json, and reads back the newest collection of each collector with all its data groups', async () => {
    const older = '2026-01-01T10:00:00.000Z';
    const newer = '2026-01-02T10:00:00.000Z';
    expect(
      await fx.store.insertStatistics([
        row({ collectedAt: older, resultDouble: 5 }),
        row({ collectedAt: older, columnName: null, collectorCategory: 'volume', collectorName: 'row_count', resultDouble: 6 }),
        row({ collectedAt: newer, resultDouble: 2, dataGroup: 'EU-W' }),
        row({ collectedAt: newer, resultDouble: 0, dataGroup: 'EU-E' }),
        row({ collectedAt: newer, collectorCategory: 'range', collectorName: 'max_value', resultDouble: 20, resultText: '20.00' }),
        row({ collectedAt: newer, collectorCategory: 'sampling', collectorName: 'top_values', resultDouble: null, resultJson: [{ value: "it's; \"quoted\"", count: 2 }] }),
        row({ collectedAt: newer, tableName: 'other', columnName: 'x', resultDouble: null, errorMessage: 'connection "shop": the table does not exist' }),
      ]),
    ).toBe(7);
    const latest = await fx.store.latestStatistics({ connectionName: 'shop', schemaName: 'Sales "EU"', tableName: 'order lines.2024' });
    expect(latest.map((r) => [r.columnName, r.collectorName, r.dataGroup, r.resultDouble, r.resultText, r.resultJson, r.collectedAt])).toEqual([
      [null, 'row_count', 'all data', 6, null, null, older],
      ['Ünit Price', 'max_value', 'all data', 20, '20.00', null, newer],
      ['Ünit Price', 'nulls_count', 'EU-E', 0, null, null, newer],
      ['Ünit Price', 'nulls_count', 'EU-W', 2, null, null, newer],
      ['Ünit Price', 'top_values', 'all data', null, null, [{ value: "it's; \"quoted\"", count: 2 }], newer],
    ]);
    expect(latest[0]).toMatchObject({ connectionName: 'shop', collectorCategory: 'volume', durationMs: 12, errorMessage: null });

    const errors = await fx.store.latestStatistics({ connectionName: 'shop', tableName: 'other' });
    expect(errors).toEqual([expect.objectContaining({ columnName: 'x', resultDouble: null, errorMessage: 'connection "shop": the table does not exist' })]);
    expect(await fx.store.latestStatistics({ connectionName: 'shop', columnName: null })).toHaveLength(1);
    expect(await fx.store.latestStatistics({ connectionName: 'shop', columnName: 'Ünit Price', collectorCategory: 'nulls' })).toHaveLength(2);
    expect(await fx.store.latestStatistics({ connectionName: 'nope' })).toEqual([]);
  });

  it('refuses a non-finite double; an insert is all or nothing', async () => {
    await expect(fx.store.insertStatistics([row(), row({ resultDouble: Number.NaN })])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await fx.store.latestStatistics({ connectionName: 'shop' })).toEqual([]);
  });

  it('delete stored data removes statistics by connection, table pattern and columns when asked', async () => {
    await fx.store.insertStatistics([
      row(),
      row({ columnName: null, collectorName: 'row_count', collectorCategory: 'volume' }),
      row({ tableName: 'customers' }),
      row({ connectionName: 'other' }),
    ]);
    const none = await fx.store.deleteStoredData({ connection: 'shop', checkResults: true, errors: true, errorSamples: true });
    expect(none.statistics).toBe(0);
    const columnOnly = await fx.store.deleteStoredData({ connection: 'shop', fullTableName: 'Sales "EU".order*', columnNames: ['Ünit Price'], checkResults: false, errors: false, errorSamples: false, statistics: true });
    expect(columnOnly.statistics).toBe(1);
    const rest = await fx.store.deleteStoredData({ connection: 'shop', checkResults: false, errors: false, errorSamples: false, statistics: true });
    expect(rest.statistics).toBe(2);
    expect((await fx.store.latestStatistics({ connectionName: 'other' })).length).toBe(1);
  });
});
