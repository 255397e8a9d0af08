import { compareKeys, keyId, type LiveObject, type LiveSummary, type ObjectKey, type ObjectKind } from '../model/index.js';
import { OBJECT_COLUMNS, SUMMARY_COLUMNS, toLiveObject, toLiveSummary, type ObjectRow, type SummaryRow } from './objectRows.js';
import type { SqlQueryable } from './sql/sqlClient.js';

/**
 * The read side of the store, the same for a plain connection and inside the locked transaction.
 * Results are sorted with `compareKeys` in JS rather than by SQL collation, so both engines (and every
 * database collation) return the order the diff expects.
 */
export async function readRevision(sql: SqlQueryable): Promise<number> {
  const rows = await sql.query<{ revision: number }>('select revision from dqctl.store_state');
  return rows[0]?.revision ?? 0;
}

export async function listSummaries(sql: SqlQueryable, filter: { kind?: ObjectKind } = {}): Promise<LiveSummary[]> {
  const rows = await sql.query<SummaryRow>(
    `select ${SUMMARY_COLUMNS} from dqctl.objects o where ($1::text is null or o.kind = $1)`,
    [filter.kind ?? null],
  );
  return rows.map(toLiveSummary).sort(compareKeys);
}

export interface ObjectFilter {
  kind?: ObjectKind;
  /** Only names starting with this text (e.g. `conn/schema.` for the tables of a schema). */
  namePrefix?: string;
}

export async function listObjects(sql: SqlQueryable, filter: ObjectFilter = {}): Promise<LiveObject[]> {
  // A prefix is a range on the primary key (kind, name): `name >= prefix and name < prefix + U+FFFF`, compared
  // byte-wise (collate "C") so the index serves it whatever the database collation.
  const rows = await sql.query<ObjectRow>(
    `select ${OBJECT_COLUMNS} from dqctl.objects o
      where ($1::text is null or o.kind = $1)
        and ($2::text is null or (o.name collate "C" >= $2 and o.name collate "C" < $2 || chr(1114111) and starts_with(o.name, $2)))`,
    [filter.kind ?? null, filter.namePrefix ?? null],
  );
  return rows.map(toLiveObject).sort(compareKeys);
}

/**
 * The names of the objects of a kind (under a name prefix) whose spec says `disabled: true`, sorted: what a list
 * that leaves disabled objects out (DQOps's table lists) needs, without sending every spec over the wire.
 */
export async function listDisabledNames(sql: SqlQueryable, filter: { kind: ObjectKind; namePrefix?: string }): Promise<string[]> {
  const rows = await sql.query<{ name: string }>(
    `select o.name from dqctl.objects o
      where o.kind = $1
        and ($2::text is null or (o.name collate "C" >= $2 and o.name collate "C" < $2 || chr(1114111) and starts_with(o.name, $2)))
        and o.spec -> 'disabled' = 'true'::jsonb`,
    [filter.kind, filter.namePrefix ?? null],
  );
  return rows.map((row) => row.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export async function getObjects(sql: SqlQueryable, keys: ObjectKey[]): Promise<LiveObject[]> {
  const unique = [...new Map(keys.map((key) => [keyId(key), { kind: key.kind, name: key.name }])).values()];
  if (unique.length === 0) return [];
  const rows = await sql.query<ObjectRow>(
    `select ${OBJECT_COLUMNS}
       from jsonb_to_recordset($1::text::jsonb) as k(kind text, name text)
       join dqctl.objects o on o.kind = k.kind and o.name = k.name`,
    [JSON.stringify(unique)],
  );
  return rows.map(toLiveObject).sort(compareKeys);
}
