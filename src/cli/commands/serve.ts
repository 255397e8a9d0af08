import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { DqError } from '../../model/index.js';
import { loadDeliverySettings } from '../../app/deliverySettingsFile.js';
import { buildServer } from '../../server/buildServer.js';
import { parseTokens, type TokenSet } from '../../server/tokens.js';
import type { CliIo } from '../io.js';
import { announceStateDirHolder } from '../../app/openStore.js';
import { openOptionsFromFlags, openStoreFromFlags, type StoreFlags } from '../storeOptions.js';
import { buildMetricsServer } from '../../server/metricsRoute.js';
import { ServerMetrics } from '../../server/metrics.js';
import { serverLogger, type LogFormat } from '../serverLogger.js';
import { checkReconcileFlags, reconcilerFromFlags, type ReconcileFlags } from './serveLoop.js';

export interface ServeOptions extends StoreFlags, ReconcileFlags {
  port: string;
  host: string;
  tokens?: string;
  insecure?: boolean;
  readOnlyManaged?: boolean;
  bodyLimit: string;
  /** Body limit of the remote plan/apply routes, decompressed (default 100 MB). */
  gitopsBodyLimit?: string;
  logLevel: string;
  /** json | text (default: text on a terminal, JSON otherwise). */
  logFormat?: LogFormat;
  /** Serve GET /metrics on this port (without tokens) instead of on the API's port (with them). */
  metricsPort?: string;
  metricsHost?: string;
  /** false with --no-schedules. */
  schedules?: boolean;
  /** false with --no-notifications: the outbox is left to other replicas. */
  notifications?: boolean;
}

