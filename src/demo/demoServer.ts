import { userInfo } from 'node:os';
import { DqError } from '../model/index.js';
import { isSslmode, type Sslmode } from '../datasource/sslmodeOverride.js';

/**
 * The PostgreSQL server the demo databases live on, from DQCTL_DEMO_DATABASE_URL (or --demo-database): any
 * database of the server to connect to first (`postgres` by default), as a user allowed to create databases.
 * The URL's password is kept for the connections and never printed: `display` has it masked.
 */
export const DEFAULT_DEMO_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEMO_DATABASE_URL_VARIABLE = 'DQCTL_DEMO_DATABASE_URL';

export interface DemoServer {
  /** The admin URL as given (with its password; never print it). */
  url: string;
  /** The URL with the password masked, for messages. */
  display: string;
  host: string;
  port: number;
  user: string;
  password: string;
  /** `sslmode` of the URL's query, default disable: what the demo connections use too. */
  sslmode: Sslmode;
}

export function parseDemoServer(text: string, env: Readonly<Record<string, string | undefined>>): DemoServer {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DqError('INVALID_ARGUMENT', `the demo database URL must look like ${DEFAULT_DEMO_DATABASE_URL}, not ${JSON.stringify(maskPassword(text))}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DqError('INVALID_ARGUMENT', `the demo database URL must be a postgres:// URL, not ${JSON.stringify(maskPassword(text))}`);
  }
  const sslmodeText = url.searchParams.get('sslmode') ?? 'disable';
  if (!isSslmode(sslmodeText)) throw new DqError('INVALID_ARGUMENT', `the demo database URL has an unknown sslmode ${JSON.stringify(sslmodeText)}`);
  const display = new URL(url.toString());
  if (display.password) display.password = '***';
  return {
    url: url.toString(),
    display: display.toString(),
    host: url.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost',
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username) || env.PGUSER || currentUser(),
    password: url.password ? decodeURIComponent(url.password) : (env.PGPASSWORD ?? ''),
    sslmode: sslmodeText,
  };
}

/** The URL of one database of the server (same user, password and query). */
export function databaseUrl(server: DemoServer, database: string): string {
  const url = new URL(server.url);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

function maskPassword(text: string): string {
  return text.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}
