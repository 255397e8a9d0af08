import { DqError } from '../../model/index.js';

/**
 * `postgres://user@host:5432/db` from a connection URL: never the password nor query parameters (they may
 * carry `password=` or ssl key passwords), because this text goes into messages, logs and API responses.
 */
export function describeDatabaseUrl(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new DqError('INVALID_ARGUMENT', 'the database URL is not a valid postgres:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DqError('INVALID_ARGUMENT', `the database URL must start with postgres:// (got ${url.protocol}//…)`);
  }
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  // `postgres:///db?host=/var/run/postgresql` connects through a Unix socket folder.
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (host.startsWith('/')) return `postgres://${user}localhost:${port}/${database} (socket ${host})`;
  return `postgres://${user}${host}:${port}/${database}`;
}
