import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { contentHashOfJson } from '../diff/contentHash.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import type { Diagnostic, ObjectKind } from '../model/index.js';
import type { VariableScope } from './environmentVariables.js';
import { parseObjectFile, type ObjectFileItem } from './objectFile.js';
import type { ParsedFile } from './parsedFile.js';
import { sha256 } from './persistedParseCache.js';
import type { DocumentSemantics } from './semanticChecks.js';
import type { RepositorySettings } from './settings.js';
import { locatorOf } from './yamlDocument.js';

/**
 * Worker threads that parse a share of the object files of a cold (or partly cold) load: YAML, envelope,
 * variables, schema, the document's part of the semantic checks, and, when the load keeps them, the normalized
 * spec and its hash (parseJobResult). The loading thread still reads every file, answers what the parse cache
 * holds, parses the files the workers have no room for, and runs every check across files; a worker sends back
 * only what the loading thread needs of a file (its findings, the compact facts of DocumentSemantics, the spec for
 * the cache), never its document, and a file parsed by a worker gives the same entry as one parsed here.
 *
 * A worker that fails (its script cannot load, it throws, it exits) is given no more files, and the files it held
 * are parsed by the loading thread: the load's answer is the same, only slower.
 *
 * How many: DQCTL_PARSE_WORKERS (`off` or 0: none; N: N), else one fewer than the cores (at most MAX_WORKERS),
 * and only when at least MIN_FILES files are to be parsed (starting a worker costs about what parsing a hundred
 * files does).
 */
export interface ParseWorkerOptions {
  /** Worker threads to start (0: none); default DQCTL_PARSE_WORKERS, else availableParallelism() - 1, at most MAX_WORKERS. */
  count?: number;
  /** Start workers only when at least this many files are to be parsed (default MIN_FILES). */
  minFiles?: number;
  /** The worker's entry (tests: a worker that fails); default parseWorker.js beside this module. */
  script?: URL;
  /** Told, when the load's workers end, how many files they parsed and why any failed (tests, benchmarks). */
  onClose?: (stats: ParseWorkers['stats']) => void;
}

const MAX_WORKERS = 4;
const MIN_FILES = 400;
/** Files a message holds, and files a worker may hold at once (sent and not answered, or waiting to be sent). */
const BATCH = 32;
const CAPACITY = 8 * BATCH;

/** What a worker is started with: the environment its `${var.…}` are replaced from (VariableScope). */
export interface ParseWorkerData {
  environment: string | null;
  environments: RepositorySettings['environments'];
}

/** One file to parse: its path, kind and name, its text, and whether its normalized spec (and hash) is wanted. */
export interface ParseJob extends ObjectFileItem {
  text: string;
  spec: boolean;
  /** contentHash(spec, {}): only for a file without attachments (a rule's module, a sensor's files). */
  hash: boolean;
}

/** What a worker sends back of one file (see parsedFileOf). */
export interface ParseResult {
  diagnostics: Diagnostic[];
  sha: string;
  variables?: { names: string[]; key: string };
  loaded?: { kind: ObjectKind; name: string; connection?: string; semantics: DocumentSemantics };
  /** JSON.stringify of the normalized spec: a string crosses threads as a copy of its bytes, an object node by node. */
  specJson?: string;
  hash?: string;
}

export interface ParseRequest {
  id: number;
  jobs: ParseJob[];
}

/** The settings of a worker started early (ParseWorkers.early), sent before its first files. */
export interface ParseConfigure {
  configure: ParseWorkerData;
}

export type ParseReply = { id: number; results: ParseResult[]; error?: undefined } | { id: number; error: string; results?: undefined };

/** What a worker does with one file: parseObjectFile, and what of it the loading thread needs. */
export function parseJobResult(job: ParseJob, scope: VariableScope): ParseResult {
  const parsed = parseObjectFile(job, job.text, scope);
  const result: ParseResult = { diagnostics: parsed.diagnostics, sha: sha256(job.text) };
  if (parsed.variables) result.variables = parsed.variables;
  if (parsed.loaded && parsed.rawSpec) {
    const { kind, name, connection, semantics } = parsed.loaded;
    result.loaded = { kind, name, ...(connection !== undefined ? { connection } : {}), semantics };
    if (job.spec) {
      result.specJson = JSON.stringify(normalizeSpec(kind, parsed.rawSpec));
      if (job.hash) result.hash = contentHashOfJson(result.specJson, {});
    }
  }
  return result;
}

