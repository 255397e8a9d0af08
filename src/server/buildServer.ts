import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createServerServices, startConnectionSchedules } from '../app/serverServices.js';
import type { ConnectionSchedulesOptions, DataSources, DelivererOptions, JobService, Reconciler, Store } from '../app/services.js';
import type { OpenStoreOptions } from '../app/types.js';
import type { Clock } from '../model/index.js';
import { apiSchemas, registerApiSchemas } from './apiSchemas.js';
import { registerAuth } from './auth.js';
import { registerConsole } from './console.js';
import type { ServerContext } from './context.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandler, type NotFoundFallback } from './errorHandler.js';
import { registerHostileInputGuard } from './hostileInput.js';
import { ServerMetrics } from './metrics.js';
import { registerMetricsRoute, registerRequestMetrics } from './metricsRoute.js';
import { registerRequestLog } from './requestLog.js';
import { ROUTE_GROUPS } from './routes/index.js';
import type { TokenSet } from './tokens.js';

/**
 * The REST facade: DQOps's /api served from the live store. An app factory apart from `listen`, so tests use
 * `app.inject()` and `serve` adds the socket. The only module that imports fastify.
 */
export interface ServerOptions {
  store: Store;
  /** How the store was opened (`serve`): GET /api/gitops/locks lists its locks; without it that route answers 501. */
  storeOpenOptions?: OpenStoreOptions;
  /** null: authentication off (every caller is an admin); `serve` then binds to loopback only. */
  tokens?: TokenSet | null;
  /** Refuse API writes to git-managed objects (409 naming the file) instead of recording them as drift. */
  readOnlyManaged?: boolean;
  /** Largest accepted request body in bytes (default 5 MB). */
  bodyLimit?: number;
  logger?: FastifyServerOptions['logger'];
  /** The job service; by default one with this version's executors, started with the server. */
  jobs?: JobService;
  /** How stale a cached read may be after another process wrote (default 1000 ms). */
  revisionCheckMs?: number;
  /**
   * The pools of the monitored data sources; by default one resolving `${ENV}` from the environment and
   * `${credential://…}` from $DQCTL_CREDENTIALS_DIR or `.credentials` in the current folder, closed with the server.
   */
  dataSources?: DataSources;
  /** Body limit of the remote plan/apply routes (decompressed bytes; default 100 MB): their bodies hold whole repositories. */
  gitopsBodyLimit?: number;
  /** The reconcile loop (serve --repo | --git): served under /api/gitops/status, plan, suspend, resume, webhook. */
  reconciler?: Reconciler;
  /**
   * Run the connections' schedules (check runs by `schedules`, the auto import of tables) as jobs at their cron
   * times (`serve` does, unless --no-schedules). Off by default: an app built in a test schedules nothing.
   */
  schedules?: boolean | ConnectionSchedulesOptions;
  /**
   * The Prometheus metrics (default: a registry of this server's own). `metricsRoute: false` serves no GET /metrics
   * on this app: `serve --metrics-port` serves it on its own listener (metricsRoute.ts) instead.
   */
  metrics?: ServerMetrics;
  metricsRoute?: boolean;
  /**
   * Deliver the notification outbox (`serve` does): a Deliverer started with the server and stopped before it
   * closes. Off by default: an app built in a test sends nothing unless asked.
   */
  notifications?: Omit<DelivererOptions, 'store' | 'log'> & {
    /**
     * Start delivering once the server listens (serve: message links name the address it listens on, which is
     * known only then), instead of at once (tests that inject requests without listening).
     */
    startWhenListening?: boolean;
  };
  /** The web console at `/` (default: on, from dist/console); a folder serves another build; false: none. */
  console?: boolean | string;
  /** The time routes read as "now" (a preview's backtest window); default the system clock. */
  clock?: Clock;
}

/**
 * Two validators: query strings and path parameters arrive as text, so they are coerced (`?limit=10`, `?wait=false`,
 * a single value where a list is expected); bodies are JSON and are NOT: `"port": 3` where a string is expected
 * is a 400, not silently turned into "3".
 */
function useValidators(app: FastifyInstance): void {
  const make = (coerce: boolean) => {
    const ajv = new Ajv({ coerceTypes: coerce ? 'array' : false, allErrors: true, strict: false, useDefaults: true, removeAdditional: false });
    addFormats.default(ajv);
    for (const schema of apiSchemas()) ajv.addSchema(schema);
    return ajv;
  };
  const coercing = make(true);
  const strictJson = make(false);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strictJson : coercing).compile(schema));
}

export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: RegisteredRoute[];
  }
}

