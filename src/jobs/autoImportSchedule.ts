import { Cron } from 'croner';
import type { LiveObjects } from '../app/liveObjects.js';
import { DqError, isJsonObject } from '../model/index.js';
import { IMPORT_TABLES } from './executors/importTables.js';
import type { JobService } from './jobService.js';

/**
 * The auto import of tables (`auto_import_tables.schedule` of each connection): at each time its cron
 * expression names, an import-tables job for the connection goes into the job queue, where any server's worker
 * runs it. The job's business key is the connection and the scheduled minute, so several servers on one store
 * submit it once between them (the key is unique in the store). The connections are re-read every
 * `refreshMs`, so a schedule written by apply or the API takes effect without a restart. A cron expression
 * that does not parse is logged once and skipped.
 */
export interface AutoImportScheduleOptions {
  /** How often the connections' schedules are re-read (default 30 s). */
  refreshMs?: number;
  log?: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;
}

interface Scheduled {
  expression: string;
  cron: Cron | undefined;
}

export class AutoImportSchedule {
  private readonly scheduled = new Map<string, Scheduled>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly jobs: JobService,
    private readonly objects: LiveObjects,
    private readonly options: AutoImportScheduleOptions = {},
  ) {}

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs ?? 30_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.refreshing;
    for (const entry of this.scheduled.values()) entry.cron?.stop();
    this.scheduled.clear();
  }

  /** The connections with a schedule, and when each runs next. */
  status(): Array<{ connection: string; cron_expression: string; next_run: string | null }> {
    return [...this.scheduled].map(([connection, entry]) => ({
      connection,
      cron_expression: entry.expression,
      next_run: entry.cron?.nextRun()?.toISOString() ?? null,
    }));
  }

  /** Re-reads the connections and (re)schedules those whose cron expression changed. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readSchedules().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readSchedules(): Promise<void> {
    let sources;
    try {
      sources = await this.objects.list('source');
    } catch (error) {
      this.options.log?.('warn', `auto import: cannot read the connections: ${(error as Error).message}`);
      return;
    }
    if (this.stopped) return;
    const wanted = new Map<string, string>();
    for (const source of sources) {
      const settings = isJsonObject(source.spec.auto_import_tables) ? source.spec.auto_import_tables : undefined;
      const schedule = settings && isJsonObject(settings.schedule) ? settings.schedule : undefined;
      const expression = typeof schedule?.cron_expression === 'string' ? schedule.cron_expression.trim() : '';
      if (!schedule || schedule.disabled === true || expression === '') continue;
      wanted.set(source.name, expression);
    }
    for (const [connection, entry] of this.scheduled) {
      if (wanted.get(connection) === entry.expression) continue;
      entry.cron?.stop();
      this.scheduled.delete(connection);
    }
    for (const [connection, expression] of wanted) {
      if (this.scheduled.has(connection)) continue;
      let cron: Cron | undefined;
      try {
        cron = new Cron(expression, { protect: true }, (self: Cron) => void this.submit(connection, self.currentRun() ?? new Date()));
      } catch (error) {
        this.options.log?.('warn', `auto import of connection ${JSON.stringify(connection)}: the cron expression ${JSON.stringify(expression)} is not valid: ${(error as Error).message}`);
      }
      this.scheduled.set(connection, { expression, cron });
    }
  }

  private async submit(connection: string, scheduledAt: Date): Promise<void> {
    const at = new Date(Math.floor(scheduledAt.getTime() / 1000) * 1000).toISOString();
    const businessKey = `auto_import:${connection}:${at}`;
    try {
      const job = await this.jobs.submit(IMPORT_TABLES, { connection, auto: true }, { businessKey, createdBy: 'schedule' });
      this.options.log?.('info', `auto import of connection ${JSON.stringify(connection)} submitted as job ${job.id}`, { job: job.id, connection });
    } catch (error) {
      // another server submitted this run already (the business key is unique in the store)
      if (error instanceof DqError && error.code === 'ALREADY_EXISTS') return;
      if (/duplicate key|unique/i.test((error as Error).message)) return;
      this.options.log?.('warn', `auto import of connection ${JSON.stringify(connection)}: ${(error as Error).message}`, { connection });
    }
  }
}