/**
 * The entry of a file a worker parsed, as the loading thread keeps it: its text (read here), findings, sha256,
 * and its identity, semantics and a locator of its positions when it loaded (as an entry restored from the
 * persisted cache: no document; the spec and hash stay with the caller until the load asks for them).
 */
export function parsedFileOf(path: string, text: string, result: ParseResult): Omit<ParsedFile, 'version'> {
  const entry: Omit<ParsedFile, 'version'> = { text, diagnostics: result.diagnostics, variables: result.variables, sha: result.sha };
  if (result.loaded) {
    const { kind, name, connection, semantics } = result.loaded;
    entry.loaded = { kind, name, connection, file: path, locate: locatorOf(path, text), semantics };
  }
  return entry;
}

/** How many files to parse make a load start workers (ParseWorkerOptions.minFiles, else MIN_FILES). */
export function parseWorkerThreshold(options: ParseWorkerOptions = {}): number {
  return options.minFiles ?? MIN_FILES;
}

/** How many workers a load of `files` files to parse starts (0: none). */
export function parseWorkerCount(files: number, options: ParseWorkerOptions = {}, env: NodeJS.ProcessEnv = process.env): number {
  if (files < parseWorkerThreshold(options)) return 0;
  if (options.count !== undefined) return Math.max(0, Math.floor(options.count));
  const setting = env.DQCTL_PARSE_WORKERS?.trim();
  if (setting === 'off') return 0;
  if (setting && /^\d+$/.test(setting)) return Math.min(Number(setting), 64);
  return Math.max(0, Math.min(availableParallelism() - 1, MAX_WORKERS));
}

interface Pending {
  jobs: ParseJob[];
  answers: Array<(result: ParseResult | null) => void>;
}

interface Slot {
  worker: Worker;
  /** Jobs waiting to be sent (the next message). */
  batch: Pending;
  /** Messages sent and not answered. */
  sent: Map<number, Pending>;
  held: number;
  failed: boolean;
}

/** A pool of parse workers for one load (see above); close() ends them. */
export class ParseWorkers {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private flushScheduled = false;
  /** Files the workers parsed, files given back (a failed worker's), why workers failed, and whether they started early. */
  readonly stats = { workers: 0, parsed: 0, returned: 0, failures: [] as string[], startedEarly: false };
  private onClose: ParseWorkerOptions['onClose'];

  private constructor(count: number, data: ParseWorkerData | null, script: URL) {
    for (let i = 0; i < count; i++) this.slots.push(this.startSlot(data, script));
    this.stats.workers = count;
  }

  /**
   * Workers for a load that parses `files` files (null: too few files, or workers turned off). `started`: the
   * workers `early` started for this load, configured and used when the load still wants workers, else ended.
   */
  static async forLoad(files: number, data: ParseWorkerData, options: ParseWorkerOptions = {}, started: ParseWorkers | null = null): Promise<ParseWorkers | null> {
    const count = parseWorkerCount(files, options);
    if (started && count > 0) {
      for (const slot of started.slots) {
        if (!slot.failed) slot.worker.postMessage({ configure: data } satisfies ParseConfigure);
        slot.worker.ref();
      }
      return started;
    }
    await started?.close();
    if (count === 0) return null;
    const workers = new ParseWorkers(count, data, options.script ?? defaultScript());
    workers.onClose = options.onClose;
    return workers;
  }

  /**
   * Workers started before the load knows its settings (while the files are still being listed, once `files`
   * files are known to need a parse), so that loading their modules (~0.3 s of CPU, the schema validators) overlaps
   * the listing; forLoad configures them. Unreferenced until then: a load that fails before forLoad does not keep
   * the process alive (its `finally` still ends them).
   */
  static early(files: number, options: ParseWorkerOptions = {}): ParseWorkers | null {
    const count = parseWorkerCount(files, options);
    if (count === 0) return null;
    const workers = new ParseWorkers(count, null, options.script ?? defaultScript());
    workers.onClose = options.onClose;
    workers.stats.startedEarly = true;
    for (const slot of workers.slots) slot.worker.unref();
    return workers;
  }

  /** How many files the workers may hold at once (the loading thread keeps this many more files in flight). */
  get capacity(): number {
    return this.slots.length * CAPACITY;
  }

