import { Fragment, type ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, request, type JobEntry, type JobList, type ObjectStatusList, type Profile } from '../api';
import { Empty, ErrorBox, Name, Section, Show, Status, useLoad } from '../components/common';
import { JobButtons } from '../components/JobButtons';
import { links, type Location } from '../router';
import { formatTime } from '../words';

/** Runs listed per page (a run over many tables is one row: its tables are counted, and listed under it on demand). */
export const JOBS_PAGE_SIZE = 50;
/** A run's tables listed per page under its row. */
export const RUN_TABLES_PAGE_SIZE = 100;
const ACTIVE = ['queued', 'running', 'waiting', 'cancel_requested'];

function pageNumber(query: URLSearchParams, name: string): number {
  const page = Number(query.get(name) ?? '1');
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/** The same view with these query parameters changed (a value of null removes one). */
function jobsLink(query: URLSearchParams, changes: Record<string, string | null>): string {
  const next = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) next.delete(name);
    else next.set(name, value);
  }
  return links.jobs(Object.fromEntries(next));
}

/**
 * Queued, running and finished jobs, newest first, one page at a time (`page` in the URL). A check run over many
 * tables is one row with its tables counted by status; `run` in the URL opens its tables under it, paged too
 * (`run_page`). Refreshed every two seconds while a job on screen is active; operators start and cancel jobs.
 */
export function Jobs({ profile, location }: { profile: Profile; location: Location }) {
  const page = pageNumber(location.query, 'page');
  const run = Number(location.query.get('run')) || null;
  const [tick, setTick] = useState(0);
  const url = `/api/jobs/jobs?top_level=true&limit=${JOBS_PAGE_SIZE}&page=${page}`;
  const jobs = useLoad(`${url}#${tick}`, (signal) => get<JobList>(url, { signal }));
  const active = (jobs.data?.jobs ?? []).some((j) => ACTIVE.includes(j.status));
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => setTick((t) => t + 1), 2000);
    return () => clearTimeout(timer);
  }, [active, tick]);
  return (
    <>
      <h1>Jobs</h1>
      {profile.can_run_checks ? <StartJob profile={profile} /> : null}
      <Show loaded={jobs} what="the jobs">
        {(data) =>
          data.jobs.length === 0 && page === 1 ? (
            <Empty>
              No job has run on this store yet. Check runs (from {profile.can_run_checks ? 'this page, a table’s page, ' : ''}the API, a schedule or dqctl run checks) and statistics
              collections are listed here.
            </Empty>
          ) : data.jobs.length === 0 ? (
            <Empty>
              This page is past the last one. <a href={jobsLink(location.query, { page: null, run: null, run_page: null })}>Newest jobs</a>
            </Empty>
          ) : (
            <>
              <JobTable jobs={data.jobs} profile={profile} query={location.query} run={run} tick={tick} onChange={() => setTick((t) => t + 1)} />
              <Pager query={location.query} name="page" page={page} hasMore={data.hasMore === true} label="pages of jobs" clear={{ run: null, run_page: null }} />
            </>
          )
        }
      </Show>
    </>
  );
}

function Pager({ query, name, page, hasMore, label, clear = {} }: { query: URLSearchParams; name: string; page: number; hasMore: boolean; label: string; clear?: Record<string, null> }) {
  if (page === 1 && !hasMore) return null;
  return (
    <nav class="pager" aria-label={label} data-testid={`pager-${name}`}>
      {page > 1 ? (
        <a href={jobsLink(query, { ...clear, [name]: page === 2 ? null : String(page - 1) })} rel="prev">
          ‹ newer
        </a>
      ) : (
        <span aria-hidden="true">‹ newer</span>
      )}
      <span>page {page}</span>
      {hasMore ? (
        <a href={jobsLink(query, { ...clear, [name]: String(page + 1) })} rel="next">
          older ›
        </a>
      ) : (
        <span aria-hidden="true">older ›</span>
      )}
    </nav>
  );
}

/**
 * What a job ran on, from its parameters (nested under the job's kind as DQOps nests them: a run's
 * check_search_filters, a statistics job's filters, a delete's or an import's connection): "shop_oltp/public.customers",
 * "shop_oltp, all tables", "all tables", with a check or column filter.
 */
