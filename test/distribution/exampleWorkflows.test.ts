import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, EXAMPLE, runCli } from '../helpers/cli.js';
import { addEnvironments, ORDERS_FILE, replaceLine } from '../helpers/environments.js';
import { git } from '../helpers/gitRepo.js';
import { loadWorkflow, runJob, type ExpressionContext, type JobResult, type UsesHandler, type WorkflowStep } from '../helpers/workflowRunner.js';

/**
 * The example workflows of examples/github-actions, executed as written: every `run:` step, in order, in a
 * temporary git repository (a bare "origin", a base branch `main`, a pull-request branch), against a real
 * `dqctl serve` with tokens. `uses:` steps are GitHub's side; each is listed below with what stands in for it:
 * - actions/checkout: the test prepares the working copy (a full clone, so origin/main exists, as
 *   `fetch-depth: 0` gives); the test checks that the example asks for fetch-depth 0.
 * - actions/setup-node: this machine's Node 20.
 * - dqctl/dqctl (this repository's action.yml): this checkout's bin/dqctl.js put on PATH; the action's install
 *   script itself is run by packTarball.test.ts; the test checks the example pins the package's version tag.
 * - actions/github-script: its script runs in Node with a stand-in for GitHub's REST client that records the
 *   calls (the pull-request comment) and answers the lookups of the apply workflow.
 * - actions/upload-artifact, actions/download-artifact: a folder stands in for the run's artifacts.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const EXAMPLES = join(ROOT, 'examples/github-actions');
const PR_WORKFLOW = join(EXAMPLES, 'dqctl-pr.yml');
const APPLY_WORKFLOW = join(EXAMPLES, 'dqctl-apply.yml');
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'dqctl test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'dqctl test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** What the stand-in GitHub API was asked, and what it answers to the apply workflow's lookups. */
interface GitHubStandIn {
  comments: { issue_number: number; body: string }[];
  /** The pull request merged in the pushed commit, and its successful plan run, if any. */
  mergedPull?: { number: number; headSha: string; runId: number };
}

/** actions/github-script: the step's `script` as an async function of github, context, core and require. */
async function runGithubScript(step: WorkflowStep, context: ExpressionContext, gh: GitHubStandIn, workspace: string): Promise<Record<string, string>> {
  const script = String(step.with?.script);
  const [owner, repo] = String(context.github.repository).split('/');
  const octokit = {
    paginate: async () => gh.comments.map((c, i) => ({ id: i + 1, body: c.body, user: { type: 'Bot' } })),
    rest: {
      issues: {
        listComments: async () => ({ data: [] }),
        createComment: async (params: { issue_number: number; body: string }) => void gh.comments.push(params),
        updateComment: async (params: { comment_id: number; body: string }) => void (gh.comments[params.comment_id - 1].body = params.body),
      },
      repos: {
        listPullRequestsAssociatedWithCommit: async () => ({
          data: gh.mergedPull ? [{ number: gh.mergedPull.number, merged_at: '2026-01-01T00:00:00Z', base: { ref: 'main' }, head: { sha: gh.mergedPull.headSha } }] : [],
        }),
      },
      actions: {
        listWorkflowRuns: async () => ({
          data: { workflow_runs: gh.mergedPull ? [{ id: gh.mergedPull.runId, html_url: `https://github.com/${owner}/${repo}/actions/runs/${gh.mergedPull.runId}` }] : [] },
        }),
      },
    },
  };
  const event = (context.github.event ?? {}) as { pull_request?: { number: number } };
  const githubContext = {
    repo: { owner, repo },
    issue: { number: event.pull_request?.number },
    payload: event,
    sha: context.github.sha,
    runId: context.github.run_id,
    serverUrl: 'https://github.com',
  };
  const logs: string[] = [];
  const core = { info: (m: string) => logs.push(m), setFailed: (m: string) => logs.push(m) };
  const previousEnv = { ...process.env };
  const previousCwd = process.cwd();
  Object.assign(process.env, context.env);
  process.chdir(workspace); // github-script runs in $GITHUB_WORKSPACE: the script reads plan.md, diff.md
  try {
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<unknown>;
    const result = await new AsyncFunction('github', 'context', 'core', 'require', 'process', script)(
      octokit,
      githubContext,
      core,
      createRequire(import.meta.url),
      process,
    );
    return { result: result === undefined ? '' : String(result) };
  } finally {
    process.chdir(previousCwd);
    for (const key of Object.keys(process.env)) if (!(key in previousEnv)) delete process.env[key];
    Object.assign(process.env, previousEnv);
  }
}

