import { fingerprintLong, hierarchyHash, packedLocalDateTime, uuidOfLongs } from '../model/index.js';
import type { DqopsRow } from '../store/index.js';

/**
 * The identity DQOps gives a readout or check result, for a row of dqctl's own run that goes out in an export:
 * the hashes of the connection, table, column and check (each the hash of its node's path in DQOps's metadata
 * tree: `connections/<connection>/spec`, `…/tables/<schema.table>/spec`, `…/columns/<column>`, then the check's
 * container, time scale, category and name), and, for a row of no data grouping (`all data`: data group hash 0),
 * its time series id and row id as DQOps makes them from those hashes and the time period. A row of a data group
 * keeps a digest id: its data group hash needs each grouping level's value and source, which dqctl does not keep.
 * Facts read in DQOps's source (its hierarchy ids and row-id normalization); no code copied.
 */
export function ownCheckRowIdentity(row: DqopsRow): DqopsRow | undefined {
  const { connection_name: connection, schema_name: schema, table_name: table, check_type: checkType, time_gradient: gradient } = row;
  const { check_category: category, check_name: checkName, time_period: timePeriod } = row;
  if (!connection || !checkType || !category || !checkName || !timePeriod) return undefined;
  const tablePath = ['connections', connection, 'tables', `${schema || 'default'}.${table || 'default'}`, 'spec'];
  const targetPath = row.column_name ? [...tablePath, 'columns', row.column_name] : tablePath;
  const container = `${checkType}_checks`;
  const scale = checkType === 'profiling' ? [] : gradient === 'month' ? ['monthly'] : gradient === 'day' ? ['daily'] : undefined;
  if (!scale) return undefined;
  const checkPath = row.table_comparison
    ? [...targetPath, container, ...scale, 'comparisons', row.table_comparison, checkName]
    : [...targetPath, container, ...scale, category, checkName];
  const connectionHash = hierarchyHash(['connections', connection, 'spec']);
  const tableHash = hierarchyHash(tablePath);
  const columnHash = row.column_name ? hierarchyHash(targetPath) : 0n;
  const checkHash = hierarchyHash(checkPath);
  const identity: DqopsRow = {
    connection_hash: connectionHash.toString(),
    table_hash: tableHash.toString(),
    column_hash: row.column_name ? columnHash.toString() : null,
    check_hash: checkHash.toString(),
  };
  if ((row.data_group_name ?? 'all data') !== 'all data') return identity;
  const dataGroupHash = 0n;
  const period = fingerprintLong(packedLocalDateTime(timePeriod));
  identity.data_group_hash = '0';
  identity.time_series_id = uuidOfLongs(checkHash, dataGroupHash ^ tableHash ^ columnHash);
  identity.id = uuidOfLongs(checkHash ^ period, dataGroupHash ^ tableHash ^ columnHash ^ ~period);
  return identity;
}