export function targetOf(job: JobEntry): string {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const kind = Object.values(job.parameters ?? {}).find(isObject) ?? {};
  const f = [kind.check_search_filters, kind.statistics_collector_search_filters].find(isObject) ?? kind;
  const text = (...keys: string[]) => keys.map((k) => f[k]).find((v): v is string => typeof v === 'string' && v !== '');
  // a child job of a run names its table (DQOps's RunChecksOnTableParameters.table) or its tables (`tables`)
  // outside the run's filters
  const ownTables = (Array.isArray(kind.tables) ? kind.tables : [kind.table]).filter(isObject);
  const first = ownTables[0];
  const ownTable =
    first && typeof kind.connection === 'string'
      ? `${kind.connection}/${String(first.schema_name)}.${String(first.table_name)}${ownTables.length > 1 ? ` and ${ownTables.length - 1} more ${ownTables.length === 2 ? 'table' : 'tables'}` : ''}`
      : undefined;
  const connection = text('connection', 'connectionName');
  const schema = text('schemaName');
  const table = text('fullTableName') ?? (schema ? `${schema}.${text('tableNameContains') ? `*${text('tableNameContains')}*` : '*'}` : undefined);
  const where = ownTable ?? (connection ? (table ? `${connection}/${table}` : `${connection}, all tables`) : table ? `every connection, ${table}` : 'all tables');
  const extra = [text('columnName') ? `column ${text('columnName')}` : '', text('checkName') ? `check ${text('checkName')}` : '', text('checkCategory') ? `category ${text('checkCategory')}` : '']
    .filter(Boolean)
    .join(', ');
  return extra ? `${where} (${extra})` : where;
}

function progressOf(job: JobEntry, now: number): string {
  const started = job.startedAt ? new Date(job.startedAt).getTime() : null;
  const finished = job.finishedAt ? new Date(job.finishedAt).getTime() : null;
  if (job.status === 'queued') return 'waiting for a worker';
  if (started && !finished) return `running for ${Math.max(0, Math.round((now - started) / 1000))} s`;
  if (started && finished) return `took ${((finished - started) / 1000).toFixed(1)} s`;
  return '—';
}

function resultText(job: JobEntry): string {
  const r = job.result;
  if (!r) return job.errorMessage ?? '—';
  const summary = (r.result ?? r) as Record<string, unknown>;
  const parts: string[] = [];
  for (const [key, word] of [
    ['executed_checks', 'checks'],
    ['valid_results', 'valid'],
    ['warnings', 'warnings'],
    ['errors', 'errors'],
    ['fatals', 'fatal'],
    ['execution_errors', 'execution errors'],
    ['executed_statistics_collectors', 'collectors'],
    ['total_collected_results', 'statistics'],
  ] as const) {
    if (typeof summary[key] === 'number') parts.push(`${summary[key]} ${word}`);
  }
  return parts.join(', ') || (job.errorMessage ?? 'done');
}

/** "400 jobs: 390 finished, 10 failed": a run's child jobs (each of one or several tables) by status. */
export function childSummary(job: JobEntry): string | null {
  const c = job.childJobs;
  if (!c) return null;
  const parts = (['running', 'queued', 'waiting', 'finished', 'failed', 'cancel_requested', 'cancelled'] as const)
    .filter((status) => (c[status] ?? 0) > 0)
    .map((status) => `${(c[status] ?? 0).toLocaleString('en')} ${status.replace(/_/g, ' ')}`);
  return `${c.total.toLocaleString('en')} ${c.total === 1 ? 'job' : 'jobs'}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}`;
}

function JobRow({ job, profile, onChange, children }: { job: JobEntry; profile: Profile; onChange: () => void; children?: ComponentChildren }) {
  const now = Date.now();
  return (
    <>
      <td>{job.jobId.jobId}</td>
      <td class="nowrap">{job.jobType.replace(/_/g, ' ')}</td>
      <td class="name">
        <Name text={targetOf(job)} />
      </td>
      <td>
        <Status value={job.status} kind="plain" />
      </td>
      <td>
        {job.status === 'running' ? <progress aria-label={`job ${job.jobId.jobId} running`} /> : null} {progressOf(job, now)}
        {children}
      </td>
      <td>{resultText(job)}</td>
      <td class="when">{formatTime(job.jobId.createdAt)}</td>
      <td class="nowrap">{job.createdBy ?? '—'}</td>
      {profile.can_cancel_jobs ? (
        <td>
          {['queued', 'running', 'waiting'].includes(job.status) ? (
            <button type="button" onClick={() => request('DELETE', `/api/jobs/jobs/${job.jobId.jobId}`).then(onChange, onChange)}>
              Cancel job {job.jobId.jobId}
            </button>
          ) : null}
        </td>
      ) : null}
    </>
  );
}

function JobHead({ profile }: { profile: Profile }) {
  return (
    <thead>
      <tr>
        <th scope="col">Job</th>
        <th scope="col">Type</th>
        <th scope="col">Target</th>
        <th scope="col">Status</th>
        <th scope="col">Progress</th>
        <th scope="col">Result</th>
        <th scope="col">Queued</th>
        <th scope="col">By</th>
        {profile.can_cancel_jobs ? <th scope="col">Cancel</th> : null}
      </tr>
    </thead>
  );
}

