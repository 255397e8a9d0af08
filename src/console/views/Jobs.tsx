import { useEffect, useState } from 'preact/hooks';
import { get, request, type JobEntry, type JobList, type ObjectStatusList, type Profile } from '../api';
import { Empty, Name, Section, Show, Status, useLoad } from '../components/common';
import { JobButtons } from '../components/JobButtons';
import { formatTime } from '../words';

/** Queued, running and finished jobs (refreshed every two seconds while any is active); operators start and cancel them. */
export function Jobs({ profile }: { profile: Profile }) {
  const [tick, setTick] = useState(0);
  const jobs = useLoad(`jobs:${tick}`, () => get<JobList>('/api/jobs/jobs?limit=100'));
  const active = (jobs.data?.jobs ?? []).some((j) => ['queued', 'running', 'waiting', 'cancel_requested'].includes(j.status));
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
          data.jobs.length === 0 ? (
            <Empty>
              No job has run on this store yet. Check runs (from {profile.can_run_checks ? 'this page, a table’s page, ' : ''}the API, a schedule or dqctl run checks) and statistics
              collections are listed here.
            </Empty>
          ) : (
            <JobTable jobs={data.jobs} profile={profile} onChange={() => setTick((t) => t + 1)} />
          )
        }
      </Show>
    </>
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
  const connection = text('connection', 'connectionName');
  const schema = text('schemaName');
  const table = text('fullTableName') ?? (schema ? `${schema}.${text('tableNameContains') ? `*${text('tableNameContains')}*` : '*'}` : undefined);
  const where = connection ? (table ? `${connection}/${table}` : `${connection}, all tables`) : table ? `every connection, ${table}` : 'all tables';
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

function JobTable({ jobs, profile, onChange }: { jobs: JobEntry[]; profile: Profile; onChange: () => void }) {
  const now = Date.now();
  return (
    <div class="scroll">
    <table data-testid="jobs">
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
      <tbody>
        {jobs.map((j) => (
          <tr key={j.jobId.jobId}>
            <td>{j.jobId.jobId}</td>
            <td class="nowrap">{j.jobType.replace(/_/g, ' ')}</td>
            <td class="name">
              <Name text={targetOf(j)} />
            </td>
            <td>
              <Status value={j.status} kind="plain" />
            </td>
            <td>
              {j.status === 'running' ? <progress aria-label={`job ${j.jobId.jobId} running`} /> : null} {progressOf(j, now)}
            </td>
            <td>{resultText(j)}</td>
            <td class="when">{formatTime(j.jobId.createdAt)}</td>
            <td class="nowrap">{j.createdBy ?? '—'}</td>
            {profile.can_cancel_jobs ? (
              <td>
                {['queued', 'running', 'waiting'].includes(j.status) ? (
                  <button type="button" onClick={() => request('DELETE', `/api/jobs/jobs/${j.jobId.jobId}`).then(onChange, onChange)}>
                    Cancel job {j.jobId.jobId}
                  </button>
                ) : null}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

/** Pick a table, then run its checks or collect its statistics. */
function StartJob({ profile }: { profile: Profile }) {
  const tables = useLoad('job-tables', () => get<ObjectStatusList>('/api/objects?kind=table&limit=5000'));
  const [chosen, setChosen] = useState('');
  return (
    <Section title="Start a job">
      <Show loaded={tables} what="the tables">
        {(data) => {
          const table = data.objects.find((t) => t.name === chosen) ?? data.objects[0];
          return data.objects.length === 0 ? (
            <Empty>No table to run on.</Empty>
          ) : (
            <>
              <label>
                Table{' '}
                <select value={table?.name} onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}>
                  {data.objects.slice(0, 5000).map((t) => (
                    <option key={t.name} value={t.name}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </label>
              {table ? <JobButtons profile={profile} connection={table.connection!} schema={table.schema!} table={table.table!} /> : null}
            </>
          );
        }}
      </Show>
    </Section>
  );
}
