import { useContext } from 'preact/hooks';
import { get, type Overview as OverviewModel } from '../api';
import { ProfileContext } from '../profile';
import { Empty, Name, Section, Show, Status, useLoad } from '../components/common';
import { links } from '../router';
import { failedResults, formatTime, KIND_PLURAL, plural, QUALITY_ORDER, QUALITY_WORDS, SYNC_WORDS, toneOfQuality, type ObjectKindName } from '../words';
import { IncidentsSummary } from './Incidents';

/** Everything a person needs in the first five seconds: sync, connections, objects, drift, quality, incidents, jobs. */
export function Overview() {
  const loaded = useLoad('overview', () => get<OverviewModel>('/api/overview'));
  return (
    <>
      <h1>Overview</h1>
      <Show loaded={loaded} what="the overview">
        {(o) => (o.objects.total === 0 && !o.sync.loop ? <EmptyStore /> : <OverviewBody o={o} />)}
      </Show>
    </>
  );
}

function EmptyStore() {
  return (
    <Section title="The live store is empty">
      <p>Nothing has been applied yet. To fill it from a repository of DQOps YAML files:</p>
      <pre>dqctl validate path/to/repo{'\n'}dqctl plan path/to/repo{'\n'}dqctl apply path/to/repo</pre>
      <p>
        Or run <code>npm start</code> in the dqctl folder for the demo, or serve with <code>dqctl serve --repo path/to/repo --auto-apply</code> to keep the
        store in sync with the folder.
      </p>
    </Section>
  );
}

