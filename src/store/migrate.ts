import { DqError } from '../model/index.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';
import { MIGRATION_LOCK_KEY, type SqlClient } from './sql/sqlClient.js';

/**
 * Brings the `dqctl` schema up to this version at open: one transaction under a transaction-level advisory
 * lock, so two processes opening a fresh database at once run each migration exactly once. A store that has
 * run a migration this version does not know was written by a newer dqctl: STORE_INCOMPATIBLE, touching
 * nothing. Returns the versions applied now (empty when the store was up to date).
 *
 * The usual open finds the schema current: that is one statement (the applied versions, read without a
 * transaction or the lock) instead of the five round trips of the locked check. The read is safe without the
 * lock: a migration's versions are committed with its DDL in one transaction, so seeing every version means the
 * schema they describe is there; anything else (a table not there yet, a version missing or unknown) takes the
 * locked path, which decides under the lock as before.
 */
export async function migrate(client: SqlClient, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied = await appliedVersions(client);
  if (applied !== undefined && isCurrent(applied, migrations)) return [];
  return migrateLocked(client, migrations);
}

/** The versions recorded in dqctl.schema_migrations; undefined when the table (or the schema) does not exist yet. */
async function appliedVersions(client: SqlClient): Promise<number[] | undefined> {
  try {
    return (await client.query<{ version: number }>('select version from dqctl.schema_migrations')).map((row) => row.version);
  } catch (error) {
    // 42P01 undefined_table (also when the schema dqctl is missing): a database dqctl has not opened yet
    if ((error as { code?: unknown }).code === '42P01') return undefined;
    throw error;
  }
}

/** Exactly the known migrations are applied: nothing to run, nothing unknown to refuse. */
function isCurrent(applied: readonly number[], migrations: readonly Migration[]): boolean {
  const known = new Set(migrations.map((migration) => migration.version));
  return applied.length === known.size && applied.every((version) => known.has(version));
}

async function migrateLocked(client: SqlClient, migrations: readonly Migration[]): Promise<number[]> {
  const session = await client.session();
  let broken = false;
  try {
    return await session.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1, $2)', [MIGRATION_LOCK_KEY.namespace, MIGRATION_LOCK_KEY.id]);
      const [{ present }] = await tx.query<{ present: boolean }>(
        `select to_regclass('dqctl.schema_migrations') is not null as present`,
      );
      if (!present) {
        await tx.exec(`
          create schema if not exists dqctl;
          create table dqctl.schema_migrations (
            version    integer     primary key,
            name       text        not null,
            applied_at timestamptz not null default now()
          );`);
      }
      const applied = new Set(
        (await tx.query<{ version: number }>('select version from dqctl.schema_migrations')).map((row) => row.version),
      );
      const known = new Set(migrations.map((migration) => migration.version));
      const unknown = [...applied].filter((version) => !known.has(version)).sort((a, b) => a - b);
      if (unknown.length > 0) {
        throw new DqError(
          'STORE_INCOMPATIBLE',
          `the store ${client.description} was migrated by a newer dqctl (migration ${unknown.join(', ')} is unknown ` +
            `to this version, which knows up to ${Math.max(0, ...known)}); upgrade dqctl`,
          { unknownMigrations: unknown },
        );
      }
      const ran: number[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        await tx.exec(migration.sql);
        await tx.query('insert into dqctl.schema_migrations (version, name) values ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        ran.push(migration.version);
      }
      return ran;
    });
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    await session.release(broken);
  }
}
