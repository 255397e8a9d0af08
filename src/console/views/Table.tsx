import { useMemo } from 'preact/hooks';
import { get, tablePath, type CheckHistory, type EffectiveCheck, type Neighbour, type Profile, type QualityStatusModel, type SampleList } from '../api';
import { Empty, Name, Section, Show, Status, useLoad } from '../components/common';
import { JobButtons } from '../components/JobButtons';
import { isSchemaHashSensor, ReadoutChart, SchemaHashReadouts, thresholdsOf } from '../components/ReadoutChart';
import { links, type Location } from '../router';
import { failedResults, formatNumber, formatTime, plural, shortHash } from '../words';

/** A check's results are named by type, gradient, column, category, name and, for a comparison check, its comparison. */
const checkKey = (c: { check_type: string; column_name: string | null; check_category: string; check_name: string; table_comparison: string | null }, gradient: string) =>
  [c.check_type, gradient, c.column_name ?? '', c.check_category, c.check_name, ...(c.table_comparison ? [c.table_comparison] : [])].join('/');

type Latest = NonNullable<EffectiveCheck['latest_results']>;
const failedOf = (l: Latest) => l.warnings + l.errors + l.fatals;
const countOf = (l: Latest) => l.valid + failedOf(l) + l.execution_errors;

const gradientOf = (timeScale: string | null) => (timeScale === 'monthly' ? 'month' : 'day');

/** One table: its effective checks (comparison checks included) and their origin, the newest run of each with its counts, a check's readout history, error samples, lineage neighbours. */
export function Table({ location, connection, schema, table, profile }: { location: Location; connection: string; schema: string; table: string; profile: Profile }) {
  const base = tablePath(connection, schema, table);
  const name = `${connection}/${schema}.${table}`;
  const data = useLoad(base, async () => {
    // the status first: a table that does not exist answers one 404, not five
    const status = await get<QualityStatusModel>(`${base}/status`);
    const [checks, results, sources, targets] = await Promise.all([
      get<EffectiveCheck[]>(`${base}/effectivechecks`),
      get<CheckHistory[]>(`${base}/checkresults?results_count=30`),
      get<Neighbour[]>(`${base}/lineage/sources`).catch(() => [] as Neighbour[]),
      get<Neighbour[]>(`${base}/lineage/targets`).catch(() => [] as Neighbour[]),
    ]);
    return { checks, results, status, sources, targets };
  });
  return (
    <>
      <p class="crumbs">
        <a href={links.objects({ connection, kind: 'table' })}>{connection}</a> / {schema}
      </p>
      <h1>
        <Name text={name} />
      </h1>
      {data.error?.status === 404 ? (
        <NoSuchTable name={name} connection={connection} message={data.error.message} />
      ) : (
        <>
          {/* the actions only once the table is known to exist */}
          {data.data ? <JobButtons profile={profile} connection={connection} schema={schema} table={table} /> : null}
          <Show loaded={data} what={`table ${name}`}>
            {(d) => <TableBody {...d} location={location} base={base} connection={connection} schema={schema} table={table} />}
          </Show>
        </>
      )}
    </>
  );
}

/** A table the live store does not have (a typo in a link, a table deleted since): said so, with no action to run on it. */
function NoSuchTable({ name, connection, message }: { name: string; connection: string; message: string }) {
  return (
    <section class="card" data-testid="table-not-found" aria-labelledby="h-not-found">
      <h2 id="h-not-found">No such table</h2>
      <p>
        The live store has no table {name} ({message}). It may have been renamed or deleted, or the link has a typo.
      </p>
      <p>
        <a href={links.objects({ kind: 'table', q: connection })}>Find the table among the objects →</a>
      </p>
    </section>
  );
}