  /**
   * The result of parsing `job` in a worker, or null: no worker has room (or none is left), or the worker holding
   * it failed. On null the caller parses the file itself.
   */
  parse(job: ParseJob): Promise<ParseResult | null> | null {
    let slot: Slot | undefined;
    for (const s of this.slots) if (!s.failed && s.held < CAPACITY && (!slot || s.held < slot.held)) slot = s;
    if (!slot) return null;
    const target = slot;
    target.held++;
    return new Promise((resolve) => {
      target.batch.jobs.push(job);
      target.batch.answers.push(resolve);
      if (target.batch.jobs.length >= BATCH) this.send(target);
      else this.scheduleFlush();
    });
  }

  /** Ends the workers (files still held are given back: their promises answer null). */
  async close(): Promise<void> {
    const slots = this.slots.splice(0);
    for (const slot of slots) this.fail(slot, null);
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)));
    this.onClose?.(this.stats);
  }

  private startSlot(data: ParseWorkerData | null, script: URL): Slot {
    const worker = new Worker(script, { workerData: data, stdout: false, stderr: false });
    const slot: Slot = { worker, batch: { jobs: [], answers: [] }, sent: new Map(), held: 0, failed: false };
    worker.on('message', (reply: ParseReply) => this.answer(slot, reply));
    worker.on('error', (error) => this.fail(slot, `parse worker failed: ${error instanceof Error ? error.message : String(error)}`));
    worker.on('messageerror', (error) => this.fail(slot, `parse worker sent a message that cannot be read: ${error.message}`));
    worker.on('exit', (code) => this.fail(slot, `parse worker exited (code ${code})`));
    return slot;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      for (const slot of this.slots) if (!slot.failed && slot.batch.jobs.length > 0) this.send(slot);
    });
  }

  private send(slot: Slot): void {
    const pending = slot.batch;
    slot.batch = { jobs: [], answers: [] };
    const id = this.nextId++;
    slot.sent.set(id, pending);
    try {
      slot.worker.postMessage({ id, jobs: pending.jobs } satisfies ParseRequest);
    } catch (error) {
      this.fail(slot, `parse worker could not be sent its files: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private answer(slot: Slot, reply: ParseReply): void {
    const pending = slot.sent.get(reply?.id);
    if (!pending) return;
    slot.sent.delete(reply.id);
    slot.held -= pending.jobs.length;
    const results = reply.results;
    if (!Array.isArray(results) || results.length !== pending.jobs.length) {
      // a batch the worker could not parse: the loading thread parses it, and meets the same error where it would
      this.stats.returned += pending.jobs.length;
      for (const answer of pending.answers) answer(null);
      return;
    }
    this.stats.parsed += pending.jobs.length;
    pending.answers.forEach((answer, i) => answer(results[i]));
  }

  /** The worker of `slot` takes no more files; the files it held are given back (`why`: null when closing). */
  private fail(slot: Slot, why: string | null): void {
    if (!slot.failed && why !== null) {
      // the answer stays the same (this thread parses the files), but say why the load took longer than it should
      if (this.stats.failures.length === 0) process.emitWarning(`${why}; its files are parsed by the main thread`, { code: 'DQCTL_PARSE_WORKER' });
      this.stats.failures.push(why);
    }
    slot.failed = true;
    const held = [...slot.sent.values(), slot.batch];
    slot.sent.clear();
    slot.batch = { jobs: [], answers: [] };
    slot.held = 0;
    for (const pending of held) {
      if (why !== null) this.stats.returned += pending.jobs.length;
      for (const answer of pending.answers) answer(null);
    }
  }
}

/**
 * The worker's entry beside this module: dist/manifest/parseWorker.js after tsc, dist/bundle/parseWorker.js in the
 * CLI's bundle (scripts/bundle-cli.mjs makes it an entry of its own), and under tsx or vitest (this module is
 * src/manifest/parseWorkers.ts) parseWorker.ts, loaded through tsx's tsImport, as Node.js cannot load TypeScript.
 */
function defaultScript(): URL {
  const here = import.meta.url;
  const compiled = new URL('./parseWorker.js', here);
  if (!here.endsWith('.ts') && existsSync(fileURLToPath(compiled))) return compiled;
  const source = new URL('./parseWorker.ts', here);
  const tsxPackage = createRequire(here).resolve('tsx/package.json');
  const api = pathToFileURL(join(dirname(tsxPackage), 'dist', 'esm', 'api', 'index.mjs')).href;
  const code = `const { tsImport } = await import(${JSON.stringify(api)});\nawait tsImport(${JSON.stringify(source.href)}, ${JSON.stringify(api)});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
