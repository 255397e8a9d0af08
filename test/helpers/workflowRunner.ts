import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * Runs the `run:` steps of a GitHub Actions workflow job on this machine, in order, the way a runner does:
 * `bash --noprofile --norc -eo pipefail`, workflow + job + step `env` (with `${{ }}` expressions evaluated),
 * GitHub's default variables, a fresh $GITHUB_OUTPUT file per step whose `key=value` lines become
 * `steps.<id>.outputs`, one $GITHUB_STEP_SUMMARY file, `if:` conditions (default `success()`) and
 * `continue-on-error`. A `uses:` step runs the handler the caller gives for that action (a local stand-in for
 * GitHub's side, e.g. an artifact download), and a `uses:` step without one fails the run: every step of an
 * example is either executed or explicitly accounted for by the test.
 */
export interface WorkflowStep {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  'continue-on-error'?: boolean;
}

interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, { env?: Record<string, string>; steps: WorkflowStep[] }>;
}

export type Outcome = 'success' | 'failure' | 'skipped';

export interface StepRecord {
  label: string;
  kind: 'run' | 'uses';
  outcome: Outcome;
  /** `run` steps: what the script wrote. */
  stdout?: string;
  stderr?: string;
  code?: number;
}

export interface UsesHandler {
  /** Why this step is not executed as GitHub would (it needs GitHub itself), shown in the test. */
  reason: string;
  /** The stand-in; returns the step's outputs. Throwing makes the step fail. */
  run?: (step: WorkflowStep, context: ExpressionContext) => Promise<Record<string, string> | void>;
}

export interface ExpressionContext {
  github: Record<string, unknown>;
  secrets: Record<string, string>;
  steps: Record<string, { outcome: Outcome; conclusion: Outcome; outputs: Record<string, string> }>;
  env: Record<string, string>;
  job: { status: 'success' | 'failure' };
}

export interface RunJobOptions {
  workflowFile: string;
  job: string;
  /** The working copy ($GITHUB_WORKSPACE); steps run in it. */
  workspace: string;
  /** The `github` context: event_name, base_ref, actor, ... */
  github: Record<string, unknown>;
  secrets: Record<string, string>;
  /** Handlers of `uses:` steps by action name without the ref (e.g. `actions/checkout`). */
  uses: Record<string, UsesHandler>;
  /** Extra environment of every step, e.g. PATH with dqctl on it. */
  env?: NodeJS.ProcessEnv;
}

export interface JobResult {
  status: 'success' | 'failure';
  steps: StepRecord[];
  summary: string;
  context: ExpressionContext;
}

export async function loadWorkflow(file: string): Promise<Workflow> {
  return parse(await readFile(file, 'utf8')) as Workflow;
}

export async function runJob(options: RunJobOptions): Promise<JobResult> {
  const workflow = await loadWorkflow(options.workflowFile);
  const job = workflow.jobs[options.job];
  if (!job) throw new Error(`no job ${options.job} in ${options.workflowFile}`);
  const runnerDir = await mkdtemp(join(tmpdir(), 'dqctl-runner-'));
  const summaryFile = join(runnerDir, 'step_summary.md');
  await writeFile(summaryFile, '');
  const context: ExpressionContext = { github: options.github, secrets: options.secrets, steps: {}, env: {}, job: { status: 'success' } };
  context.env = { ...evaluateEnv(workflow.env, context), ...evaluateEnv(job.env, context) };
  const records: StepRecord[] = [];

  for (const [index, step] of job.steps.entries()) {
    const label = step.name ?? step.id ?? step.uses ?? `step ${index + 1}`;
    const stepContext = { ...context, env: { ...context.env, ...evaluateEnv(step.env, { ...context }) } };
    const condition = step.if ?? 'success()';
    if (!truthy(evaluate(condition, stepContext))) {
      records.push({ label, kind: step.run !== undefined ? 'run' : 'uses', outcome: 'skipped' });
      if (step.id) context.steps[step.id] = { outcome: 'skipped', conclusion: 'skipped', outputs: {} };
      continue;
    }
    let outcome: Outcome;
    let outputs: Record<string, string> = {};
    if (step.run !== undefined) {
      const outputFile = join(runnerDir, `output_${index}`);
      await writeFile(outputFile, '');
      const script = join(runnerDir, `step_${index}.sh`);
      await writeFile(script, interpolate(step.run, stepContext));
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...options.env,
        ...githubVariables(options, runnerDir),
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        ...stepContext.env,
      };
      const result = await runBash(script, options.workspace, env);
      outcome = result.code === 0 ? 'success' : 'failure';
      outputs = parseOutputs(await readFile(outputFile, 'utf8'));
      records.push({ label, kind: 'run', outcome, ...result });
    } else {
      const action = (step.uses ?? '').split('@')[0];
      const handler = options.uses[action];
      if (!handler) throw new Error(`the step "${label}" uses ${step.uses}, which the test neither runs nor lists with a reason`);
      try {
        const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, typeof v === 'string' ? interpolate(v, stepContext) : v]));
        outputs = (await handler.run?.({ ...step, with: inputs }, stepContext)) ?? {};
        outcome = 'success';
      } catch {
        outcome = 'failure';
      }
      records.push({ label, kind: 'uses', outcome });
    }
    const conclusion: Outcome = outcome === 'failure' && step['continue-on-error'] ? 'success' : outcome;
    if (step.id) context.steps[step.id] = { outcome, conclusion, outputs };
    if (conclusion === 'failure') context.job.status = 'failure';
  }
  return { status: context.job.status, steps: records, summary: await readFile(summaryFile, 'utf8'), context };
}

