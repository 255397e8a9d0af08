import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  chooseDemoSource,
  DEFAULT_DEMO_PREFIX,
  checkDemoPrefix,
  demoEnvironment,
  describeDemoEnvironment,
  describeDemoFiles,
  ensureDemoDatabases,
  prepareDemoFiles,
  type DemoSource,
} from '../../demo/index.js';
import { runChecksInProcess, type RunChecksOutcome } from '../../app/inProcessJobs/runChecksInProcess.js';
import { listIncidents } from '../../app/incidentCommands.js';
import { EXAMPLE_REPOSITORY_DIR } from '../../app/packageFiles.js';
import type { IncidentRecord } from '../../app/types.js';
import { DqError } from '../../model/index.js';
import { withDataSources } from '../dataSourceOptions.js';
import type { CliIo } from '../io.js';
import { stateDirOf, type StoreFlags } from '../storeOptions.js';
import { applyCommand } from './apply.js';
import { serveCommand, type ServeOptions } from './serve.js';
import { validateCommand } from './validate.js';

/** examples/shop of this dqctl (found from the package root, so also from dist/bundle/). */
export const BUNDLED_EXAMPLE = EXAMPLE_REPOSITORY_DIR;

export interface DemoOptions extends StoreFlags {
  demoDatabase?: string;
  prefix?: string;
  /** commander's --no-serve: false when given. */
  serve: boolean;
  port: string;
  host: string;
  logLevel: string;
  logFormat?: 'json' | 'text';
}

/**
 * `dqctl demo [DIR]`, what `npm start` runs: bring up the demo data source (demo/chooseDemoSource.ts), validate
 * and apply the example, run its checks once so the results overview has something to show, and serve the API.
 * One process, so the environment the demo sets (connection variables, sslmode override) reaches the check run
 * and the server; the server runs the reconcile loop on the repository (plan only), so the web console shows its
 * sync state and plan. Exit: validation errors 3 (nothing applied), otherwise what serve returns, or 0 with --no-serve
 * (warnings and errors of the checks are the demo's point, not a failure; execution errors exit 4 like
 * `run checks`).
 */
export async function demoCommand(dir: string | undefined, options: DemoOptions, io: CliIo): Promise<number> {
  const given = dir ? resolve(io.cwd, dir) : BUNDLED_EXAMPLE;
  try {
    await access(given);
  } catch {
    throw new DqError('REPOSITORY_UNREADABLE', `the demo repository ${given} does not exist${dir ? '' : ' (examples/shop of a dqctl checkout)'}`);
  }
  const prefix = checkDemoPrefix(options.prefix || io.env.DQCTL_DEMO_DATABASE_PREFIX || DEFAULT_DEMO_PREFIX);

  const source = await chooseDemoSource({ databaseUrl: options.demoDatabase, env: io.env });
  // without a PostgreSQL server the demo runs on files, in a DuckDB copy of the repository
  const { databases, repository } = await prepare(source, prefix, given, stateDirOf(options, io), io);

  io.stderr(`\nValidating ${repository}\n`);
  const valid = await validateCommand(repository, { format: 'text' }, io);
  if (valid !== 0) return valid;

  io.stderr(`\nApplying it to the live store\n`);
  const storeFlags: StoreFlags = { database: options.database, stateDir: options.stateDir, lockTtl: options.lockTtl };
  const applied = await applyCommand(repository, { ...storeFlags, autoApprove: true, lockTimeout: '30s', format: 'text', planSummaryOnly: true }, io);
  if (applied !== 0) return applied;

  let exitCode = 0;
  let incidentConnections: string[] = [];
  {
    io.stderr(`\nRunning the checks of every table once\n`);
    const run = await runAllChecks(repository, storeFlags, io);
    const { result } = run;
    for (const table of run.failed) io.stdout(`  FAILED  ${table.table}  ${table.message ?? ''}\n`);
    const results = result.valid_results + result.warnings + result.errors + result.fatals + result.execution_errors;
    io.stdout(
      `Ran ${result.executed_checks} checks (${plural(results, 'result')}, one per data group and partition): ${result.valid_results} valid, ${plural(result.warnings, 'warning')}, ${plural(result.errors, 'error')}, ` +
        `${result.fatals} fatal, ${plural(result.execution_errors, 'execution error')}.\n`,
    );
    if (databases) io.stdout(`The warnings and errors come from problems put into the demo data on purpose (examples/shop/README.md lists them).\n`);
    if (result.execution_errors > 0) exitCode = 4;
    const byConnection = new Map<string, number>();
    for (const incident of run.incidents) byConnection.set(incident.connection, (byConnection.get(incident.connection) ?? 0) + 1);
    io.stdout(`The failures opened ${plural(run.incidents.length, 'incident')} (grouped by table, quality dimension and check category)${run.incidents.length > 0 ? ':' : '.'}\n`);
    for (const incident of run.incidents.slice(0, 5)) {
      io.stdout(`  ${incident.connection}/${incident.schema}.${incident.table}  ${[incident.qualityDimension, incident.checkCategory].filter(Boolean).join(' / ')}  ${plural(incident.failedChecksCount, 'failed check')}\n`);
    }
    if (run.incidents.length > 5) io.stdout(`  … and ${run.incidents.length - 5} more\n`);
    incidentConnections = [...byConnection.keys()];
  }

  if (!options.serve) {
    if (incidentConnections.length > 0) io.stdout(`See them with: dqctl incidents list${storeFlags.stateDir ? ` --state-dir ${storeFlags.stateDir}` : ''}\n`);
    return exitCode;
  }
  const base = `http://${hostForUrl(options.host)}:${options.port}`;
  io.stdout(
    `\nServing the web console and the API. Open the console: ${base}/\n` +
      `  API: ${base}/api (docs: ${base}/api/docs); results overview of a table, e.g.: ${base}/api/connections/shop_oltp/schemas/public/tables/customers/monitoring/daily/overview\n`,
  );
  if (incidentConnections.length > 0) {
    io.stdout(`  Incidents: ${base}/incidents in the console; ${incidentConnections.map((c) => `${base}/api/incidents/${encodeURIComponent(c)}`).join(', ')}; or dqctl incidents list --server ${base}\n`);
  }
  // The reconcile loop watches the demo repository (without --auto-apply): the console shows its sync state and
  // plan, and an edit of a file shows up as a pending plan.
  const serveOptions: ServeOptions = { ...storeFlags, repo: repository, port: options.port, host: options.host, bodyLimit: String(5 * 1024 * 1024), logLevel: options.logLevel, logFormat: options.logFormat };
  return serveCommand(serveOptions, io);
}