function JobTable({ jobs, profile, query, run, tick, onChange }: { jobs: JobEntry[]; profile: Profile; query: URLSearchParams; run: number | null; tick: number; onChange: () => void }) {
  const columns = profile.can_cancel_jobs ? 9 : 8;
  return (
    <div class="scroll">
      <table data-testid="jobs">
        <JobHead profile={profile} />
        <tbody>
          {jobs.map((j) => {
            const summary = childSummary(j);
            const open = run === j.jobId.jobId && summary !== null;
            return (
              <Fragment key={j.jobId.jobId}>
                <tr class={open ? 'selected' : ''} data-testid={`job-${j.jobId.jobId}`}>
                  <JobRow job={j} profile={profile} onChange={onChange}>
                    {summary ? (
                      <div class="children">
                        <a href={jobsLink(query, open ? { run: null, run_page: null } : { run: String(j.jobId.jobId), run_page: null })} aria-expanded={open}>
                          {summary}
                        </a>
                      </div>
                    ) : null}
                  </JobRow>
                </tr>
                {open ? (
                  <tr class="detail">
                    <td colSpan={columns}>
                      <RunTables run={j} profile={profile} query={query} tick={tick} onChange={onChange} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The jobs of one run (one per table), a page at a time, right under the run's row. */
function RunTables({ run, profile, query, tick, onChange }: { run: JobEntry; profile: Profile; query: URLSearchParams; tick: number; onChange: () => void }) {
  const page = pageNumber(query, 'run_page');
  const url = `/api/jobs/jobs?parent_job_id=${run.jobId.jobId}&limit=${RUN_TABLES_PAGE_SIZE}&page=${page}`;
  // refreshed with the run's row while it is active
  const loaded = useLoad(`${url}#${ACTIVE.includes(run.status) ? tick : 0}`, (signal) => get<JobList>(url, { signal }));
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
  }, [run.jobId.jobId, page, loaded.data !== undefined]);
  return (
    <section class="incident-detail" ref={panel} aria-labelledby="run-tables-title" data-testid="run-tables">
      <h2 id="run-tables-title">
        Jobs of run {run.jobId.jobId} <span class="muted">({childSummary(run)})</span>
      </h2>
      {loaded.error ? <ErrorBox error={loaded.error} what="the run’s tables" /> : null}
      {!loaded.data && !loaded.error ? <p class="loading" role="status">Loading the run’s tables…</p> : null}
      {loaded.data ? (
        loaded.data.jobs.length === 0 ? (
          <Empty>{page > 1 ? 'This page is past the last one.' : 'The run has no table jobs.'}</Empty>
        ) : (
          <>
            <div class="scroll">
              <table data-testid="run-table-jobs">
                <JobHead profile={profile} />
                <tbody>
                  {loaded.data.jobs.map((j) => (
                    <tr key={j.jobId.jobId}>
                      <JobRow job={j} profile={profile} onChange={onChange} />
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager query={query} name="run_page" page={page} hasMore={loaded.data.hasMore === true} label={`pages of the jobs of run ${run.jobId.jobId}`} />
          </>
        )
      ) : null}
    </section>
  );
}

/** Tables the start form offers at most (the server searches; type to narrow). */
const TABLE_CHOICES = 50;

/** Find a table (the server searches every table, one page of matches comes back), then run its checks or collect its statistics. */
function StartJob({ profile }: { profile: Profile }) {
  const [search, setSearch] = useState('');
  const url = `/api/objects?kind=table&limit=${TABLE_CHOICES}&page=1${search ? `&search=${encodeURIComponent(search)}` : ''}`;
  const tables = useLoad(url, (signal) => get<ObjectStatusList>(url, { signal }));
  const [chosen, setChosen] = useState('');
  return (
    <Section title="Start a job">
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Find a table
          <input type="search" value={search} placeholder="connection, schema or table name" autoComplete="off" onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
        </label>
      </form>
      <Show loaded={tables} what="the tables">
        {(data) => {
          const table = data.objects.find((t) => t.name === chosen) ?? data.objects[0];
          return data.objects.length === 0 ? (
            <Empty>{search ? `No table matches “${search}”.` : 'No table to run on.'}</Empty>
          ) : (
            <>
              <label>
                Table{' '}
                <select value={table?.name} onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}>
                  {data.objects.map((t) => (
                    <option key={t.name} value={t.name}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </label>{' '}
              {data.total > data.objects.length ? (
                <span class="note">
                  the first {data.objects.length} of {data.total.toLocaleString('en')} tables; type to narrow
                </span>
              ) : null}
              {table ? <JobButtons profile={profile} connection={table.connection!} schema={table.schema!} table={table.table!} /> : null}
            </>
          );
        }}
      </Show>
    </Section>
  );
}
