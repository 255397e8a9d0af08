import type { JsonObject, LiveObject, ObjectContent, LiveSummary, ManagedBy, ObjectKind } from '../model/index.js';
import { isoTimestamp } from './sql/sqlClient.js';

/**
 * How `dqctl.objects` rows map to model values, in one place: the summary columns deliberately leave out
 * `spec` and `attachments` so that listing 10,000 objects never reads (or detoasts) their JSON.
 */
export const SUMMARY_COLUMNS = `o.kind, o.name, o.content_hash, o.applied_hash, o.managed_by, o.owner,
  o.origin_file, o.origin_commit, o.revision`;

export const OBJECT_COLUMNS = `${SUMMARY_COLUMNS}, o.spec, o.attachments, o.applied_content,
  ${isoTimestamp('o.created_at')} as created_at, ${isoTimestamp('o.updated_at')} as updated_at`;

export interface SummaryRow {
  kind: string;
  name: string;
  content_hash: string;
  applied_hash: string | null;
  managed_by: string;
  owner: string;
  origin_file: string | null;
  origin_commit: string | null;
  revision: number;
}

export interface ObjectRow extends SummaryRow {
  spec: JsonObject;
  attachments: JsonObject;
  applied_content: ObjectContent | null;
  created_at: string;
  updated_at: string;
}

export function toLiveSummary(row: SummaryRow): LiveSummary {
  return {
    kind: row.kind as ObjectKind,
    name: row.name,
    contentHash: row.content_hash,
    appliedHash: row.applied_hash,
    managedBy: row.managed_by as ManagedBy,
    owner: row.owner,
    originFile: row.origin_file,
    originCommit: row.origin_commit,
    revision: row.revision,
  };
}

export function toLiveObject(row: ObjectRow): LiveObject {
  return {
    ...toLiveSummary(row),
    spec: row.spec,
    attachments: row.attachments,
    applied: row.applied_content ?? (row.content_hash === row.applied_hash ? { spec: row.spec, attachments: row.attachments } : null),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