function githubVariables(options: RunJobOptions, runnerDir: string): Record<string, string> {
  const g = options.github;
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
  return {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_EVENT_NAME: text(g.event_name),
    GITHUB_BASE_REF: text(g.base_ref),
    GITHUB_HEAD_REF: text(g.head_ref),
    GITHUB_REF: text(g.ref),
    GITHUB_REF_NAME: text(g.ref_name),
    GITHUB_SHA: text(g.sha),
    GITHUB_REPOSITORY: text(g.repository),
    GITHUB_ACTOR: text(g.actor),
    GITHUB_WORKFLOW: text(g.workflow),
    GITHUB_RUN_ID: text(g.run_id),
    GITHUB_RUN_NUMBER: '1',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    RUNNER_TEMP: runnerDir,
    RUNNER_OS: 'Linux',
  };
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** `key=value` lines and `key<<DELIMITER` … `DELIMITER` blocks, as GitHub reads $GITHUB_OUTPUT. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]);
      outputs[heredoc[1]] = body.join('\n');
      continue;
    }
    const eq = lines[i].indexOf('=');
    if (eq > 0) outputs[lines[i].slice(0, eq)] = lines[i].slice(eq + 1);
  }
  return outputs;
}

function evaluateEnv(env: Record<string, string> | undefined, context: ExpressionContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env ?? {})) out[key] = interpolate(String(value), context);
  return out;
}

export function interpolate(text: string, context: ExpressionContext): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => toText(evaluate(expression, context)));
}

function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function truthy(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== '' && value !== 0;
}

/**
 * The subset of GitHub's expression language the examples use: context paths (`steps.x.outputs.y`), string
 * literals, `==`, `!=`, `&&`, `||`, `!`, parentheses and the status functions. Comparisons of strings ignore
 * case, as GitHub's do.
 */
export function evaluate(expression: string, context: ExpressionContext): unknown {
  const tokens = expression.match(/'(?:[^']|'')*'|==|!=|&&|\|\||!|\(|\)|[A-Za-z_][\w.-]*(?:\(\))?|\d+/g) ?? [];
  let position = 0;
  const peek = () => tokens[position];
  const next = () => tokens[position++];

  const primary = (): unknown => {
    const token = next();
    if (token === undefined) throw new Error(`unexpected end of expression: ${expression}`);
    if (token === '(') {
      const value = or();
      if (next() !== ')') throw new Error(`missing ) in ${expression}`);
      return value;
    }
    if (token === '!') return !truthy(primary());
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (/^\d+$/.test(token)) return Number(token);
    if (token === 'true' || token === 'false') return token === 'true';
    if (token === 'success()') return context.job.status === 'success';
    if (token === 'failure()') return context.job.status === 'failure';
    if (token === 'always()') return true;
    if (token === 'cancelled()') return false;
    return lookup(token, context);
  };
  const equal = (a: unknown, b: unknown) =>
    typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : toText(a) === toText(b) || a === b;
  const comparison = (): unknown => {
    let left = primary();
    while (peek() === '==' || peek() === '!=') {
      const operator = next();
      const right = primary();
      left = operator === '==' ? equal(left, right) : !equal(left, right);
    }
    return left;
  };
  const and = (): unknown => {
    let left = comparison();
    while (peek() === '&&') {
      next();
      const right = comparison();
      left = truthy(left) ? right : left;
    }
    return left;
  };
  const or = (): unknown => {
    let left = and();
    while (peek() === '||') {
      next();
      const right = and();
      left = truthy(left) ? left : right;
    }
    return left;
  };
  const value = or();
  if (position !== tokens.length) throw new Error(`cannot evaluate ${expression}`);
  return value;
}

function lookup(path: string, context: ExpressionContext): unknown {
  let value: unknown = context;
  for (const part of path.split('.')) {
    if (value === undefined || value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? '';
}
