import { dqopsHashOf, type CheckType, type Int64 } from '../model/index.js';
import type { EffectiveGrouping } from './effectiveGrouping.js';

/**
 * The grouping key of a failed check: the connection and table always; the data group when the grouping divides
 * by data groups; then the quality dimension, check category, check type and check name as deep as the grouping
 * level goes (DQOps's order). `incidentHash` names the key: the same key always gives the same hash, so all
 * incidents of one key share it. It is DQOps's own incident hash of the key (model/dqopsHashes.ts: the parts that
 * are not null, each FarmHash-fingerprinted, combined in order), so failures of dqctl's runs join the open
 * incidents imported from DQOps (`dqctl import dqops-data`). A full 64-bit value: Int64, exact beyond 2^53.
 */
export interface FailureFields {
  connection: string;
  schema: string;
  table: string;
  dataGroup: string | null;
  qualityDimension: string | null;
  checkCategory: string | null;
  checkType: CheckType | null;
  checkName: string | null;
}

export type IncidentKey = FailureFields & { incidentHash: Int64 };

export function incidentKeyOf(failure: FailureFields, grouping: Pick<EffectiveGrouping, 'groupingLevel' | 'divideByDataGroups'>): IncidentKey {
  const key = keyFieldsOf(failure, grouping);
  const depth = depthOf(grouping);
  const components = [key.connection, key.schema, key.table, grouping.divideByDataGroups ? key.dataGroup : undefined];
  if (depth >= 1) components.push(key.qualityDimension);
  if (depth >= 2) components.push(key.checkCategory);
  if (depth >= 3) components.push(key.checkType);
  if (depth >= 4) components.push(key.checkName);
  key.incidentHash = dqopsHashOf(components) ?? 0;
  return key;
}

/** The fields of a failure that its grouping keeps (the others null); `incidentHash` not yet computed (0). */
export function keyFieldsOf(failure: FailureFields, grouping: Pick<EffectiveGrouping, 'groupingLevel' | 'divideByDataGroups'>): IncidentKey {
  const depth = depthOf(grouping);
  return {
    connection: failure.connection,
    schema: failure.schema,
    table: failure.table,
    dataGroup: grouping.divideByDataGroups ? failure.dataGroup : null,
    qualityDimension: depth >= 1 ? failure.qualityDimension : null,
    checkCategory: depth >= 2 ? failure.checkCategory : null,
    checkType: depth >= 3 ? failure.checkType : null,
    checkName: depth >= 4 ? failure.checkName : null,
    incidentHash: 0,
  };
}

function depthOf(grouping: Pick<EffectiveGrouping, 'groupingLevel'>): number {
  return ['table', 'table_dimension', 'table_dimension_category', 'table_dimension_category_type', 'table_dimension_category_name'].indexOf(grouping.groupingLevel);
}
