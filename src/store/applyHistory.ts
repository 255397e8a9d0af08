import type { ApplyRecord, ApplyRecordInput } from '../model/index.js';
import { isoTimestamp, type SqlQueryable } from './sql/sqlClient.js';

/** The audit trail: one record per apply, written inside the apply's transaction so it commits with it. */
const HISTORY_COLUMNS = `id, applied_by, ${isoTimestamp('applied_at')} as applied_at, commit, dirty_files, repository,
  environment, plan_fingerprint, summary, store_revision`;

interface HistoryRow {
  id: number;
  applied_by: string;
  applied_at: string;
  commit: string | null;
  dirty_files: string[] | string | null;
  repository: string | null;
  environment: string | null;
  plan_fingerprint: string;
  summary: ApplyRecord['summary'];
  store_revision: number;
}

export async function recordApply(sql: SqlQueryable, record: ApplyRecordInput, revision: number): Promise<ApplyRecord> {
  const rows = await sql.query<HistoryRow>(
    `insert into dqctl.apply_history (applied_by, commit, repository, plan_fingerprint, summary, store_revision, dirty_files, environment)
     values ($1, $2, $3, $4, $5::text::jsonb, $6, $7::text::jsonb, $8)
     returning ${HISTORY_COLUMNS}`,
    [
      record.appliedBy,
      record.commit,
      record.repository,
      record.planFingerprint,
      JSON.stringify(record.summary),
      revision,
      record.dirtyFiles && record.dirtyFiles.length > 0 ? JSON.stringify(record.dirtyFiles) : null,
      record.environment ?? null,
    ],
  );
  return toApplyRecord(rows[0]);
}

/** Newest first; 50 records unless told otherwise. */
export async function listHistory(sql: SqlQueryable, limit = 50): Promise<ApplyRecord[]> {
  const rows = await sql.query<HistoryRow>(
    `select ${HISTORY_COLUMNS} from dqctl.apply_history order by id desc limit $1`,
    [limit],
  );
  return rows.map(toApplyRecord);
}

function toApplyRecord(row: HistoryRow): ApplyRecord {
  return {
    id: row.id,
    appliedAt: row.applied_at,
    appliedBy: row.applied_by,
    commit: row.commit,
    dirtyFiles: typeof row.dirty_files === 'string' ? (JSON.parse(row.dirty_files) as string[]) : row.dirty_files,
    repository: row.repository,
    environment: row.environment,
    planFingerprint: row.plan_fingerprint,
    summary: row.summary,
    storeRevision: row.store_revision,
  };
}