/** The URL a process on this machine reaches the server at: loopback for a wildcard or loopback bind. */
export function localUrl(host: string, address: string | { port: number } | null): string {
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  if (host === '0.0.0.0' || host === '::' || host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.'))) return `http://127.0.0.1:${port}`;
  return isIP(host) === 6 ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

async function loadTokens(options: ServeOptions, io: CliIo): Promise<TokenSet | null> {
  if (options.tokens) {
    const file = resolve(io.cwd, options.tokens);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new DqError('INVALID_ARGUMENT', `cannot read the tokens file ${file}: ${(error as Error).message}`);
    }
    return parseTokens(text, file);
  }
  if (io.env.DQCTL_TOKENS) return parseTokens(io.env.DQCTL_TOKENS, 'DQCTL_TOKENS');
  return null;
}

/**
 * `dqctl serve`: the DQOps-compatible REST API over the live store, until SIGINT/SIGTERM. Without tokens the
 * API is open, so it binds to loopback only unless --insecure says otherwise. With --repo or --git it also runs
 * the reconcile loop (serveLoop.ts), started once the server listens and stopped before the store closes.
 */
export async function serveCommand(options: ServeOptions, io: CliIo, signal?: AbortSignal): Promise<number> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new DqError('INVALID_ARGUMENT', `--port must be a port number, not ${options.port}`);
  const bodyLimit = Number(options.bodyLimit);
  if (!Number.isInteger(bodyLimit) || bodyLimit < 1024) throw new DqError('INVALID_ARGUMENT', '--body-limit must be a number of bytes (at least 1024)');
  const gitopsBodyLimit = options.gitopsBodyLimit === undefined ? undefined : Number(options.gitopsBodyLimit);
  if (gitopsBodyLimit !== undefined && (!Number.isInteger(gitopsBodyLimit) || gitopsBodyLimit < 1024)) {
    throw new DqError('INVALID_ARGUMENT', '--gitops-body-limit must be a number of bytes (at least 1024)');
  }
  const metricsPort = options.metricsPort === undefined ? undefined : Number(options.metricsPort);
  if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) {
    throw new DqError('INVALID_ARGUMENT', `--metrics-port must be a port number, not ${options.metricsPort}`);
  }
  if (options.logFormat !== undefined && options.logFormat !== 'json' && options.logFormat !== 'text') {
    throw new DqError('INVALID_ARGUMENT', `--log-format must be json or text, not ${JSON.stringify(options.logFormat)}`);
  }
  await checkReconcileFlags(options, io);
  const tokens = await loadTokens(options, io);
  if (!tokens && !isLoopback(options.host) && !options.insecure) {
    throw new DqError(
      'INSECURE_BIND',
      `refusing to serve an API without tokens on ${options.host}: anyone who can reach it could change the configuration; pass --tokens FILE (or DQCTL_TOKENS), or --insecure`,
    );
  }
  const delivery = options.notifications === false ? undefined : await loadDeliverySettings(resolve(io.cwd, options.repo ?? '.'));
  const store = await openStoreFromFlags(options, io, { operation: 'serve' });
  const stateDir = store.engine === 'pglite' ? openOptionsFromFlags(options, io, { operation: 'serve' }).stateDir : undefined;
  let reconciler;
  try {
    reconciler = await reconcilerFromFlags(options, io, store, { stateDir });
  } catch (error) {
    await store.close();
    throw error;
  }
  const metrics = new ServerMetrics({ store, reconciler });
  const app = await buildServer({
    storeOpenOptions: openOptionsFromFlags(options, io, { operation: 'serve' }),
    metrics,
    metricsRoute: metricsPort === undefined,
    reconciler,
    store,
    tokens,
    readOnlyManaged: options.readOnlyManaged,
    bodyLimit,
    gitopsBodyLimit,
    schedules: options.schedules !== false,
    ...(delivery
      ? {
          notifications: {
            settings: delivery.settings,
            env: io.env,
            // links point at the public URL of dqctl.yaml, else at where this server listens: delivery starts
            // once it listens (a pass before that would find no address, and `app` not yet assigned)
            startWhenListening: true,
            baseUrl: () => delivery.settings.publicUrl ?? localUrl(options.host, app.server.address()),
          },
        }
      : {}),
    logger: serverLogger({ level: options.logLevel, format: options.logFormat }, io),
  });
  const metricsApp = metricsPort === undefined ? undefined : await buildMetricsServer(metrics);
  try {
    const address = await app.listen({ port, host: options.host });
    const base = address.replace('[::1]', 'localhost');
    if (metricsApp) {
      const metricsAddress = await metricsApp.listen({ port: metricsPort, host: options.metricsHost ?? options.host });
      io.stderr(`dqctl serves its metrics on ${metricsAddress}/metrics (no token)\n`);
    }
    if (store.engine === 'pglite') {
      // Whoever finds the embedded store taken is told to go through this server (stateDirLock.ts).
      const stateDir = openOptionsFromFlags(options, io, { operation: 'serve' }).stateDir!;
      await announceStateDirHolder(stateDir, `serve ${localUrl(options.host, app.server.address())}`);
    }
    io.stderr(
      `dqctl is serving the live store ${store.description} on ${base}/api (API docs: ${base}/api/docs, OpenAPI: ${base}/api/openapi.json)${tokens ? `, ${tokens.size} token(s)` : ', no authentication (loopback only)'}\n`,
    );
  } catch (error) {
    await metricsApp?.close();
    await app.close();
    await reconciler?.stop();
    await store.close();
    // the error names the address that failed (the API's or --metrics-port's)
    throw new DqError('INVALID_ARGUMENT', `cannot listen: ${(error as Error).message}`);
  }
  if (reconciler) {
    const loop = reconciler;
    loop.setLog((level, message, fields) => app.log[level]({ event: 'reconcile', reconcile: true, ...fields }, message));
    await loop.start();
    io.stderr(`dqctl is ${loop.summary()}\n`);
  }
  await new Promise<void>((done) => {
    const stop = () => done();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
  io.stderr('dqctl: shutting down\n');
  await reconciler?.stop();
  await metricsApp?.close();
  await app.close();
  await store.close();
  return 0;
}
