/**
 * Runs custom Python rules as DQOps does: `evaluate_rule(rule_parameters)` of the rule's module, in long-running
 * `python3` worker processes (python/dqctl_rule_worker.py, JSON lines) that are started on the first call and
 * reused. A module is sent to a worker once per version (its source's hash), so a changed `.py` is reloaded.
 * Every call has a time limit: a worker that passes it is killed (its call and the rest of that request fail)
 * and the next request starts a fresh one. What a rule does wrong (raises, prints, returns nonsense, hangs,
 * kills its interpreter) is the failed outcome of that call, never an exception of the caller.
 * Idle workers do not keep the Node.js process alive; `close()` ends them at once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PACKAGE_ROOT } from '../catalog/packagePaths.js';
import { parseDuration, type JsonObject } from '../model/index.js';

/** One custom rule module: its name (`myrules/my_rule`, the path under rules/ without `.py`) and its Python source. */
export interface RuleModule {
  name: string;
  source: string;
}

/** The answer of one call: what `evaluate_rule` returned (checked), or why there is none. */
export type RuleCallOutcome = { result: PythonRuleResult } | { error: string };

/** A rendered template, or why it could not be rendered. */
export type TemplateRenderOutcome = { sql: string } | { error: string };

/** DQOps's RuleExecutionResult: passed null means the rule gave no verdict. Numbers are finite when present. */
export interface PythonRuleResult {
  passed: boolean | null;
  expected_value?: number;
  lower_bound?: number;
  upper_bound?: number;
  new_actual_value?: number;
}

export interface PythonRuleRunnerOptions {
  /** The interpreter; default `python3` (DQCTL_PYTHON). */
  python?: string;
  /** Time limit of one call in ms; default 120 s as DQOps (DQCTL_RULE_TIMEOUT). */
  callTimeoutMs?: number;
  /** A DQOps home added to the module path, so rules can import its `lib` (DQCTL_DQO_HOME). */
  dqoHome?: string;
  /** How many workers run at once; default 2. */
  workers?: number;
}

export const DEFAULT_RULE_TIMEOUT_MS = 120_000;
export const WORKER_SCRIPT = join(PACKAGE_ROOT, 'python', 'dqctl_rule_worker.py');

/** The options the environment sets: DQCTL_PYTHON, DQCTL_RULE_TIMEOUT (a duration), DQCTL_DQO_HOME. */
export function pythonRuleOptionsFromEnvironment(env: NodeJS.ProcessEnv = process.env): PythonRuleRunnerOptions {
  const options: PythonRuleRunnerOptions = {};
  if (env.DQCTL_PYTHON) options.python = env.DQCTL_PYTHON;
  if (env.DQCTL_RULE_TIMEOUT) options.callTimeoutMs = parseDuration(env.DQCTL_RULE_TIMEOUT, 'DQCTL_RULE_TIMEOUT');
  if (env.DQCTL_DQO_HOME) options.dqoHome = env.DQCTL_DQO_HOME;
  return options;
}

interface Pending {
  id: number;
  outcomes: RuleCallOutcome[];
  count: number;
  resolve: (outcomes: RuleCallOutcome[]) => void;
  timer?: NodeJS.Timeout;
}

/** One python3 process and what it has loaded. */
class Worker {
  readonly process: ChildProcessWithoutNullStreams;
  /** Module name → loaded version. */
  readonly versions = new Map<string, string>();
  pending: Pending | undefined;
  /** Ended, or being killed: never given another request. */
  dead = false;
  private stderr = '';

