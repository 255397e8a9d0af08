import { Cron } from 'croner';
import type { LiveObjects } from '../inspect/liveObjects.js';
import { DqError, isJsonObject, systemClock, type Clock, type JsonObject } from '../model/index.js';
import { checkScheduleOverrides } from './checkScheduleOverrides.js';
import { IMPORT_TABLES } from './executors/importTables.js';
import { RUN_CHECKS } from './executors/runChecks.js';
import type { JobService } from './jobService.js';

/**
 * The schedules of the connections, run by `dqctl serve`: at each time a cron expression names, a job goes into
 * the job queue, where any server's worker runs it.
 * - `schedules.{profiling, monitoring_daily, monitoring_monthly, partitioned_daily, partitioned_monthly}`: a
 *   run-checks job for the connection's checks of that type and time scale (`scheduled: true`: checks marked
 *   `do_not_schedule` are left out);
 * - `auto_import_tables.schedule`: an import-tables job that creates the tables missing from the store;
 * - the `schedule_override` of checks (checkScheduleOverrides.ts): per connection and cron expression, a
 *   run-checks job for the checks with that schedule of their own (which the group runs leave out).
 * A job's business key is the connection, the schedule (and its cron expression for a check's) and the scheduled time, so several servers on one store
 * submit it once between them (the key is unique in the store). The connections are re-read every `refreshMs`,
 * so a schedule written by apply or the API takes effect without a restart. A disabled schedule does not run; a
 * cron expression that does not parse is logged and skipped (`validate` reports it as invalid_cron).
 */
export interface ConnectionSchedulesOptions {
  /** How often the connections' schedules are re-read (default 30 s). */
  refreshMs?: number;
  log?: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
  /** The clock the schedules fire on (default: the system's); tests pass one they advance. */
  clock?: Clock;
}

/** The scheduling groups of a connection's `schedules`, and the checks each one runs. */
export const SCHEDULING_GROUPS = {
  profiling: { checkType: 'profiling' },
  monitoring_daily: { checkType: 'monitoring', timeScale: 'daily' },
  monitoring_monthly: { checkType: 'monitoring', timeScale: 'monthly' },
  partitioned_daily: { checkType: 'partitioned', timeScale: 'daily' },
  partitioned_monthly: { checkType: 'partitioned', timeScale: 'monthly' },
} as const;

export type ScheduleName = keyof typeof SCHEDULING_GROUPS | 'auto_import' | 'schedule_override';

interface Scheduled {
  connection: string;
  schedule: ScheduleName;
  expression: string;
  /** The parsed cron expression (it only computes times: the clock fires), undefined when it does not parse. */
  cron: Cron | undefined;
  /** Cancels the next firing. */
  cancel?: () => void;
}

