import { DEFAULT_DEMO_DATABASE_URL, DEMO_DATABASE_URL_VARIABLE, parseDemoServer, type DemoServer } from './demoServer.js';
import { configuredConnectionVariables } from './demoConnections.js';
import { onDemoServer } from './demoDatabases.js';

/**
 * Where the demo's data comes from, decided in this order:
 *
 * 1. `configured`: some SHOP_OLTP_* / ANALYTICS_DWH_* variable is set, so the user points the example at real
 *    databases; the demo touches nothing.
 * 2. `postgres`: the PostgreSQL server of --demo-database / DQCTL_DEMO_DATABASE_URL (default the local one on
 *    127.0.0.1:5432) answers; the demo databases are made there.
 * 3. `files`: nothing answers. The demo data is written as Parquet and CSV files read through DuckDB, in this
 *    process (demoFiles.ts, demoFilesHome.ts), so a machine without PostgreSQL sees the checks run and fail.
 *    (PGlite served over the PostgreSQL protocol, @electric-sql/pglite-socket, was considered and left out: its
 *    current release requires @electric-sql/pglite 0.5.14 exactly, sees one database whatever a client asks
 *    for, and ignores cancel requests.)
 */
export type DemoSource =
  | { kind: 'configured'; variables: string[] }
  | { kind: 'postgres'; server: DemoServer }
  | { kind: 'files'; server: DemoServer; reason: string };

export interface ChooseDemoSourceOptions {
  /** --demo-database; else DQCTL_DEMO_DATABASE_URL; else the local server. */
  databaseUrl?: string;
  env: Readonly<Record<string, string | undefined>>;
}

export async function chooseDemoSource(options: ChooseDemoSourceOptions): Promise<DemoSource> {
  const variables = configuredConnectionVariables(options.env);
  if (variables.length > 0) return { kind: 'configured', variables };
  const server = parseDemoServer(options.databaseUrl || options.env[DEMO_DATABASE_URL_VARIABLE] || DEFAULT_DEMO_DATABASE_URL, options.env);
  try {
    await onDemoServer(server, async (admin) => {
      await admin.query('select 1');
    });
    return { kind: 'postgres', server };
  } catch (error) {
    return { kind: 'files', server, reason: describe(error, server) };
  }
}

function describe(error: unknown, server: DemoServer): string {
  let message = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
  if (error instanceof AggregateError && error.errors.length > 0) message = (error.errors[0] as Error).message;
  // never a password in a message
  if (server.password.length >= 3) message = message.split(server.password).join('(sensitive)');
  return message;
}