  constructor(python: string, dqoHome: string | undefined, private readonly timeoutMs: number, onExit: (worker: Worker) => void) {
    const args = [WORKER_SCRIPT, ...(dqoHome ? [dqoHome] : [])];
    this.process = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' } });
    this.process.stdin.on('error', () => undefined); // a dead worker's pipe: its exit handler fails the call
    const lines = createInterface({ input: this.process.stdout });
    lines.on('line', (line) => this.onLine(line));
    this.process.stderr.on('data', (chunk: Buffer) => {
      // output outside Python's sys.stdout/sys.stderr (C code, the interpreter itself) fails the call it came with
      this.stderr += chunk.toString('utf8');
      if (this.stderr.length > 4000) this.stderr = this.stderr.slice(-4000);
    });
    let ended = false;
    const exited = (reason: string) => {
      if (ended) return;
      ended = true;
      this.dead = true;
      this.fail(reason);
      onExit(this);
    };
    this.process.on('error', (error) => exited(`cannot start the Python interpreter ${JSON.stringify(python)} (set DQCTL_PYTHON): ${error.message}`));
    this.process.on('exit', (code, signal) => exited(`the Python worker ended (${signal ?? `exit code ${code}`})${this.stderr ? `: ${this.stderr.trim()}` : ''}`));
    this.idle();
  }