function TableBody({
  checks,
  results,
  status,
  sources,
  targets,
  location,
  base,
  connection,
  schema,
  table,
}: {
  checks: EffectiveCheck[];
  results: CheckHistory[];
  status: QualityStatusModel;
  sources: Neighbour[];
  targets: Neighbour[];
  location: Location;
  base: string;
  connection: string;
  schema: string;
  table: string;
}) {
  const resultsByKey = useMemo(() => new Map(results.map((r) => [checkKey(r, r.time_gradient), r])), [results]);
  const rows = checks.map((c) => {
    const key = checkKey(c, c.check_type === 'profiling' ? 'day' : gradientOf(c.time_scale));
    // profiling results carry the gradient the runner records; find them by name when the key misses
    const history =
      resultsByKey.get(key) ??
      results.find(
        (r) =>
          r.check_type === c.check_type &&
          r.check_name === c.check_name &&
          (r.column_name ?? null) === c.column_name &&
          r.check_category === c.check_category &&
          (r.table_comparison ?? null) === c.table_comparison,
      );
    return { check: c, key: history ? checkKey(history, history.time_gradient) : key, history };
  });
  // failing checks first (fatal, error, warning), then the rest in their order
  const isFailing = (r: (typeof rows)[number]) => ['warning', 'error', 'fatal'].includes(r.check.latest_results?.severity ?? '');
  const rank = (r: (typeof rows)[number]) => ({ fatal: 0, error: 1, warning: 2 } as Record<string, number>)[r.check.latest_results?.severity ?? ''] ?? 3;
  rows.sort((a, b) => rank(a) - rank(b));
  const selectedKey = location.query.get('check') ?? rows.find((r) => r.history && isFailing(r))?.key ?? rows.find((r) => r.history)?.key;
  const selected = rows.find((r) => r.key === selectedKey);
  const failing = rows.filter(isFailing).slice(0, 5);
  // the listed checks' newest runs, against the table's status (the overview's count): results of checks no longer configured differ
  const listed = rows.reduce((n, r) => n + (r.check.latest_results ? countOf(r.check.latest_results) : 0), 0);
  const counted = (status.valid_results ?? 0) + (status.warnings ?? 0) + (status.errors ?? 0) + (status.fatals ?? 0) + (status.execution_errors ?? 0);
  const here = `/tables/${encodeURIComponent(connection)}/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`;
  return (
    <div class="stack">
      <Section title="Checks and their latest results">
        {status.last_check_executed_at ? (
          <p class="note" data-testid="result-counts">
            Newest run of each check: failed results <span data-testid="failed-results">{failedResults({ fatals: status.fatals ?? 0, errors: status.errors ?? 0, warnings: status.warnings ?? 0 })}</span>;{' '}
            {status.valid_results ?? 0} valid, {plural(status.execution_errors ?? 0, 'execution error')}.
            {counted !== listed ? ` ${plural(counted - listed, 'result')} of checks no longer configured.` : ''}
          </p>
        ) : null}
        {rows.length === 0 ? (
          <Empty>No check applies to this table: neither its file nor a policy configures one.</Empty>
        ) : (
          <table data-testid="checks">
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Column</th>
                <th scope="col">Type</th>
                <th scope="col">From</th>
                <th scope="col">Latest result</th>
                <th scope="col">Actual</th>
                <th scope="col">Expected</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ check, key, history }) => {
                const latest = check.latest_results;
                return (
                  <tr key={`${key}/${check.time_scale}`} class={key === selectedKey ? 'selected' : ''}>
                    <td>
                      {history ? (
                        <a href={`${here}?check=${encodeURIComponent(key)}`} aria-current={key === selectedKey ? 'true' : undefined}>
                          <Name text={check.check_name} />
                        </a>
                      ) : (
                        <Name text={check.check_name} />
                      )}
                      {check.disabled ? <span class="note"> (disabled)</span> : null}
                      {check.table_comparison !== null ? (
                        <span class="note">
                          {' '}
                          · comparison {check.table_comparison}
                          {check.reference_column !== null ? ` with ${check.reference_column}` : ''}
                        </span>
                      ) : null}
                    </td>
                    <td>{check.column_name ?? '(table)'}</td>
                    <td>{check.check_type === 'profiling' ? 'profiling' : `${check.check_type} ${check.time_scale}`}</td>
                    <td>{check.origin.source === 'policy' ? `policy ${check.origin.policy_name} (priority ${check.origin.priority})` : 'table file'}</td>
                    <td>
                      {latest ? latest.severity ? <Status value={latest.severity} /> : <Status value="execution_error" /> : <Status value="not_run" />}
                      {latest && countOf(latest) > 1 ? (
                        <span class="note"> {failedOf(latest) > 0 ? `${failedOf(latest)} of ${countOf(latest)} failed` : plural(countOf(latest), 'result')}</span>
                      ) : null}
                    </td>
                    {isSchemaHashSensor(check.sensor_name) ? (
                      <>
                        <td>{latest?.actual_value !== null && latest?.actual_value !== undefined ? <code title="a hash of the schema">{shortHash(latest.actual_value)}</code> : '—'}</td>
                        <td>—</td>
                      </>
                    ) : (
                      <>
                        <td class="num">{formatNumber(latest?.actual_value)}</td>
                        <td class="num">{formatNumber(latest?.expected_value)}</td>
                      </>
                    )}
                    <td class="when">{latest ? formatTime(latest.executed_at) : '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {results.some((r) => r.results[0]?.error_message) ? (
          <ul class="errors">
            {results
              .filter((r) => r.results[0]?.error_message)
              .map((r) => (
                <li key={r.check_name + (r.column_name ?? '')}>
                  {r.check_name}
                  {r.column_name ? ` on ${r.column_name}` : ''}: {r.results[0].error_message}
                </li>
              ))}
          </ul>
        ) : null}
      </Section>

      <Section title="Readout history">
        {selected?.history ? (
          <>
            <p>
              {selected.check.check_name}
              {selected.check.column_name ? ` on column ${selected.check.column_name}` : ''}, {selected.history.results.length} results
            </p>
            {isSchemaHashSensor(selected.check.sensor_name) ? (
              <SchemaHashReadouts results={selected.history.results} title={selected.check.check_name} />
            ) : (
              <>
                <ReadoutChart results={selected.history.results} thresholds={thresholdsOf(selected.check.rules)} title={selected.check.check_name} />
                <details>
                  <summary>The numbers</summary>
                  <div class="scroll">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">Time period</th>
                          <th scope="col">Data group</th>
                          <th scope="col">Actual</th>
                          <th scope="col">Expected</th>
                          <th scope="col">Severity</th>
                        </tr>
                      </thead>
                      <tbody>
                        {selected.history.results.map((r) => (
                          <tr key={`${r.time_period}/${r.data_group}/${r.executed_at}`}>
                            <td class="when">{formatTime(r.time_period)}</td>
                            <td>{r.data_group}</td>
                            <td class="num">{formatNumber(r.actual_value)}</td>
                            <td class="num">{formatNumber(r.expected_value)}</td>
                            <td>{r.severity ? <Status value={r.severity} /> : <Status value="execution_error" />}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </div>
                </details>
              </>
            )}
          </>
        ) : (
          <Empty>No check of this table has results yet. Run its checks (operators: the button above, or dqctl run checks).</Empty>
        )}
      </Section>

      <Section title="Error samples">
        <ErrorSamples base={base} failing={failing.map((f) => f.check)} />
      </Section>

      <Section title="Lineage neighbours">
        {sources.length === 0 && targets.length === 0 ? (
          <Empty>No lineage: no table lists this one as a source, and it lists none.</Empty>
        ) : (
          <div class="two">
            <div>
              <h3>Loaded from</h3>
              <ul>
                {sources.map((s) => (
                  <li key={`${s.source_connection}/${s.source_schema}.${s.source_table}`}>
                    <a href={links.table(s.source_connection!, s.source_schema!, s.source_table!)}>{`${s.source_connection}/${s.source_schema}.${s.source_table}`}</a>
                  </li>
                ))}
                {sources.length === 0 ? <li class="note">none</li> : null}
              </ul>
            </div>
            <div>
              <h3>Loaded into</h3>
              <ul>
                {targets.map((t) => (
                  <li key={`${t.target_connection}/${t.target_schema}.${t.target_table}`}>
                    <a href={links.table(t.target_connection!, t.target_schema!, t.target_table!)}>{`${t.target_connection}/${t.target_schema}.${t.target_table}`}</a>
                  </li>
                ))}
                {targets.length === 0 ? <li class="note">none</li> : null}
              </ul>
            </div>
          </div>
        )}
        <p>
          <a href={links.lineage(connection, schema, table)}>Lineage graph →</a>
        </p>
      </Section>
    </div>
  );
}

/** Error samples of the failing checks (at most five), from DQOps's error sample routes. */
function ErrorSamples({ base, failing }: { base: string; failing: EffectiveCheck[] }) {
  const key = failing.map((f) => `${f.check_type}/${f.time_scale}/${f.column_name}/${f.check_name}`).join('|');
  const loaded = useLoad(`samples:${base}:${key}`, async () => {
    const lists = await Promise.all(
      failing.map((f) => {
        const scope = f.column_name ? `${base}/columns/${encodeURIComponent(f.column_name)}` : base;
        const kind = f.check_type === 'profiling' ? 'profiling' : `${f.check_type}/${f.time_scale}`;
        return get<SampleList[]>(`${scope}/${kind}/errorsamples?checkName=${encodeURIComponent(f.check_name)}&maxResultsPerCheck=10`)
          .then((l) => l.map((s) => ({ ...s, column: f.column_name })))
          .catch(() => []);
      }),
    );
    return lists.flat().filter((l) => (l.errorSamplesEntries ?? []).length > 0);
  });
  if (failing.length === 0) return <Empty>No failing check, so no error samples to show.</Empty>;
  return (
    <Show loaded={loaded} what="error samples">
      {(lists) =>
        lists.length === 0 ? (
          <Empty>No error samples collected for the failing checks (operators collect them with dqctl collect error-samples).</Empty>
        ) : (
          <>
            {lists.map((l) => (
              <div key={`${l.checkName}/${l.column}`}>
                <h3>
                  {l.checkName}
                  {l.column ? ` on ${l.column}` : ''}
                </h3>
                <ul class="samples">
                  {(l.errorSamplesEntries ?? []).slice(0, 10).map((e, i) => (
                    <li key={i}>
                      <code>{typeof e.result === 'string' ? e.result : JSON.stringify(e.result)}</code>
                      {e.rowId1 ? <span class="note"> row {e.rowId1}</span> : null}
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </>
        )
      }
    </Show>
  );
}
