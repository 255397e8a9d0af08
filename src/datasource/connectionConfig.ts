import type pg from 'pg';
import { DqError, isJsonObject, type JsonObject } from '../model/index.js';
import { resolveSecretReferences, type SecretContext } from './secretReferences.js';
import { sslmodeOverrideOf } from './sslmodeOverride.js';

/**
 * A connection spec (`{provider_type: postgresql, postgresql: {host, port, database, user, password, sslmode,
 * options}, parallel_jobs_limit}`) → the driver's settings, with secret references resolved. Called when a
 * pool is created, never earlier; the result lives only inside the pool.
 *
 * sslmode as libpq names it: `disable` (and `allow` / `prefer`, which the driver cannot fall back from): no
 * TLS; `require`: TLS without verifying the certificate; `verify-ca` / `verify-full`: TLS with verification.
 * `DQCTL_SSLMODE_OVERRIDE` (sslmodeOverride.ts) replaces the sslmode of the connections it names.
 * `properties` (JDBC driver properties in DQOps) are not used.
 */
export const DEFAULT_PARALLEL_JOBS_LIMIT = 2;

export interface ResolvedConnection {
  config: pg.ClientConfig;
  /** Every resolved reference value, for redaction of driver messages. */
  secrets: string[];
}

/** `parallel_jobs_limit` of the spec, default 2. */
export function parallelJobsLimitOf(spec: JsonObject): number {
  const limit = spec.parallel_jobs_limit;
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 ? limit : DEFAULT_PARALLEL_JOBS_LIMIT;
}

/** The PostgreSQL block of a connection spec; INVALID_ARGUMENT for another provider or no block. */
export function postgresBlockOf(connection: string, spec: JsonObject): JsonObject {
  const provider = spec.provider_type ?? 'postgresql';
  if (provider !== 'postgresql') {
    throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)} uses provider ${String(provider)}; dqctl connects to PostgreSQL data sources only`, {
      connection,
    });
  }
  const block = spec.postgresql;
  if (!isJsonObject(block)) {
    throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)} has no postgresql settings (host, port, database, user)`, { connection });
  }
  return block;
}

export async function resolveConnection(connection: string, spec: JsonObject, secretContext: SecretContext): Promise<ResolvedConnection> {
  const block = postgresBlockOf(connection, spec);
  const secrets: string[] = [];
  const field = async (key: string): Promise<string | undefined> => {
    const value = block[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') {
      throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)}: postgresql.${key} must be a string`, { connection });
    }
    const resolved = await resolveSecretReferences(String(value), secretContext, `connection ${JSON.stringify(connection)}: postgresql.${key}`);
    secrets.push(...resolved.secrets);
    return resolved.value;
  };

  const host = (await field('host')) || 'localhost';
  const portText = await field('port');
  let port = 5432;
  if (portText !== undefined && portText !== '') {
    port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)}: postgresql.port is not a port number`, { connection });
    }
  }
  const database = await field('database');
  const user = await field('user');
  const password = await field('password');
  const options = await field('options');
  const sslmode = sslmodeOverrideOf(connection, secretContext.env) ?? (await field('sslmode'));

  const config: pg.ClientConfig = { host, port, database, user, password };
  if (options) config.options = options;
  switch (sslmode ?? 'disable') {
    case 'disable':
    case 'allow':
    case 'prefer':
      config.ssl = false;
      break;
    case 'require':
      config.ssl = { rejectUnauthorized: false };
      break;
    case 'verify-ca':
    case 'verify-full':
      config.ssl = { rejectUnauthorized: true };
      break;
    default:
      throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)}: postgresql.sslmode ${JSON.stringify(sslmode)} is not a libpq sslmode`, {
        connection,
      });
  }
  return { config, secrets };
}