describe('the example GitHub workflows run as written', { timeout: 300_000 }, () => {
  let dir: string;
  let work: string;
  let artifacts: string;
  let shim: string;
  let server: ChildProcess;
  let url: string;
  let version: string;
  const gh: GitHubStandIn = { comments: [] };
  const stepEnv: NodeJS.ProcessEnv = {};

  const g = (...args: string[]) => git(work, ...args);

  const handlers = (): Record<string, UsesHandler> => ({
    'actions/checkout': {
      reason: 'the test prepares the working copy',
      run: async (step) => {
        if (step.with?.['fetch-depth'] !== undefined) expect(step.with['fetch-depth']).toBe(0);
      },
    },
    'actions/setup-node': { reason: "this machine's Node 20" },
    'dqctl/dqctl': {
      reason: "this checkout's bin on PATH; the action's install script is run by packTarball.test.ts",
      run: async (step) => {
        expect(step.uses).toBe(`dqctl/dqctl@v${version}`);
        stepEnv.PATH = `${shim}:${process.env.PATH}`;
      },
    },
    'actions/github-script': { reason: 'a stand-in REST client', run: (step, context) => runGithubScript(step, context, gh, work) },
    'actions/upload-artifact': {
      reason: 'a folder stands in for the artifacts',
      run: async (step) => {
        expect(step.with?.name).toBe('dqctl-plan');
        await copyFile(join(work, String(step.with?.path)), join(artifacts, 'plan.json'));
      },
    },
    'actions/download-artifact': {
      reason: 'a folder stands in for the artifacts',
      run: async (step) => {
        expect(step.with?.name).toBe('dqctl-plan');
        expect(String(step.with?.['run-id'])).toBe(String(gh.mergedPull?.runId));
        await copyFile(join(artifacts, 'plan.json'), join(work, 'plan.json')); // throws (step fails) when there is none
      },
    },
  });

  const pullRequestRun = async (runId: number, workflowFile = PR_WORKFLOW): Promise<JobResult> => {
    const sha = (await g('rev-parse', 'HEAD')).trim();
    return runJob({
      workflowFile,
      job: 'plan',
      workspace: work,
      github: {
        event_name: 'pull_request',
        base_ref: 'main',
        head_ref: 'feature',
        ref: 'refs/pull/7/merge',
        sha,
        repository: 'acme/dq',
        actor: 'octocat',
        workflow: 'dqctl plan',
        run_id: runId,
        event: { pull_request: { number: 7, head: { sha } } },
      },
      secrets: { DQCTL_SERVER_URL: url, DQCTL_TOKEN: 'viewer-token' },
      uses: handlers(),
      env: stepEnv,
    });
  };

  const applyRun = async (eventName: 'push' | 'workflow_dispatch'): Promise<JobResult> =>
    runJob({
      workflowFile: APPLY_WORKFLOW,
      job: 'apply',
      workspace: work,
      github: {
        event_name: eventName,
        ref: 'refs/heads/main',
        ref_name: 'main',
        sha: (await g('rev-parse', 'HEAD')).trim(),
        repository: 'acme/dq',
        actor: 'octocat',
        workflow: 'dqctl apply',
        run_id: 2001,
      },
      secrets: { DQCTL_SERVER_URL: url, DQCTL_TOKEN: 'operator-token' },
      uses: handlers(),
      env: stepEnv,
    });

  const livePlan = async () => {
    const plan = await runCli(['plan', work, '--server', url, '--token', 'viewer-token', '--format', 'json'], { cwd: dir });
    expect(plan.code, plan.stderr).toBe(0);
    return JSON.parse(plan.stdout) as { summary: { add: number; change: number; destroy: number } };
  };

  beforeAll(async () => {
    version = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    dir = await mkdtemp(join(tmpdir(), 'dqctl-workflows-'));
    artifacts = join(dir, 'artifacts');
    shim = join(dir, 'shim');
    await mkdir(artifacts);
    await mkdir(shim);
    await writeFile(join(shim, 'dqctl'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    await chmod(join(shim, 'dqctl'), 0o755);
    Object.assign(stepEnv, GIT_ENV, { NO_COLOR: '1', DQCTL_DATABASE_URL: '', DQCTL_STATE_DIR: '', PATH: process.env.PATH });
    Object.assign(process.env, GIT_ENV);

    // origin (bare) and a full clone on main holding the example user home
    await git(dir, 'init', '-q', '--bare', '-b', 'main', 'origin.git');
    await git(dir, 'clone', '-q', join(dir, 'origin.git'), 'work');
    work = join(dir, 'work');
    await g('checkout', '-q', '-b', 'main');
    await (await import('node:fs/promises')).cp(EXAMPLE, work, { recursive: true });
    await g('add', '-A');
    await g('commit', '-q', '-m', 'the example shop');
    await g('push', '-q', 'origin', 'main');

    await writeFile(join(dir, 'tokens.yaml'), '- {name: reviewer, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n');
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--state-dir', join(dir, 'state'), '--tokens', join(dir, 'tokens.yaml'), '--log-level', 'warn', '--no-schedules'], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '' },
    });
    await new Promise<void>((done, fail) => {
      let err = '';
      const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 240_000);
      server.stderr!.on('data', (chunk) => {
        err += chunk;
        if (err.includes('is serving')) {
          clearTimeout(timer);
          done();
        }
      });
      server.on('exit', () => fail(new Error(`serve exited: ${err}`)));
    });
    // the live store holds main before the pull request
    const applied = await runCli(['apply', work, '--auto-approve', '--server', url, '--token', 'operator-token'], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
  }, 400_000);

  afterAll(async () => {
    // the server's embedded store writes its files as it shuts down: remove them once it has exited
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('every step of both examples is a run step or a uses step this test stands in for', async () => {
    const known = handlers();
    for (const file of [PR_WORKFLOW, APPLY_WORKFLOW]) {
      const workflow = await loadWorkflow(file);
      for (const job of Object.values(workflow.jobs)) {
        for (const step of job.steps) {
          if (step.run !== undefined) continue;
          expect(Object.keys(known), `${file}: ${step.uses}`).toContain(step.uses!.split('@')[0]);
        }
      }
    }
    expect(existsSync(join(ROOT, 'action.yml'))).toBe(true);
  });

  it('a pull request: validate, diff against origin/main, plan through the server, one comment, the plan as an artifact; then the merge applies exactly that plan', async () => {
    await g('checkout', '-q', '-b', 'feature');
    const table = join(work, 'sources/shop_oltp/public.payments.dqotable.yaml');
    await writeFile(table, (await readFile(table, 'utf8')).replace('min_count: 20000', 'min_count: 25000'));
    await g('commit', '-q', '-am', 'raise the payments volume warning');
    await g('push', '-q', 'origin', 'feature');

    const pr = await pullRequestRun(1001);
    const outcome = Object.fromEntries(pr.steps.map((s) => [s.label, s.outcome]));
    expect(outcome, JSON.stringify(pr.steps, null, 1)).toEqual({
      'actions/checkout@v4': 'success',
      'actions/setup-node@v4': 'success',
      'Install dqctl': 'success',
      Validate: 'success',
      'Diff against the base branch': 'success',
      'Plan against the live store': 'success',
      'Preview the changed checks': 'success',
      'Post or update the pull request comment': 'success',
      'Upload the plan': 'success',
      'Fail on invalid files or a refused plan': 'skipped',
    });
    expect(pr.status).toBe('success');
    expect(pr.context.steps.diff.outputs.exit).toBe('0');
    expect(pr.context.steps.plan.outputs.exit).toBe('0');
    expect(await readFile(join(work, 'diff.md'), 'utf8')).toContain('### dqctl diff: 0 added, 1 changed, 0 removed');
    expect(await readFile(join(work, 'plan.md'), 'utf8')).toContain('### dqctl plan: 0 to add, 1 to change, 0 to destroy');
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0].issue_number).toBe(7);
    expect(gh.comments[0].body).toContain('<!-- dqctl-plan -->');
    expect(gh.comments[0].body).toContain('### dqctl plan: 0 to add, 1 to change');
    expect(gh.comments[0].body).toContain('### dqctl diff: 0 added, 1 changed');
    // the preview: the raised threshold is a modified check; the PR's token is a viewer's, so it backtests only
    expect(pr.context.steps.preview.outputs.exit).toBe('0');
    expect(gh.comments[0].body).toContain('### dqctl preview: 1 check changed (0 added, 1 modified)');
    expect(gh.comments[0].body).toContain('not run: live checks need an operator token on the server (this caller is a viewer)');
    expect(gh.comments[0].body.indexOf('### dqctl plan')).toBeLessThan(gh.comments[0].body.indexOf('### dqctl preview'));
    expect(existsSync(join(artifacts, 'plan.json'))).toBe(true);

    // a second push updates the same comment
    await pullRequestRun(1002);
    expect(gh.comments).toHaveLength(1);

    // the merge (a fast-forward) applies the reviewed plan
    for (const file of ['diff.md', 'diff.err', 'plan.md', 'plan.err', 'plan.json', 'preview.md', 'preview.err']) await rm(join(work, file), { force: true });
    await g('checkout', '-q', 'main');
    await g('merge', '-q', '--ff-only', 'feature');
    await g('push', '-q', 'origin', 'main');
    gh.mergedPull = { number: 7, headSha: (await g('rev-parse', 'HEAD')).trim(), runId: 1002 };
    const merged = await applyRun('push');
    expect(merged.steps.map((s) => [s.label, s.outcome])).toEqual([
      ['actions/checkout@v4', 'success'],
      ['actions/setup-node@v4', 'success'],
      ['Install dqctl', 'success'],
      ['Find the plan of the merged pull request', 'success'],
      ['Download the plan', 'success'],
      ['Apply', 'success'],
    ]);
    expect(merged.context.steps.find.outputs.result).toBe('1002');
    expect(merged.summary).toBe('');
    expect((await livePlan()).summary).toMatchObject({ add: 0, change: 0, destroy: 0 });

    // the same plan again: the store moved since it was made, so it is refused and the summary says why
    const stale = await applyRun('push');
    expect(stale.status).toBe('failure');
    expect(stale.steps.at(-1)).toMatchObject({ label: 'Apply', outcome: 'failure' });
    expect(stale.summary).toContain('### dqctl apply: the reviewed plan was not applied');
    expect(stale.summary).toMatch(/stale/i);
    await rm(join(work, 'plan.json'), { force: true });
    await rm(join(work, 'apply.log'), { force: true });
  });

  it('by hand (workflow_dispatch): no saved plan, main is applied with --auto-approve', async () => {
    const table = join(work, 'sources/shop_oltp/public.payments.dqotable.yaml');
    await writeFile(table, (await readFile(table, 'utf8')).replace('min_count: 25000', 'min_count: 30000'));
    await g('commit', '-q', '-am', 'a direct push');
    const run = await applyRun('workflow_dispatch');
    expect(run.steps.map((s) => [s.label, s.outcome])).toEqual([
      ['actions/checkout@v4', 'success'],
      ['actions/setup-node@v4', 'success'],
      ['Install dqctl', 'success'],
      ['Find the plan of the merged pull request', 'skipped'],
      ['Download the plan', 'skipped'],
      ['Apply', 'success'],
    ]);
    expect((await livePlan()).summary).toMatchObject({ add: 0, change: 0, destroy: 0 });
  });

  it('a pull request with an invalid file: the comment is still posted, then the job fails naming validate', async () => {
    await g('checkout', '-q', '-b', 'broken');
    const table = join(work, 'sources/shop_oltp/public.payments.dqotable.yaml');
    await writeFile(table, (await readFile(table, 'utf8')).replace('min_count: 30000', 'min_cuont: 30000'));
    await g('commit', '-q', '-am', 'a typo');
    gh.comments.length = 0;
    const pr = await pullRequestRun(1003);
    const byLabel = Object.fromEntries(pr.steps.map((s) => [s.label, s]));
    expect(byLabel.Validate.outcome).toBe('failure');
    expect(byLabel.Validate.stdout).toMatch(/::error file=sources\/shop_oltp\/public\.payments\.dqotable\.yaml,line=\d+/);
    expect(byLabel['Post or update the pull request comment'].outcome).toBe('success');
    expect(gh.comments[0].body).toContain('**Validation failed**');
    expect(byLabel['Fail on invalid files or a refused plan'].outcome).toBe('failure');
    expect(byLabel['Fail on invalid files or a refused plan'].stdout).toContain('::error::validate: failure');
    expect(pr.status).toBe('failure');
  });
  it('DQCTL_ENV=prod: validate, diff, plan and preview read prod\'s values, and the comment is that environment\'s own', async () => {
    // main gains environments (prod's values are what the store holds) and the store is applied with prod
    await g('checkout', '-q', 'main');
    await addEnvironments(work);
    await g('commit', '-q', '-am', 'environments');
    await g('push', '-q', '-f', 'origin', 'main');
    const applied = await runCli(['apply', work, '--env', 'prod', '--auto-approve', '--server', url, '--token', 'operator-token'], { cwd: dir });
    expect(applied.code, applied.stderr).toBe(0);
    // a pull request changing only prod's value of a variable
    await g('checkout', '-q', '-b', 'prod-threshold');
    await replaceLine(work, 'dqctl.yaml', '        orders_min: 5000', '        orders_min: 6000');
    await g('commit', '-q', '-am', 'raise the prod threshold');
    await g('push', '-q', 'origin', 'prod-threshold');
    const workflowFile = join(dir, 'dqctl-pr-prod.yml');
    const workflow = await readFile(PR_WORKFLOW, 'utf8');
    expect(workflow).toContain("  DQCTL_ENV: ''\n");
    await writeFile(workflowFile, workflow.replace("  DQCTL_ENV: ''\n", "  DQCTL_ENV: 'prod'\n"));
    for (const file of ['diff.md', 'diff.err', 'plan.md', 'plan.err', 'plan.json', 'preview.md', 'preview.err']) await rm(join(work, file), { force: true });
    gh.comments.length = 0;

    const pr = await pullRequestRun(1004, workflowFile);
    expect(pr.status, JSON.stringify(pr.steps.filter((st) => st.outcome === 'failure'), null, 1)).toBe('success');
    const diff = await readFile(join(work, 'diff.md'), 'utf8');
    expect(diff).toContain('### dqctl diff: 0 added, 1 changed, 0 removed (environment `prod`)');
    const plan = await readFile(join(work, 'plan.md'), 'utf8');
    expect(plan).toContain('### dqctl plan: 0 to add, 1 to change, 0 to destroy');
    expect(plan).toContain('Environment: `prod`');
    expect(await readFile(join(work, 'preview.md'), 'utf8')).toContain('1 modified');
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0].body).toContain('<!-- dqctl-plan prod -->');
    expect(JSON.parse(await readFile(join(work, 'plan.json'), 'utf8')).changes.map((c: { file: string }) => c.file)).toEqual([ORDERS_FILE]);
  });
});