export class ConnectionSchedules {
  private readonly scheduled = new Map<string, Scheduled>();
  private cancelRefresh: (() => void) | undefined;
  private refreshing: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly jobs: JobService,
    private readonly objects: LiveObjects,
    private readonly options: ConnectionSchedulesOptions = {},
  ) {}

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.refresh();
    this.scheduleRefresh();
  }

  private scheduleRefresh(): void {
    if (this.stopped) return;
    const when = new Date(this.clock.now().getTime() + (this.options.refreshMs ?? 30_000));
    this.cancelRefresh = this.clock.at(when, () => {
      this.scheduleRefresh();
      return this.refresh();
    }, { background: true });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRefresh?.();
    await this.refreshing;
    for (const entry of this.scheduled.values()) entry.cancel?.();
    this.scheduled.clear();
  }

  /** The schedules that run, and when each runs next. */
  status(): Array<{ connection: string; schedule: ScheduleName; cron_expression: string; next_run: string | null }> {
    return [...this.scheduled.values()].map((entry) => ({
      connection: entry.connection,
      schedule: entry.schedule,
      cron_expression: entry.expression,
      next_run: entry.cron?.nextRun(this.clock.now())?.toISOString() ?? null,
    }));
  }

  /** Re-reads the connections and (re)schedules what changed. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readSchedules().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readSchedules(): Promise<void> {
    let sources;
    try {
      sources = await this.objects.list('source');
    } catch (error) {
      this.options.log?.('warn', `schedules: cannot read the connections: ${(error as Error).message}`);
      return;
    }
    let overrides: Map<string, Set<string>>;
    try {
      overrides = await checkScheduleOverrides(this.objects);
    } catch (error) {
      this.options.log?.('warn', `schedules: cannot read the checks' own schedules: ${(error as Error).message}`);
      overrides = new Map();
    }
    if (this.stopped) return;
    const wanted = new Map<string, Omit<Scheduled, 'cron'>>();
    for (const source of sources) {
      for (const [schedule, spec] of schedulesOf(source.spec)) {
        const expression = typeof spec.cron_expression === 'string' ? spec.cron_expression.trim() : '';
        if (spec.disabled === true || expression === '') continue;
        wanted.set(JSON.stringify([source.name, schedule]), { connection: source.name, schedule, expression });
      }
      for (const expression of overrides.get(source.name) ?? []) {
        wanted.set(JSON.stringify([source.name, 'schedule_override', expression]), { connection: source.name, schedule: 'schedule_override', expression });
      }
    }
    for (const [key, entry] of this.scheduled) {
      if (wanted.get(key)?.expression === entry.expression) continue;
      entry.cancel?.();
      this.scheduled.delete(key);
    }
    for (const [key, entry] of wanted) {
      if (this.scheduled.has(key)) continue;
      let cron: Cron | undefined;
      try {
        cron = new Cron(entry.expression);
      } catch (error) {
        this.options.log?.(
          'warn',
          `schedule ${entry.schedule} of connection ${JSON.stringify(entry.connection)}: the cron expression ${JSON.stringify(entry.expression)} is not valid: ${(error as Error).message}`,
        );
      }
      const scheduled: Scheduled = { ...entry, cron };
      this.scheduled.set(key, scheduled);
      this.arm(scheduled);
    }
  }

  /** Sets the clock to submit the entry's next run, and to arm the one after it then. */
  private arm(entry: Scheduled): void {
    const next = entry.cron?.nextRun(this.clock.now());
    if (!next) return;
    entry.cancel = this.clock.at(next, () => {
      if (this.stopped) return;
      this.arm(entry);
      return this.submit(entry, next);
    });
  }

  private async submit({ connection, schedule, expression }: Omit<Scheduled, 'cron'>, scheduledAt: Date): Promise<void> {
    const at = new Date(Math.floor(scheduledAt.getTime() / 1000) * 1000).toISOString();
    // names are encoded so that one schedule's keys never start with another's (a connection may hold ':')
    const prefix = `schedule:${encodeURIComponent(connection)}:${schedule}:${schedule === 'schedule_override' ? `${encodeURIComponent(expression)}:` : ''}`;
    const businessKey = `${prefix}${at}`;
    // A run still queued or running when the next one is due: the next is skipped rather than piled up behind it.
    try {
      const previous = await this.jobs.unfinished(prefix);
      if (previous?.businessKey === businessKey) return; // another server submitted this very run
      if (previous) {
        this.options.log?.('info', `schedule ${schedule} of connection ${JSON.stringify(connection)}: skipped the run at ${at}, job ${previous.id} of an earlier run has not finished`, { job: previous.id, connection, schedule });
        return;
      }
    } catch (error) {
      this.options.log?.('warn', `schedule ${schedule} of connection ${JSON.stringify(connection)}: ${(error as Error).message}`, { connection, schedule });
      return;
    }
    const [jobType, parameters]: [string, JsonObject] =
      schedule === 'auto_import'
        ? [IMPORT_TABLES, { connection, auto: true }]
        : schedule === 'schedule_override'
          ? [RUN_CHECKS, { check_search_filters: { connection }, scheduled: true, schedule_override: expression }]
          : [RUN_CHECKS, { check_search_filters: { connection, ...SCHEDULING_GROUPS[schedule] }, scheduled: true }];
    try {
      const job = await this.jobs.submit(jobType, parameters, { businessKey, createdBy: 'schedule' });
      this.options.log?.('info', `schedule ${schedule} of connection ${JSON.stringify(connection)} submitted job ${job.id}`, { job: job.id, connection, schedule });
    } catch (error) {
      // another server submitted this run already (the business key is unique in the store)
      if (error instanceof DqError && error.code === 'ALREADY_EXISTS') return;
      if (/duplicate key|unique/i.test((error as Error).message)) return;
      this.options.log?.('warn', `schedule ${schedule} of connection ${JSON.stringify(connection)}: ${(error as Error).message}`, { connection, schedule });
    }
  }
}

/** The cron schedules a connection spec holds: its scheduling groups, then its auto import. */
function schedulesOf(spec: JsonObject): Array<[ScheduleName, JsonObject]> {
  const out: Array<[ScheduleName, JsonObject]> = [];
  const schedules = isJsonObject(spec.schedules) ? spec.schedules : {};
  for (const group of Object.keys(SCHEDULING_GROUPS) as Array<keyof typeof SCHEDULING_GROUPS>) {
    const schedule = schedules[group];
    if (isJsonObject(schedule)) out.push([group, schedule]);
  }
  const autoImport = isJsonObject(spec.auto_import_tables) ? spec.auto_import_tables : undefined;
  if (autoImport && isJsonObject(autoImport.schedule)) out.push(['auto_import', autoImport.schedule]);
  return out;
}
