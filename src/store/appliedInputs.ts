import type { AppliedEnvironment } from '../model/index.js';
import { isoTimestamp, type SqlQueryable } from './sql/sqlClient.js';

/**
 * What a namespace's last apply was made from (migration 0013): the digest of the repository's inputs and the
 * fingerprint of the desired state they gave, at the store revision of that apply.
 *
 * `readUnchangedSince` is the store saying "nothing changed since revision N" without loading an object: it
 * answers only when the namespace's row has this digest, the store revision is still the one that row was written
 * at (the revision moves with every write transaction: another apply, an API write, an import of tables), the
 * store's schema is the same, and so is the objects table's file (a TRUNCATE or a restore replaces it). One statement, so the row, the revision and the environment come from one snapshot.
 */
export interface UnchangedSince {
  /** The store revision of the apply that recorded the digest, which is still the store's revision. */
  revision: number;
  desiredFingerprint: string;
  /** The environment the namespace was applied with then (null: no record). */
  environment: AppliedEnvironment | null;
}

export interface AppliedInputs {
  inputDigest: string;
  desiredFingerprint: string;
}

interface Row {
  store_revision: number | string;
  desired_fingerprint: string;
  environment: string | null;
  environment_revision: number | string | null;
  applied_at: string | null;
}

export async function readUnchangedSince(sql: SqlQueryable, namespace: string, inputDigest: string): Promise<UnchangedSince | null> {
  const rows = await sql.query<Row>(
    `select i.store_revision, i.desired_fingerprint,
            e.environment, e.store_revision as environment_revision, ${isoTimestamp('e.applied_at')} as applied_at
       from dqctl.applied_inputs i
       join dqctl.store_state s on s.revision = i.store_revision
       left join dqctl.applied_environments e on e.namespace = i.namespace
      where i.namespace = $1 and i.input_digest = $2
        and i.schema_version = (select max(version) from dqctl.schema_migrations)
        and i.objects_filenode = pg_relation_filenode('dqctl.objects'::regclass)::text`,
    [namespace, inputDigest],
  );
  if (rows.length === 0) return null;
  const row = rows[0];
  return {
    revision: Number(row.store_revision),
    desiredFingerprint: row.desired_fingerprint,
    environment:
      row.environment_revision === null ? null : { environment: row.environment, storeRevision: Number(row.environment_revision), appliedAt: row.applied_at ?? '' },
  };
}

/** Written by an apply in its transaction (`revision`: that transaction's); null removes the namespace's row. */
export async function recordAppliedInputs(sql: SqlQueryable, namespace: string, inputs: AppliedInputs | null, revision: number): Promise<void> {
  if (inputs === null) {
    await sql.query('delete from dqctl.applied_inputs where namespace = $1', [namespace]);
    return;
  }
  await sql.query(
    `insert into dqctl.applied_inputs (namespace, input_digest, desired_fingerprint, store_revision, schema_version, objects_filenode, recorded_at)
     values ($1, $2, $3, $4, (select max(version) from dqctl.schema_migrations), pg_relation_filenode('dqctl.objects'::regclass)::text, now())
     on conflict (namespace) do update set input_digest = excluded.input_digest, desired_fingerprint = excluded.desired_fingerprint,
       store_revision = excluded.store_revision, schema_version = excluded.schema_version,
       objects_filenode = excluded.objects_filenode, recorded_at = excluded.recorded_at`,
    [namespace, inputs.inputDigest, inputs.desiredFingerprint, revision],
  );
}
