import { ApiError, get, request, type ApplyEntry, type Overview } from '../api';
import { Empty, Section, Show, Status, useLoad } from '../components/common';
import { links } from '../router';
import { formatTime, KIND_WORDS } from '../words';

/** What `dqctl plan` would do now, what changed outside git since the last apply, and the apply history. */
export function Plan() {
  const overview = useLoad('plan-overview', () => get<Overview>('/api/overview'));
  // only a server running the reconcile loop has a pending plan: the others are not asked (no 404 to show)
  const loop = overview.data?.sync.loop;
  const plan = useLoad(`plan:${loop}`, async () => {
    if (loop === undefined) return new Promise<never>(() => {});
    if (!loop) return { text: null, reason: 'this server runs no reconcile loop.' };
    return request<string>('GET', '/api/gitops/plan?format=text', { text: true }).then(
      (text) => ({ text, reason: null as string | null }),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return { text: null, reason: error.message };
        throw error;
      },
    );
  });
  const history = useLoad('history', () => get<ApplyEntry[]>('/api/gitops/history?limit=50'));
  return (
    <>
      <h1>Plan and drift</h1>
      <Section title="Plan">
        <Show loaded={plan} what="the plan">
          {(p) =>
            p.text !== null ? (
              <pre class="plan" data-testid="plan" tabIndex={0} aria-label="the plan as dqctl plan prints it">
                {p.text.split('\n').map((line, n) => (
                  <span key={n} class={/^\s*\+/.test(line) ? 'add' : /^\s*-/.test(line) ? 'del' : /^\s*~/.test(line) ? 'chg' : ''}>
                    {line}
                    {'\n'}
                  </span>
                ))}
              </pre>
            ) : (
              <p class="empty">
                No plan on this server: {p.reason} To see one here, serve with <code>dqctl serve --repo DIR</code> (or <code>--git URL</code>); on the command line,{' '}
                <code>dqctl plan DIR</code>.
              </p>
            )
          }
        </Show>
      </Section>
      <Section title="Changed outside git since the last apply">
        <Show loaded={overview} what="the drift">
          {(o) => {
            const drifted = o.not_synced.filter((n) => n.status === 'Drifted' || n.status === 'Extraneous');
            return drifted.length === 0 ? (
              <Empty>Nothing: no object was changed or created through the API since the last apply.</Empty>
            ) : (
              <table data-testid="drift-table">
                <thead>
                  <tr>
                    <th scope="col">Object</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Status</th>
                    <th scope="col">Fields</th>
                    <th scope="col">File</th>
                  </tr>
                </thead>
                <tbody>
                  {drifted.map((n) => (
                    <tr key={`${n.kind}/${n.name}`}>
                      <td>{n.kind === 'table' ? <a href={links.tableByName(n.name)}>{n.name}</a> : n.name}</td>
                      <td>{KIND_WORDS[n.kind] ?? n.kind}</td>
                      <td>
                        <Status value={n.status} kind="sync" />
                      </td>
                      <td>{n.fields.join(', ') || '—'}</td>
                      <td>{n.file ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            );
          }}
        </Show>
      </Section>
      <Section title="Apply history">
        <Show loaded={history} what="the apply history">
          {(entries) =>
            entries.length === 0 ? (
              <Empty>Nothing applied yet.</Empty>
            ) : (
              <table data-testid="history">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">Commit</th>
                    <th scope="col">What changed</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((h) => (
                    <tr key={h.id}>
                      <td>{formatTime(h.applied_at)}</td>
                      <td>{h.applied_by}</td>
                      <td>{h.commit ? <code title={h.commit}>{h.commit.slice(0, 7)}</code> : 'no commit'}</td>
                      <td>{summaryText(h.summary)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Show>
      </Section>
    </>
  );
}

function summaryText(summary: unknown): string {
  if (summary && typeof summary === 'object') {
    const s = summary as Record<string, unknown>;
    if (typeof s.add === 'number' || typeof s.change === 'number' || typeof s.destroy === 'number') {
      return `${s.add ?? 0} added, ${s.change ?? 0} changed, ${s.destroy ?? 0} destroyed`;
    }
    return JSON.stringify(summary);
  }
  return String(summary ?? '—');
}
