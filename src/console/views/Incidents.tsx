import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ProfileContext } from '../profile';
import { ApiError, get, request, type Incident, type IncidentIssue, type IncidentsPerConnection, type Profile } from '../api';
import { Fragment } from 'preact';
import { Empty, ErrorBox, Name, Show, Status, useLoad } from '../components/common';
import { links, setQueryParam, type Location } from '../router';
import { formatNumber, formatTime, incidentSeverityWord, plural, shortHash } from '../words';
import { isSchemaHashSensor } from '../components/readoutChartData';

/**
 * Incidents, read from the incidents API (GET /api/incidents/{connection}); a server without it (404) is said
 * so plainly. Operators acknowledge, resolve and mute from the list.
 */
const STATUSES = ['open', 'acknowledged', 'resolved', 'muted'] as const;

/** Incidents of a connection asked for per page; a connection with more says so under the list. */
const PAGE = 200;

interface LoadedIncidents {
  available: boolean;
  incidents: Incident[];
  /** connections with more incidents than one page */
  truncated: string[];
}

/** The status filter is the API's own (open=…&acknowledged=…&resolved=…&muted=…), so a page holds only matches. */
function statusQuery(status: string): string {
  return STATUSES.map((s) => `${s}=${!status || status === s}`).join('&');
}

async function loadIncidents(connections: string[], status: string): Promise<LoadedIncidents> {
  const incidents: Incident[] = [];
  const truncated: string[] = [];
  for (const connection of connections) {
    try {
      const list = await get<Incident[]>(`/api/incidents/${encodeURIComponent(connection)}?months=3&${statusQuery(status)}&page=1&limit=${PAGE}`);
      incidents.push(...list);
      if (list.length === PAGE) truncated.push(connection);
    } catch (error) {
      // a route this server does not have: incidents are not available here
      if (error instanceof ApiError && error.status === 404 && /route not found/.test(error.message)) return { available: false, incidents: [], truncated: [] };
      throw error;
    }
  }
  // newest first across connections, as each connection's page is
  incidents.sort((a, b) => b.firstSeen - a.firstSeen);
  return { available: true, incidents, truncated };
}

function useIncidents(connections: string[], status: string) {
  // a server that says it has no incidents API is not asked (no 404 in the browser's console)
  const known = useContext(ProfileContext)?.features?.incidents;
  return useLoad(`incidents:${status}:${connections.join('\u0000')}`, () =>
    known === false ? Promise.resolve({ available: false, incidents: [], truncated: [] }) : loadIncidents(connections, status),
  );
}

function NotAvailable() {
  return <p class="empty" data-testid="incidents-unavailable">Incidents are not available on this server: it has no incidents API (GET /api/incidents answers 404).</p>;
}

/**
 * The overview's open incidents: the server's own count per connection (GET /api/incidentstat, every month, status
 * open), not a count of a page of the list.
 */