  send(request: JsonObject, count: number): Promise<RuleCallOutcome[]> {
    return new Promise((resolve) => {
      const pending: Pending = { id: request.id as number, outcomes: [], count, resolve };
      this.pending = pending;
      this.busy();
      this.stderr = '';
      this.arm();
      this.process.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  kill(): void {
    this.dead = true;
    this.process.kill('SIGKILL');
  }

  private arm(): void {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => {
      this.dead = true;
      this.fail(`the rule did not answer within ${this.timeoutMs / 1000} s (DQCTL_RULE_TIMEOUT); its worker was stopped`);
      this.kill();
    }, this.timeoutMs);
  }

  private onLine(line: string): void {
    const pending = this.pending;
    if (!pending) return;
    let message: { id?: number; index?: number; result?: PythonRuleResult; error?: string };
    try {
      message = JSON.parse(line);
    } catch {
      this.dead = true;
      this.fail(`the Python worker wrote something that is not its protocol: ${line.slice(0, 200)}`);
      this.kill();
      return;
    }
    if (message.id !== pending.id) return;
    const printed = this.stderr.trim();
    this.stderr = '';
    if (printed) pending.outcomes.push({ error: `the rule wrote to stderr (a rule must not print): ${printed.slice(0, 2000)}` });
    else if (typeof message.error === 'string') pending.outcomes.push({ error: message.error });
    else if (message.result && typeof message.result === 'object') pending.outcomes.push({ result: message.result });
    else pending.outcomes.push({ error: 'the Python worker answered neither a result nor an error' });
    if (pending.outcomes.length >= pending.count) this.finish();
    else this.arm();
  }

  /** Fails the current call and every later one of its request. */
  private fail(reason: string): void {
    const pending = this.pending;
    if (!pending) return;
    const first = pending.outcomes.length;
    for (let index = first; index < pending.count; index++) {
      pending.outcomes.push({ error: index === first ? reason : `not run: an earlier call of this rule failed its worker (${reason})` });
    }
    this.finish();
  }

  private finish(): void {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = undefined;
    if (!this.dead) this.idle();
    pending.resolve(pending.outcomes);
  }

  private busy(): void {
    this.process.ref();
    for (const stream of [this.process.stdout, this.process.stderr, this.process.stdin]) (stream as unknown as { ref?: () => void }).ref?.();
  }

  private idle(): void {
    this.process.unref();
    for (const stream of [this.process.stdout, this.process.stderr, this.process.stdin]) (stream as unknown as { unref?: () => void }).unref?.();
  }
}

export class PythonRuleRunner {
  private readonly python: string;
  private readonly timeoutMs: number;
  private readonly maxWorkers: number;
  private readonly workers: Worker[] = [];
  private readonly waiting: Array<(worker: Worker) => void> = [];
  private readonly free: Worker[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers started so far (a test sees reuse and replacement). */
  started = 0;

  constructor(private readonly options: PythonRuleRunnerOptions = {}) {
    this.python = options.python ?? 'python3';
    this.timeoutMs = options.callTimeoutMs ?? DEFAULT_RULE_TIMEOUT_MS;
    this.maxWorkers = Math.max(1, options.workers ?? 2);
    if (!existsSync(WORKER_SCRIPT)) throw new Error(`dqctl: the Python rule worker is missing (${WORKER_SCRIPT})`);
  }

  /**
   * Calls `evaluate_rule` of the module once per argument object, in order, on one worker. Never rejects: each
   * call answers its result or its error.
   */
  async evaluate(module: RuleModule, calls: readonly JsonObject[]): Promise<RuleCallOutcome[]> {
    if (calls.length === 0) return [];
    if (this.closed) return calls.map(() => ({ error: 'the Python rule runner is closed' }));
    const worker = await this.acquire();
    try {
      const version = createHash('sha256').update(module.source).digest('hex');
      const known = worker.versions.get(module.name) === version;
      const request: JsonObject = { id: this.nextId++, rule: module.name, version, calls: [...calls] };
      if (!known) request.source = module.source;
      const outcomes = await worker.send(request, calls.length);
      if (!worker.dead && !known) worker.versions.set(module.name, version);
      return outcomes;
    } finally {
      this.release(worker);
    }
  }

  /**
   * Renders SQL templates with Jinja2 (custom sensors): `templates` maps template names to their sources, each
   * item names the template to render and its variables. One worker renders them all, under the same time limit
   * per item as a rule's call. Never rejects: each item answers its SQL or its error.
   */
  async render(templates: Readonly<Record<string, string>>, items: ReadonlyArray<{ template: string; context: JsonObject }>): Promise<TemplateRenderOutcome[]> {
    if (items.length === 0) return [];
    if (this.closed) return items.map(() => ({ error: 'the Python runner is closed' }));
    const worker = await this.acquire();
    try {
      const outcomes = await worker.send({ id: this.nextId++, templates: { ...templates }, items: items.map((i) => ({ template: i.template, context: i.context })) }, items.length);
      return outcomes.map((outcome) => {
        if ('error' in outcome) return outcome;
        const sql = (outcome.result as unknown as { sql?: unknown }).sql;
        return typeof sql === 'string' ? { sql } : { error: 'the template renderer answered no SQL' };
      });
    } finally {
      this.release(worker);
    }
  }

  /**
   * Starts a worker now, without waiting for it, so that the interpreter's start (0.1 to 0.5 s) overlaps the
   * data source's queries of a run that will need it.
   */
  warmUp(): void {
    if (!this.closed && this.workers.length === 0) this.free.push(this.start());
  }

  /** Ends every worker; later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const worker of [...this.workers]) worker.kill();
    this.workers.length = 0;
    this.free.length = 0;
  }

  private acquire(): Promise<Worker> {
    const worker = this.free.pop();
    if (worker) return Promise.resolve(worker);
    if (this.workers.length < this.maxWorkers) return Promise.resolve(this.start());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(worker: Worker): void {
    const usable = worker.dead ? (this.closed ? undefined : this.replacement(worker)) : worker;
    if (!usable) return;
    const next = this.waiting.shift();
    if (next) next(usable);
    else this.free.push(usable);
  }

  /** A dead worker's place: a new worker only when someone waits (otherwise the next acquire starts one). */
  private replacement(dead: Worker): Worker | undefined {
    this.drop(dead);
    return this.waiting.length > 0 ? this.start() : undefined;
  }

  private start(): Worker {
    this.started++;
    const worker = new Worker(this.python, this.options.dqoHome, this.timeoutMs, (ended) => this.drop(ended));
    this.workers.push(worker);
    return worker;
  }

  private drop(worker: Worker): void {
    const at = this.workers.indexOf(worker);
    if (at >= 0) this.workers.splice(at, 1);
    const free = this.free.indexOf(worker);
    if (free >= 0) this.free.splice(free, 1);
  }
}