/**
 * Makes the demo data the source calls for (databases, or files and a DuckDB copy of the repository), sets the
 * environment, and says what it did. `databases` is set when the data is the demo's own (its deliberate problems).
 */
async function prepare(source: DemoSource, prefix: string, repository: string, stateDir: string, io: CliIo): Promise<{ databases?: readonly unknown[]; repository: string }> {
  switch (source.kind) {
    case 'configured':
      io.stdout(`Data source: your own databases (${source.variables.join(', ')} set); no demo data is made.\n`);
      return { repository };
    case 'files': {
      io.stderr(`Preparing the demo files (no PostgreSQL answered at ${source.server.display})\n`);
      const step = io.interactive ? (text: string) => io.stderr(`\r\x1b[K  ${text}`) : undefined;
      const prepared = await prepareDemoFiles(repository, stateDir, { onStep: step });
      if (step) io.stderr('\r\x1b[K');
      io.stdout(describeDemoFiles(prepared, `no PostgreSQL answered at ${source.server.display}: ${source.reason}`));
      return { databases: prepared.connections, repository: prepared.home };
    }
    case 'postgres': {
      io.stderr(`Preparing the demo databases on ${source.server.display}\n`);
      const step = io.interactive ? (text: string) => io.stderr(`\r\x1b[K  ${text}`) : undefined;
      const databases = await ensureDemoDatabases(source.server, { prefix, onStep: step });
      if (step) io.stderr('\r\x1b[K');
      const vars = demoEnvironment(source.server, prefix, io.env);
      Object.assign(io.env, vars);
      io.stdout(`Data source: demo databases on the PostgreSQL at ${source.server.display}\n`);
      for (const database of databases) {
        const rows = Object.values(database.rows).reduce((sum, n) => sum + n, 0);
        io.stdout(
          `  ${database.connection} -> ${database.database}: ${database.action}${database.reason ? ` (${database.reason})` : ''}, ` +
            `${Object.keys(database.rows).length} tables, ${rows} rows\n`,
        );
      }
      io.stdout(`  environment set for this process: ${describeDemoEnvironment(vars)}\n`);
      return { databases, repository };
    }
    default: {
      const unreachable: never = source;
      throw new DqError('INTERNAL', `unknown demo source ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The same executor as `dqctl run checks` and POST /api/jobs/runchecks, over every table of the store. */
async function runAllChecks(repository: string, storeFlags: StoreFlags, io: CliIo): Promise<RunChecksOutcome & { incidents: IncidentRecord[] }> {
  return withDataSources({ ...storeFlags, repository }, io, 'demo: run checks', async ({ store, dataSources, signal }) => {
    const run = await runChecksInProcess(store, dataSources, { filters: {}, signal });
    // the run grouped its failures into incidents (in the transaction of its results): the demo shows them
    return { ...run, incidents: await listIncidents(store, { statuses: ['open', 'acknowledged', 'muted'] }) };
  });
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