export const DEFAULT_BODY_LIMIT = 5 * 1024 * 1024;

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // our own one line per request (requestLog.ts) replaces fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // DQOps clients send names with an encoded slash as one segment; keep long names possible
    routerOptions: { maxParamLength: 2048, ignoreTrailingSlash: true },
    // errors met before routing (fastify's router, node's HTTP parser) answer the documented body too
    frameworkErrors,
    clientErrorHandler,
  });
  // every route as registered (method and URL), for the tests that send hostile input to all of them
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  // process metrics start observers of their own: only `serve` (which passes its metrics) wants them
  const metrics = options.metrics ?? new ServerMetrics({ store: options.store, reconciler: options.reconciler, processMetrics: false });
  const services = createServerServices({
    store: options.store,
    readOnlyManaged: options.readOnlyManaged,
    revisionCheckMs: options.revisionCheckMs,
    jobs: options.jobs,
    dataSources: options.dataSources,
    notifications: options.notifications && {
      ...options.notifications,
      log: (level, message, fields) => app.log[level]({ notifications: true, ...fields }, message),
      onSettled: (outcome) => metrics.countDelivery(outcome),
    },
  });
  const { objects, dataSources, jobs } = services;
  // an API write is drift the loop must show at once: it compares again instead of waiting for its timer
  const loop = options.reconciler;
  if (loop) objects.onWrite(() => void loop.storeChanged('api write'));
  const context: ServerContext = {
    store: options.store,
    storeOpenOptions: options.storeOpenOptions,
    jobs,
    objects,
    dataSources,
    schedulesRunning: Boolean(options.schedules),
    metrics,
    gitopsBodyLimit: options.gitopsBodyLimit,
    reconciler: options.reconciler,
    deliverer: services.deliverer,
    ...(options.clock ? { clock: options.clock } : {}),
  };
  metrics.setOpenIncidents(async () => (await options.store.incidents.statistics()).reduce((sum, c) => sum + c.openIncidents, 0));
  metrics.setOutboxBacklog(() => options.store.outbox.countPending());

  registerApiSchemas(app);
  useValidators(app);
  let consoleFallback: NotFoundFallback | undefined;
  registerErrorHandler(app, { notFoundFallback: () => consoleFallback });
  registerAuth(app, options.tokens ?? null, { webhook: Boolean(options.reconciler?.webhookSecret) });
  registerHostileInputGuard(app);
  // no hook at all when nothing would be logged
  if (options.logger) registerRequestLog(app);
  registerRequestMetrics(app, metrics);
  if (options.metricsRoute !== false) registerMetricsRoute(app, metrics);
  jobs.addEndListener((ended) => {
    metrics.observeJob(ended);
    // a table's part of a split check run: one line per table would flood the log of a run over 10,000 tables
    app.log[ended.status === 'failed' ? 'warn' : ended.job.parentId !== null ? 'debug' : 'info'](
      { event: 'job', job_id: ended.job.id, job_type: ended.job.jobType, status: ended.status, duration_ms: Math.round(ended.durationMs) },
      `job ${ended.job.id} (${ended.job.jobType}) ${ended.status}`,
    );
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'dqctl REST API',
        description: 'The DQOps-compatible REST API of dqctl, served from the live store.',
        version: '0.1.0',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: options.tokens ? [{ bearer: [] }] : [],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  await app.register(
    async (api) => {
      for (const register of ROUTE_GROUPS) await register(api, context);
      api.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    },
    { prefix: '/api' },
  );
  if (options.console !== false) consoleFallback = await registerConsole(app, typeof options.console === 'string' ? options.console : undefined);
  if (options.schedules) {
    const schedule = await startConnectionSchedules(services, {
      log: (level, message, fields) => app.log[level]({ schedules: true, ...fields }, message),
      ...(typeof options.schedules === 'object' ? options.schedules : {}),
    });
    // onClose hooks run in the order they were added: the schedule stops submitting before the worker stops
    app.addHook('onClose', async () => schedule.stop());
  }
  if (services.owns.jobs) {
    // the server owns the worker it made: it starts with the server and stops before the store closes
    jobs.start();
    app.addHook('onClose', async () => jobs.stop());
  }
  // the pools it made close after the jobs that use them stopped
  if (services.owns.dataSources) app.addHook('onClose', async () => dataSources.close());
  if (context.deliverer) {
    const started = context.deliverer;
    if (options.notifications?.startWhenListening) app.addHook('onListen', async () => started.start());
    else started.start();
    app.addHook('onClose', async () => started.stop());
  }
  await app.ready();
  return app;
}
