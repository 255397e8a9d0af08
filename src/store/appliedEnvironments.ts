import type { AppliedEnvironment } from '../model/index.js';
import { isoTimestamp, type SqlQueryable } from './sql/sqlClient.js';

/**
 * The environment each namespace was last applied with (migration 0008), written by an apply inside its
 * transaction, so it always describes the objects that transaction wrote.
 */
interface Row {
  environment: string | null;
  store_revision: number | string;
  applied_at: string;
}

/** Null when the namespace has no record (never applied since environments exist). */
export async function readAppliedEnvironment(sql: SqlQueryable, namespace: string): Promise<AppliedEnvironment | null> {
  const rows = await sql.query<Row>(
    `select environment, store_revision, ${isoTimestamp('applied_at')} as applied_at from dqctl.applied_environments where namespace = $1`,
    [namespace],
  );
  if (rows.length === 0) return null;
  return { environment: rows[0].environment, storeRevision: Number(rows[0].store_revision), appliedAt: rows[0].applied_at };
}

export async function recordAppliedEnvironment(sql: SqlQueryable, namespace: string, environment: string | null, revision: number): Promise<void> {
  await sql.query(
    `insert into dqctl.applied_environments (namespace, environment, store_revision, applied_at) values ($1, $2, $3, now())
     on conflict (namespace) do update set environment = excluded.environment, store_revision = excluded.store_revision, applied_at = excluded.applied_at`,
    [namespace, environment, revision],
  );
}
