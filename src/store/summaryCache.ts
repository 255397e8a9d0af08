import { compareKeys, DqError, keyId, type LiveSummary } from '../model/index.js';
import { SUMMARY_COLUMNS, toLiveSummary, type SummaryRow } from './objectRows.js';
import type { SqlQueryable } from './sql/sqlClient.js';

/**
 * Every object's summary, kept between reads and brought up to date with only the rows written since.
 *
 * A reconcile pass plans twice (before and after its apply) and each plan lists all summaries: 10,000 rows,
 * about 150-200 ms a read on PGlite, most of it decoding the rows in JS. Every write sets a row's `revision` to
 * the store revision of its transaction, and revisions commit in order under the store lock, so the rows with
 * `revision > R` are exactly those written after revision R. The delta, the count of rows and the store
 * revision come from ONE statement, hence one snapshot. The whole list is read again when
 * - rows were deleted: the count is smaller than the cached keys plus the new ones (deletions are rare next to
 *   edits);
 * - the table was rewritten or replaced (TRUNCATE, a restore, VACUUM FULL: a new relfilenode), or the revision
 *   went back: what is cached may describe rows that no longer exist under the same revisions.
 */
export class SummaryCache {
  private cached: Snapshot | undefined;

  async read(sql: SqlQueryable): Promise<LiveSummary[]> {
    const cached = this.cached;
    const next = await readSince(sql, cached ?? EMPTY);
    // Rows deleted, the table rewritten or the revision gone back since the cached read: read everything again.
    this.cached = next ?? (cached ? await readSince(sql, EMPTY) : undefined);
    if (!this.cached) throw new DqError('INTERNAL', 'the object summaries of one snapshot did not add up to its count of objects');
    return [...this.cached.list];
  }
}

interface Snapshot {
  revision: number;
  /** pg_relation_filenode of dqctl.objects when read. */
  filenode: string;
  /** Sorted by compareKeys, frozen: the cache hands out the same objects to every reader. */
  list: readonly LiveSummary[];
  positions: ReadonlyMap<string, number>;
}

const EMPTY: Snapshot = { revision: -1, filenode: '', list: [], positions: new Map() };

/** The meta row's NULLs in place of the summary columns (derived, so the two halves of the union keep in step). */
const NO_SUMMARY = SUMMARY_COLUMNS.split(',').map(() => 'null').join(', ');

/** `base` brought to the store's current revision, or undefined when it cannot be (see SummaryCache). */
async function readSince(sql: SqlQueryable, base: Snapshot): Promise<Snapshot | undefined> {
  const rows = await sql.query<SummaryRow & { store_revision: number | null; total: number | null; filenode: string | null }>(
    `select ${SUMMARY_COLUMNS}, null::bigint as store_revision, null::bigint as total, null::text as filenode
       from dqctl.objects o where o.revision > $1
     union all
     select ${NO_SUMMARY},
            (select s.revision from dqctl.store_state s), (select count(*) from dqctl.objects),
            pg_relation_filenode('dqctl.objects'::regclass)::text`,
    [base.revision],
  );
  const meta = rows.find((row) => row.kind === null)!;
  const revision = Number(meta.store_revision);
  const filenode = String(meta.filenode);
  if (base !== EMPTY && (filenode !== base.filenode || revision < base.revision)) return undefined;
  if (revision === base.revision) return base;
  const list = [...base.list];
  let added = false;
  for (const row of rows) {
    if (row.kind === null) continue;
    const summary = Object.freeze(toLiveSummary(row));
    const at = base.positions.get(keyId(summary));
    if (at === undefined) {
      list.push(summary);
      added = true;
    } else {
      list[at] = summary;
    }
  }
  if (list.length !== Number(meta.total)) return undefined;
  if (!added) return { revision, filenode, list, positions: base.positions };
  list.sort(compareKeys);
  return { revision, filenode, list, positions: new Map(list.map((summary, i) => [keyId(summary), i])) };
}
