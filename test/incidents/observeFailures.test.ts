import { describe, expect, it } from 'vitest';
import { toSeverityNumber, type Int64 } from '../../src/model/index.js';
import { effectiveGrouping, INCIDENT_GROUPING_LEVELS, type EffectiveGrouping } from '../../src/incidents/effectiveGrouping.js';
import { incidentKeyOf, observeFailures } from '../../src/incidents/index.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { failedResult } from '../helpers/checkResults.js';

/**
 * observeFailures makes each grouping key once (not once per failed row); what it answers must be what the key
 * of every row, computed on its own, says: the same observations (keys, counts, first/last seen, severity).
 */
const row = failedResult;

/** The observations computed the slow, obvious way: every row's key on its own. */
function naive(rows: CheckResultInput[], grouping: EffectiveGrouping) {
  const byHash = new Map<Int64, { hash: Int64; count: number; firstSeen: string; lastSeen: string; highestSeverity: number }>();
  for (const r of rows) {
    if (!r.severity || r.severity < grouping.minimumSeverity) continue;
    const key = incidentKeyOf(
      {
        connection: r.connectionName,
        schema: r.schemaName,
        table: r.tableName,
        dataGroup: r.dataGroup ?? 'all data',
        qualityDimension: r.qualityDimension ?? null,
        checkCategory: r.checkCategory,
        checkType: r.checkType,
        checkName: r.checkName,
      },
      grouping,
    );
    const o = byHash.get(key.incidentHash);
    const at = r.executedAt!;
    if (!o) byHash.set(key.incidentHash, { hash: key.incidentHash, count: 1, firstSeen: at, lastSeen: at, highestSeverity: r.severity });
    else {
      o.count++;
      if (at < o.firstSeen) o.firstSeen = at;
      if (at > o.lastSeen) o.lastSeen = at;
      o.highestSeverity = Math.max(o.highestSeverity, r.severity);
    }
  }
  return [...byHash.values()].sort((a, b) => (BigInt(a.hash) < BigInt(b.hash) ? -1 : 1));
}

describe('observeFailures', () => {
  // rows that would fool a cache keyed too loosely: one check hash reused by another check name, by another
  // table and by another dimension; data groups shared across checks; a null dimension; rows out of order
  const rows: CheckResultInput[] = [];
  for (let g = 0; g < 6; g++) {
    for (let c = 1; c <= 5; c++) {
      const dataGroup = g === 5 ? undefined : `group ${g % 3}`;
      const at = `2026-11-2${g}T1${c}:00:00.000Z`;
      rows.push(row({ checkHash: c, columnName: `c${c}`, dataGroup, executedAt: at, severity: toSeverityNumber(1 + ((g + c) % 3)) }));
      rows.push(row({ checkHash: c, checkName: 'daily_nulls_percent', dataGroup, executedAt: at }));
      rows.push(row({ checkHash: c, tableName: 'customers', dataGroup, executedAt: at, severity: 3 }));
      rows.push(row({ checkHash: c, qualityDimension: c % 2 ? null : 'Validity', checkCategory: 'pii', dataGroup, executedAt: at }));
      rows.push(row({ checkHash: c, checkType: 'partitioned', dataGroup, executedAt: at, severity: g === 0 ? 0 : null }));
    }
  }
  rows.reverse();

  for (const level of INCIDENT_GROUPING_LEVELS) {
    for (const divide of [false, true]) {
      it(`keys every row as incidentKeyOf does: ${level}${divide ? ', by data group' : ''}`, () => {
        const grouping = effectiveGrouping({ incident_grouping: { grouping_level: level, divide_by_data_groups: divide, minimum_severity: 'warning' } }, undefined);
        // one settings object for both tables, as a caller may pass: the table must still tell keys apart
        const settings = { grouping, tablePriority: null };
        const observed = observeFailures(rows, () => settings)
          .map((o) => ({ hash: o.key.incidentHash, count: o.count, firstSeen: o.firstSeen, lastSeen: o.lastSeen, highestSeverity: o.highestSeverity }))
          .sort((a, b) => (BigInt(a.hash) < BigInt(b.hash) ? -1 : 1));
        expect(observed).toEqual(naive(rows, grouping));
        expect(observed.length).toBeGreaterThan(1);
      });
    }
  }

  it('keeps each key with its own fields', () => {
    const grouping = effectiveGrouping({ incident_grouping: { grouping_level: 'table_dimension_category_name', divide_by_data_groups: true } }, undefined);
    const observed = observeFailures(rows, () => ({ grouping, tablePriority: null }));
    for (const o of observed) expect(incidentKeyOf(o.key, grouping)).toEqual(o.key);
  });
});
