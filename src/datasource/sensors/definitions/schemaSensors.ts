/**
 * Schema sensors and table availability: read from the system catalog (pg_catalog), not from the rows, in one
 * small query per table. Hashes are the first 52 bits of a SHA-256 of the listed names and types, so they are
 * exact in a double; a change of the value means the schema changed.
 */
import { createHash } from 'node:crypto';
import type { SensorDefinition, TableMetadata } from '../sensorDefinition.js';

export function hashOf(parts: readonly string[]): number {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest();
  return Number(digest.readBigUInt64BE(0) >> 12n);
}

function columnType(metadata: TableMetadata, column: string | undefined): string | undefined {
  const found = metadata.columns.find((c) => c.name === column);
  return found === undefined ? undefined : `${found.type}${found.nullable ? '' : ' not null'}`;
}

export const SCHEMA_SENSORS: Record<string, SensorDefinition> = {
  'table/schema/column_count': {
    kind: 'metadata',
    needsColumn: false,
    meaning: 'Columns of the table (pg_attribute, dropped columns excluded).',
    compute: (metadata) => metadata.columns.length,
  },
  'table/schema/column_list_ordered_hash': {
    kind: 'metadata',
    needsColumn: false,
    meaning: 'Hash of the column names in their order.',
    compute: (metadata) => hashOf(metadata.columns.map((c) => c.name)),
  },
  'table/schema/column_list_unordered_hash': {
    kind: 'metadata',
    needsColumn: false,
    meaning: 'Hash of the sorted column names (a reorder does not change it).',
    compute: (metadata) => hashOf(metadata.columns.map((c) => c.name).sort()),
  },
  'table/schema/column_types_hash': {
    kind: 'metadata',
    needsColumn: false,
    meaning: 'Hash of the sorted `name type [not null]` of every column.',
    compute: (metadata) => hashOf(metadata.columns.map((c) => `${c.name} ${columnType(metadata, c.name)!}`).sort()),
  },
  'column/schema/column_exists': {
    kind: 'metadata',
    needsColumn: true,
    meaning: '1 when the column exists, 0 when it does not.',
    compute: (metadata, column) => (metadata.columns.some((c) => c.name === column) ? 1 : 0),
  },
  'column/schema/column_type_hash': {
    kind: 'metadata',
    needsColumn: true,
    meaning: 'Hash of the column\'s `type [not null]` (format_type); NULL when the column does not exist.',
    compute: (metadata, column) => {
      const type = columnType(metadata, column);
      return type === undefined ? null : hashOf([type]);
    },
  },
  'table/availability/table_availability': {
    kind: 'availability',
    needsColumn: false,
    meaning: 'Failures of a probe reading one row of the table: 0 when it answers, 1 when the query fails (the error is the readout, not an execution error).',
  },
};