export function IncidentsSummary() {
  const known = useContext(ProfileContext)?.features?.incidents;
  const loaded = useLoad('incidentstat', () => (known === false ? Promise.resolve(null) : get<IncidentsPerConnection[]>('/api/incidentstat')));
  if (loaded.error) return <ErrorBox error={loaded.error} what="incidents" />;
  if (loaded.data === undefined) return <p class="loading">Loading incidents…</p>;
  if (loaded.data === null) return <NotAvailable />;
  const withOpen = loaded.data.filter((c) => c.openIncidents > 0);
  const total = withOpen.reduce((sum, c) => sum + c.openIncidents, 0);
  return (
    <>
      <p data-testid="open-incidents">
        {plural(total, 'open incident')}. <a href={links.incidents({ status: 'open' })}>All incidents →</a>
      </p>
      {withOpen.length > 0 ? (
        <ul>
          {withOpen.map((c) => (
            <li key={c.connection}>
              {c.connection}: {c.openIncidents} open, the newest first seen <span class="when">{formatTime(c.mostRecentFirstSeen)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

export function Incidents({ location, profile, connections }: { location: Location; profile: Profile; connections: string[] }) {
  const status = location.query.get('status') ?? '';
  const loaded = useIncidents(connections, status);
  const selected = location.query.get('incident');
  const [notice, setNotice] = useState<string | null>(null);
  const setStatus = async (incident: Incident, next: (typeof STATUSES)[number]) => {
    try {
      await request('POST', `/api/incidents/${encodeURIComponent(incident.connection)}/${incident.year}/${incident.month}/${encodeURIComponent(incident.incidentId)}/status?status=${next}`);
      setNotice(`${incidentTitle(incident)} is now ${next}.`);
      loaded.reload();
    } catch (error) {
      setNotice(`Could not set ${incidentTitle(incident)} to ${next}: ${(error as Error).message}`);
    }
  };
  return (
    <>
      <h1>Incidents</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => setQueryParam('status', (e.currentTarget as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      {notice ? <p role="status">{notice}</p> : null}
      <Show loaded={loaded} what="incidents">
        {(data) =>
          !data.available ? (
            <NotAvailable />
          ) : (
            <>
              <IncidentTable incidents={data.incidents} profile={profile} setStatus={setStatus} selected={selected} status={status} />
              {data.truncated.length > 0 ? (
                <p>
                  Showing the newest {PAGE} incidents of {data.truncated.join(', ')} first seen in the last three months; the API lists the rest
                  ({'GET /api/incidents/{connection}?page=2'}).
                </p>
              ) : null}
            </>
          )
        }
      </Show>
    </>
  );
}

function IncidentTable({
  incidents,
  profile,
  setStatus,
  selected,
  status,
}: {
  incidents: Incident[];
  profile: Profile;
  setStatus: (i: Incident, s: (typeof STATUSES)[number]) => void;
  selected: string | null;
  status: string;
}) {
  if (incidents.length === 0) return <Empty>No incident matches. Incidents open when checks fail with the connection’s incident grouping.</Empty>;
  const columns = profile.can_manage_incidents ? 8 : 7;
  return (
    <div class="scroll">
      <table data-testid="incidents" class="incidents">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Severity</th>
            <th scope="col">Table</th>
            <th scope="col">Category / dimension</th>
            <th scope="col">Failed checks</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            {profile.can_manage_incidents ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {incidents.map((i) => {
            const open = i.incidentId === selected;
            return (
              <Fragment key={`${i.connection}/${i.incidentId}`}>
                <tr class={open ? 'selected' : ''}>
                  <td>
                    <Status value={i.status} kind="plain" />
                  </td>
                  <td>
                    <Status value={incidentSeverityWord(i.highestSeverity)} />
                  </td>
                  <td class="name">
                    <a href={links.table(i.connection, i.schema, i.table)}>
                      <Name text={`${i.connection}/${i.schema}.${i.table}`} />
                    </a>
                    {i.dataGroup ? <span class="note"> · data group {i.dataGroup}</span> : null}
                  </td>
                  <td>{[i.checkCategory, i.qualityDimension].filter(Boolean).join(' / ') || '—'}</td>
                  <td>
                    <a
                      class="failed-checks"
                      href={links.incidents({ ...(status ? { status } : {}), ...(open ? {} : { incident: i.incidentId }) })}
                      aria-expanded={open ? 'true' : 'false'}
                      aria-controls={open ? 'incident-detail' : undefined}
                    >
                      {plural(i.failedChecksCount, 'failed check')}
                    </a>
                  </td>
                  {/* may wrap between the date and the time, never inside either */}
                  <td>{formatTime(i.firstSeen)}</td>
                  <td>{formatTime(i.lastSeen)}</td>
                  {profile.can_manage_incidents ? (
                    <td class="actions">
                      {i.status !== 'acknowledged' && i.status !== 'resolved' ? (
                        <button type="button" onClick={() => setStatus(i, 'acknowledged')}>
                          Acknowledge
                        </button>
                      ) : null}
                      {i.status !== 'resolved' ? (
                        <button type="button" onClick={() => setStatus(i, 'resolved')}>
                          Resolve
                        </button>
                      ) : null}
                      {i.status !== 'muted' ? (
                        <button type="button" onClick={() => setStatus(i, 'muted')}>
                          Mute
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
                {open ? (
                  <tr class="detail">
                    <td colSpan={columns}>
                      <FailedChecks incident={i} />
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

/** An incident as people name it: the table, the quality dimension (else the category), the check, the data group; never its UUID. */
export function incidentTitle(i: Incident): string {
  return [
    `${i.connection}/${i.schema}.${i.table}`,
    i.qualityDimension,
    i.checkCategory,
    i.checkName,
    i.dataGroup ? `data group ${i.dataGroup}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** The failed checks of one incident, right under its row: scrolled into view and highlighted when it opens. */
function FailedChecks({ incident }: { incident: Incident }) {
  const url = `/api/incidents/${encodeURIComponent(incident.connection)}/${incident.year}/${incident.month}/${encodeURIComponent(incident.incidentId)}/issues?page=1&limit=50`;
  const loaded = useLoad(url, () => get<IncidentIssue[]>(url));
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
    panel.current?.focus({ preventScroll: true });
  }, [incident.incidentId, loaded.data !== undefined]);
  return (
    <section class="incident-detail" id="incident-detail" ref={panel} tabIndex={-1} aria-labelledby="incident-detail-title">
      <h2 id="incident-detail-title">Failed checks of {incidentTitle(incident)}</h2>
      <Show loaded={loaded} what="the failed checks">
        {(issues) =>
          issues.length === 0 ? (
            <Empty>No failed check is stored for this incident.</Empty>
          ) : (
            <div class="scroll">
            <table data-testid="incident-issues">
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Column</th>
                  <th scope="col">Data group</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Actual</th>
                  <th scope="col">Expected</th>
                  <th scope="col">Time period</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {issues.map((c) => {
                  const hash = isSchemaHashSensor(c.sensorName);
                  return (
                    <tr key={c.id}>
                      <td>
                        <Name text={c.checkDisplayName ?? c.checkName} />
                      </td>
                      <td>{c.columnName ?? '(table)'}</td>
                      <td>{c.dataGroup || 'all rows'}</td>
                      <td>
                        <Status value={incidentSeverityWord(c.severity)} />
                      </td>
                      <td class={hash ? '' : 'num'}>{hash ? (c.actualValue === null ? '—' : <code title="a hash of the schema">{shortHash(c.actualValue)}</code>) : formatNumber(c.actualValue)}</td>
                      <td class={hash ? '' : 'num'}>{hash ? (c.expectedValue === null ? '—' : <code title="a hash of the schema">{shortHash(c.expectedValue)}</code>) : formatNumber(c.expectedValue)}</td>
                      <td class="when">{c.timePeriod.replace(/T00:00:00$/, '').replace('T', ' ')}</td>
                      <td class="when">{formatTime(c.executedAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            </div>
          )
        }
      </Show>
    </section>
  );
}
