import type { ApplyRecord } from '../model/index.js';
import type { Store } from '../store/store.js';

/**
 * One apply of the history as the API answers it (GET /api/gitops/history) and `dqctl history --format json`
 * prints it, locally or with --server: the same snake_case model either way.
 */
export interface ApplyHistoryEntry {
  id: number;
  applied_at: string;
  applied_by: string;
  commit: string | null;
  /** The work tree differed from `commit` (uncommitted or untracked files): what was applied is not that commit. */
  dirty: boolean;
  dirty_files: string[];
  repository: string | null;
  /** The environment (`--env`) it was applied with; null without one. */
  environment: string | null;
  plan_fingerprint: string;
  store_revision: number;
  summary: ApplyRecord['summary'];
}

export function applyHistoryEntry(record: ApplyRecord): ApplyHistoryEntry {
  return {
    id: record.id,
    applied_at: record.appliedAt,
    applied_by: record.appliedBy,
    commit: record.commit,
    dirty: record.dirtyFiles !== null && record.dirtyFiles.length > 0,
    dirty_files: record.dirtyFiles ?? [],
    repository: record.repository,
    environment: record.environment,
    plan_fingerprint: record.planFingerprint,
    store_revision: record.storeRevision,
    summary: record.summary,
  };
}

/** The most records one listing returns (the API's limit too). */
export const MAX_HISTORY_LIMIT = 1000;

/** The apply history, newest first, at most `limit` entries (`dqctl history`, GET /api/gitops/history). */
export async function readApplyHistory(store: Store, limit: number): Promise<ApplyHistoryEntry[]> {
  return (await store.history(limit)).map(applyHistoryEntry);
}