function OverviewBody({ o }: { o: OverviewModel }) {
  const s = o.sync;
  const profile = useContext(ProfileContext);
  return (
    <div class="grid">
      <Section title="Sync">
        <p class="big">
          <span class={`status ${s.sync === 'Synced' ? 'tone-good' : s.sync === 'OutOfSync' ? 'tone-bad' : 'tone-none'}`} data-testid="sync-status">
            {SYNC_WORDS[s.sync] ?? s.sync}
          </span>{' '}
          <span class={`status ${s.health === 'Healthy' ? 'tone-good' : 'tone-warn'}`}>{s.health.toLowerCase()}</span>
        </p>
        {s.loop ? null : (
          <p data-testid="no-loop">
            No reconcile loop runs on this server: the live store changes only by <code>dqctl apply</code> and through the API. The sync status compares
            the store with what was last applied.
          </p>
        )}
        <dl class="facts">
          {s.loop ? (
            <>
              <dt>Repository</dt>
              <dd class="name">{s.repository ? `${s.repository.location}${s.repository.branch ? ` (${s.repository.branch})` : ''}` : '—'}</dd>
              <dt>Revision read</dt>
              <dd>{s.repository?.short_revision ? <code title={s.repository.revision ?? ''}>{s.repository.short_revision}</code> : '—'}</dd>
            </>
          ) : null}
          {s.environment && (s.environment.loaded !== null || s.environment.applied !== null) ? (
            <>
              <dt>Environment</dt>
              <dd data-testid="environment">
                {s.environment.loaded ?? 'none (no --env)'}
                {s.environment.applied !== null && s.environment.applied !== s.environment.loaded ? `; the live store was applied with ${s.environment.applied}` : ''}
              </dd>
            </>
          ) : null}
          <dt>Last applied</dt>
          <dd data-testid="last-applied">
            {s.last_applied ? (
              <>
                {s.last_applied.short_revision ? (
                  <>
                    commit <code title={s.last_applied.revision ?? ''}>{s.last_applied.short_revision}</code>
                  </>
                ) : (
                  'a folder outside git'
                )}{' '}
                by {s.last_applied.applied_by}, <span class="when">{formatTime(s.last_applied.applied_at)}</span>
              </>
            ) : (
              'never'
            )}
          </dd>
          {s.loop ? (
            <>
              <dt>Last reconcile</dt>
              <dd>
                {s.last_pass ? (
                  <>
                    <span class="nowrap">{s.last_pass.result.replace(/_/g, ' ')}</span>, <span class="when">{formatTime(s.last_pass.finished_at)}</span>
                    {s.last_pass.error ? `: ${s.last_pass.error}` : ''}
                  </>
                ) : (
                  'not yet'
                )}
              </dd>
            </>
          ) : null}
        </dl>
        {s.message && s.loop ? <p class="note">{s.message}</p> : null}
        <p>
          <a href={links.plan()}>Plan and drift →</a>
        </p>
      </Section>

      <Section title="Data quality">
        <p class="counts" data-testid="quality-counts">
          {QUALITY_ORDER.map((q) => (
            <a key={q} href={links.objects({ kind: 'table', quality: q })} class={`count ${toneOfQuality(q)}`}>
              <span class="n">{o.quality.tables_by_quality[q]}</span> <span class="w">{QUALITY_WORDS[q]}</span>
            </a>
          ))}
        </p>
        <p class="note">
          Tables by the worst severity of their checks’ newest run. Results: {o.quality.results.valid} valid, {plural(o.quality.results.warnings, 'warning')},{' '}
          {plural(o.quality.results.errors, 'error')}, {o.quality.results.fatals} fatal, {plural(o.quality.results.execution_errors, 'execution error')}; last run{' '}
          <span class="when">{formatTime(o.quality.last_executed_at)}</span>.
        </p>
        {o.quality.worst_tables.length > 0 ? (
          <table>
            <caption>Tables in the worst state</caption>
            <thead>
              <tr>
                <th scope="col">Table</th>
                <th scope="col">Status</th>
                <th scope="col">Failed results</th>
              </tr>
            </thead>
            <tbody>
              {o.quality.worst_tables.slice(0, 8).map((t) => (
                <tr key={`${t.connection}/${t.schema}.${t.table}`}>
                  <td>
                    <a href={links.table(t.connection, t.schema, t.table)}>
                      <Name text={`${t.connection}/${t.schema}.${t.table}`} />
                    </a>
                  </td>
                  <td>
                    <Status value={t.quality_status} />
                  </td>
                  <td class="nowrap">{failedResults(t)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty>
            No table has a failed check
            {o.quality.last_executed_at ? '' : profile?.can_run_checks ? ' (no check has run yet: run checks from the Jobs page or with dqctl run checks)' : ' (no check has run yet)'}.
          </Empty>
        )}
      </Section>

      <Section title="Connections">
        <table data-testid="connections">
          <thead>
            <tr>
              <th scope="col">Connection</th>
              <th scope="col">Sync</th>
              <th scope="col" title="the worst severity of its tables' newest results">Quality</th>
              <th scope="col">Tables</th>
            </tr>
          </thead>
          <tbody>
            {o.connections.map((c) => (
              <tr key={c.name}>
                <td>
                  <a href={links.objects({ connection: c.name, kind: 'table' })}>{c.name}</a>
                </td>
                <td>
                  <Status value={c.sync_status} kind="sync" />
                </td>
                <td>
                  <Status value={c.quality_status} />
                </td>
                <td>{c.tables}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>

      <Section title="Objects">
        <table data-testid="object-counts">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">From git</th>
              <th scope="col">From the API</th>
            </tr>
          </thead>
          <tbody>
            {(Object.keys(o.objects.by_kind) as ObjectKindName[]).map((kind) => (
              <tr key={kind}>
                <th scope="row">
                  <a href={links.objects({ kind })}>{KIND_PLURAL[kind] ?? kind}</a>
                </th>
                <td>{o.objects.by_kind[kind].git}</td>
                <td>{o.objects.by_kind[kind].api}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">all</th>
              <td>{o.objects.by_owner.git}</td>
              <td>{o.objects.by_owner.api}</td>
            </tr>
          </tfoot>
        </table>
      </Section>

      <Section title="Changed outside git">
        {o.not_synced.filter((n) => n.drifted).length === 0 ? (
          <Empty>No object was changed through the API since the last apply.</Empty>
        ) : (
          <ul data-testid="drift">
            {o.not_synced
              .filter((n) => n.drifted)
              .slice(0, 10)
              .map((n) => {
                // only the fields changed outside git: a repository change of the same object is not drift
                const outside = (n.changes ?? []).filter((c) => c.origin !== 'repository').map((c) => c.path);
                return (
                  <li key={`${n.kind}/${n.name}`}>
                    {n.kind === 'table' ? (
                      <a href={links.tableByName(n.name)}>
                        <Name text={n.name} />
                      </a>
                    ) : (
                      <span>
                        <Name text={n.name} />
                      </span>
                    )} <Status value={n.status} kind="sync" />{' '}
                    {outside.length ? <span class="note">{outside.slice(0, 3).join(', ')}</span> : null}
                  </li>
                );
              })}
          </ul>
        )}
        {o.not_synced_count > 0 ? (
          <p>
            <a href={links.plan()}>{plural(o.not_synced_count, 'object')} not in sync →</a>
          </p>
        ) : null}
      </Section>

      <Section title="Open incidents">
        <IncidentsSummary />
      </Section>

      <Section title="Jobs">
        <p>
          {o.jobs.running} running, {o.jobs.queued} queued.{' '}
          <a href={links.jobs()}>All jobs →</a>
        </p>
        {o.jobs.active.length > 0 ? (
          <ul>
            {o.jobs.active.map((j) => (
              <li key={j.job_id}>
                {j.job_type.replace(/_/g, ' ')} #{j.job_id} <Status value={j.status} kind="plain" /> since <span class="when">{formatTime(j.started_at ?? j.created_at)}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </Section>
    </div>
  );
}
