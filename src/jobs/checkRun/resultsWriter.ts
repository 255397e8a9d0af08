import { recordResultsOfTables, type IncidentsOutcome, type TableResults } from '../../incidents/index.js';
import type { Store } from '../../store/store.js';

/**
 * The results of a check run's tables, written with their incidents in batches (group commit): a table's results
 * are handed over as soon as its queries and rules are done, and the run goes on with its next table while they are
 * written. One transaction at a time per writer (one writer per server, shared by its runs): the tables handed
 * over while it runs are written together in the next one, up to `maxTables` tables and `maxRows` rows, so a busy
 * server writes many tables per transaction and an idle one writes each table at once. `write` resolves once the
 * table's results are committed (a table's job ends only then: a server that dies before leaves its table to be
 * run again). A batch the store refuses is written again table by table, so that only the table at fault fails.
 * With `gatherMs`, a transaction starts only once its first table has waited that long (or the batch is full), so
 * that an idle writer fed at a steady pace writes several tables per transaction instead of one each.
 */
interface Pending {
  part: TableResults;
  tables: string[];
  resolve: (outcome: IncidentsOutcome) => void;
  reject: (error: unknown) => void;
  /** When it was handed over (performance.now()). */
  at: number;
}

export class ResultsWriter {
  readonly #queue: Pending[] = [];
  readonly #waitingForRoom: Array<() => void> = [];
  #writing = false;
  #gathering: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  constructor(
    private readonly store: Store,
    private readonly limits: { maxTables: number; maxRows: number; maxWaiting?: number; gatherMs?: number } = { maxTables: 100, maxRows: 20_000 },
  ) {}

  /**
   * Resolves when the writer has room for another table: fewer than `maxWaiting` (default 2 × maxTables) tables
   * wait for a transaction. Runs wait for it before a table's queries, so memory stays bounded when the store is
   * slower than the data sources.
   */
  room(): Promise<void> {
    if (this.#queue.length < (this.limits.maxWaiting ?? 2 * this.limits.maxTables)) return Promise.resolve();
    return new Promise((resolve) => this.#waitingForRoom.push(resolve));
  }

  write(part: TableResults): Promise<IncidentsOutcome> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ part, tables: tablesOf(part), resolve, reject, at: performance.now() });
      if (this.#gathering && this.#full()) this.#stopGathering();
      void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        // (no await when there is nothing to wait for: the first table of an idle writer goes at once)
        const gathering = this.#gather();
        if (gathering) await gathering;
        const batch = this.#next();
        for (const resolve of this.#waitingForRoom.splice(0)) resolve();
        try {
          const outcomes = await recordResultsOfTables(this.store, batch.map((b) => b.part));
          batch.forEach((b, i) => b.resolve(outcomes[i]!));
        } catch (error) {
          if (batch.length === 1) {
            batch[0]!.reject(error);
            continue;
          }
          for (const b of batch) {
            try {
              b.resolve((await recordResultsOfTables(this.store, [b.part]))[0]!);
            } catch (alone) {
              b.reject(alone);
            }
          }
        }
      }
    } finally {
      this.#writing = false;
    }
  }

  /** Waits until the oldest table handed over has waited `gatherMs`, or a transaction's worth of tables waits. */
  #gather(): Promise<void> | undefined {
    const gatherMs = this.limits.gatherMs ?? 0;
    if (gatherMs <= 0) return undefined;
    const left = gatherMs - (performance.now() - this.#queue[0]!.at);
    if (left <= 0 || this.#full()) return undefined;
    return new Promise<void>((resolve) => {
      this.#gathering = { timer: setTimeout(() => this.#stopGathering(), left), resolve };
    });
  }

  #stopGathering(): void {
    const gathering = this.#gathering;
    this.#gathering = undefined;
    if (!gathering) return;
    clearTimeout(gathering.timer);
    gathering.resolve();
  }

  #full(): boolean {
    if (this.#queue.length >= this.limits.maxTables) return true;
    let rows = 0;
    for (const item of this.#queue) rows += item.part.rows.length;
    return rows >= this.limits.maxRows;
  }

  /** The next batch, in the order handed over: a part whose table is in the batch already waits for the next one. */
  #next(): Pending[] {
    const batch: Pending[] = [];
    const tables = new Set<string>();
    let rows = 0;
    for (let i = 0; i < this.#queue.length && batch.length < this.limits.maxTables; ) {
      const item = this.#queue[i]!;
      const full = batch.length > 0 && rows + item.part.rows.length > this.limits.maxRows;
      if (full) break;
      if (item.tables.some((t) => tables.has(t))) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      batch.push(item);
      rows += item.part.rows.length;
      for (const t of item.tables) tables.add(t);
    }
    return batch;
  }
}

function tablesOf(part: TableResults): string[] {
  const tables = new Set<string>();
  let last: TableResults['rows'][number] | undefined;
  for (const row of part.rows) {
    // rows come table by table: a row of the previous row's table adds nothing
    if (last && last.tableName === row.tableName && last.schemaName === row.schemaName && last.connectionName === row.connectionName) continue;
    tables.add(JSON.stringify([row.connectionName, row.schemaName, row.tableName]));
    last = row;
  }
  return [...tables];
}
