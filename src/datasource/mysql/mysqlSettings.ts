/**
 * A `mysql` or `mariadb` connection spec (DQOps's MysqlParametersSpec / MariaDbParametersSpec: host, port,
 * database, user, password, and TLS) → the driver's settings, with `${ENV}` and `${credential://…}` references
 * resolved. Called when the pool is created, never earlier; the result lives only inside the pool.
 *
 * TLS: `mysql.sslmode` as DQOps's MySqlSslMode (DISABLED; PREFERRED, which the driver cannot fall back from, so
 * no TLS; REQUIRED: TLS without verifying the certificate; VERIFY_CA: verified chain, any host name;
 * VERIFY_IDENTITY: verified chain and host name). `mariadb` has no sslmode in DQOps; its JDBC property `sslMode`
 * (MariaDB Connector/J: disable, trust, verify-ca, verify-full) is read from `properties` with the same meanings.
 * Other JDBC properties are ignored.
 */
import type { ConnectionOptions } from 'mysql2';
import { DqError, isJsonObject, type JsonObject } from '../../model/index.js';
import { resolveSecretReferences, type SecretContext } from '../secretReferences.js';

export type MysqlProvider = 'mysql' | 'mariadb';

export interface MysqlSettings {
  provider: MysqlProvider;
  config: ConnectionOptions;
  /** Every resolved reference value, for redaction of driver messages. */
  secrets: string[];
}

type Tls = 'none' | 'unverified' | 'verify-ca' | 'verify-full';

const MYSQL_SSL: Record<string, Tls> = { DISABLED: 'none', PREFERRED: 'none', REQUIRED: 'unverified', VERIFY_CA: 'verify-ca', VERIFY_IDENTITY: 'verify-full' };
const MARIADB_SSL: Record<string, Tls> = { disable: 'none', trust: 'unverified', 'verify-ca': 'verify-ca', 'verify-full': 'verify-full' };

export async function resolveMysqlSettings(connection: string, spec: JsonObject, secretContext: SecretContext): Promise<MysqlSettings> {
  const provider: MysqlProvider = spec.provider_type === 'mariadb' ? 'mariadb' : 'mysql';
  const name = JSON.stringify(connection);
  const block = spec[provider];
  if (!isJsonObject(block)) {
    throw new DqError('INVALID_ARGUMENT', `connection ${name} has no ${provider} settings (host, port, database, user)`, { connection });
  }
  const secrets: string[] = [];
  const field = async (value: unknown, where: string): Promise<string | undefined> => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') throw new DqError('INVALID_ARGUMENT', `connection ${name}: ${where} must be a string`, { connection });
    const resolved = await resolveSecretReferences(String(value), secretContext, `connection ${name}: ${where}`);
    secrets.push(...resolved.secrets);
    return resolved.value;
  };
  const host = (await field(block.host, `${provider}.host`)) || 'localhost';
  const portText = await field(block.port, `${provider}.port`);
  const port = portText === undefined || portText === '' ? 3306 : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new DqError('INVALID_ARGUMENT', `connection ${name}: ${provider}.port is not a port number`, { connection });
  const database = await field(block.database, `${provider}.database`);
  const user = await field(block.user, `${provider}.user`);
  const password = await field(block.password, `${provider}.password`);

  const properties = isJsonObject(block.properties) ? block.properties : {};
  const sslText = provider === 'mysql' ? await field(block.sslmode, 'mysql.sslmode') : await field(properties.sslMode, 'mariadb.properties.sslMode');
  const modes = provider === 'mysql' ? MYSQL_SSL : MARIADB_SSL;
  const tls = sslText === undefined || sslText === '' ? 'none' : modes[sslText];
  if (tls === undefined) {
    throw new DqError('INVALID_ARGUMENT', `connection ${name}: ${provider === 'mysql' ? 'mysql.sslmode' : 'mariadb.properties.sslMode'} ${JSON.stringify(sslText)} is not one of ${Object.keys(modes).join(', ')}`, { connection });
  }
  const config: ConnectionOptions = { host, port, user, password, ...(database ? { database } : {}) };
  if (tls === 'unverified') config.ssl = { rejectUnauthorized: false };
  if (tls === 'verify-ca') config.ssl = { rejectUnauthorized: true, checkServerIdentity: () => undefined } as ConnectionOptions['ssl'];
  if (tls === 'verify-full') config.ssl = { rejectUnauthorized: true };
  return { provider, config, secrets };
}
