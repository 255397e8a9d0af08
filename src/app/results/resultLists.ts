import type { JsonObject } from '../../model/index.js';
import type { CheckResultRow, Store } from '../../store/store.js';
import {
  checkDisplayName,
  epochMs,
  errorsFilter,
  groupByCheck,
  listHeader,
  localDateTime,
  withoutNulls,
  type Selection,
  type Target,
} from './checkResults.js';
import type { ResultsQuery as Query } from './resultsQuery.js';

/**
 * DQOps's `check_results` and `sensor_readouts` groups: the stored results of a table's or column's checks,
 * grouped by check, newest first (at most `maxResultsPerCheck` per check, default 100; `monthStart` / `monthEnd`
 * bound the time periods). A readout is the sensor's value (actual and expected value), stored whether or not the
 * check's rules gave a verdict; a result adds the severity, exists only where they did, and shows a rule's own
 * actual value (max_failures: the failure count) where it reported one. Execution errors are served by the
 * errors group and left out here. The rule bounds of a result (warningLowerBound, …) are not stored by dqctl and
 * are left out.
 */
export type ResultListKind = 'results' | 'readouts';

async function readRows(store: Store, target: Target, selection: Selection, query: Query, kind: ResultListKind) {
  const { count, months, ...filter } = errorsFilter(target, selection, query);
  const rows = await store.checkResults({
    ...filter,
    read: kind,
    timePeriodFrom: months.from,
    timePeriodTo: months.to,
    executionErrors: 'exclude',
    newest: { of: 'rows', count },
  });
  return { rows, dataGroup: filter.dataGroup };
}

function entry(target: Target, row: CheckResultRow, kind: ResultListKind): JsonObject {
  const common = {
    id: row.dqopsId ?? String(row.id),
    actualValue: row.actualValue,
    expectedValue: row.expectedValue,
    columnName: row.columnName,
    dataGroup: row.dataGroup,
    checkName: row.checkName,
    checkDisplayName: checkDisplayName(target, row),
    checkType: row.checkType,
    durationMs: row.durationMs,
    executedAt: epochMs(row.executedAt),
    timeGradient: row.timeGradient,
    timePeriod: localDateTime(row.timePeriod),
    provider: target.provider,
    qualityDimension: row.qualityDimension,
    tableComparison: row.tableComparison,
  };
  if (kind === 'readouts') return withoutNulls(common);
  return withoutNulls({ ...common, checkHash: row.checkHash, checkCategory: row.checkCategory, sensorName: row.sensorName, severity: row.severity });
}

export async function resultLists(store: Store, target: Target, selection: Selection, query: Query, kind: ResultListKind): Promise<JsonObject[]> {
  const { rows, dataGroup } = await readRows(store, target, selection, query, kind);
  return groupByCheck(rows).map((checkRows) => {
    const { dataGroupsNames, ...header } = listHeader(target, checkRows, dataGroup);
    const entries = checkRows.map((row) => entry(target, row, kind));
    return kind === 'results'
      ? withoutNulls({ ...header, dataGroups: dataGroupsNames, checkResultEntries: entries })
      : withoutNulls({ ...header, dataGroupNames: dataGroupsNames, sensorName: checkRows[0].sensorName, sensorReadoutEntries: entries });
  });
}

