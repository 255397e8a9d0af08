import { ApiError, get, request, type ApplyEntry, type GitopsStatus, type NotSyncedObject, type Overview, type PlanSummary } from '../api';
import { Empty, Section, Show, Status, useLoad } from '../components/common';
import { links } from '../router';
import { formatTime, KIND_WORDS } from '../words';

/**
 * What `dqctl apply --server` would do now with its defaults (the server's pending plan), what the reconcile loop
 * applies on its own, what changed outside git since the last apply, and the apply history. Every part reads the
 * server's one comparison: a field is credited to git or to the API the same way here, in `dqctl plan` and in
 * `dqctl status`.
 */
export function Plan() {
  const overview = useLoad('plan-overview', () => get<Overview>('/api/overview'));
  // only a server running the reconcile loop has a pending plan: the others are not asked (no 404 to show)
  const loop = overview.data?.sync.loop;
  const plan = useLoad(`plan:${loop}`, async () => {
    if (loop === undefined) return new Promise<never>(() => {});
    if (!loop) return { text: null, loop: null, reason: 'this server runs no reconcile loop.' };
    try {
      const [text, loopPlan, status] = await Promise.all([
        request<string>('GET', '/api/gitops/plan?format=text', { text: true }),
        get<PlanSummary>('/api/gitops/plan?mode=loop'),
        get<GitopsStatus>('/api/gitops/status'),
      ]);
      return { text, loop: loopText(loopPlan, status), reason: null as string | null };
    } catch (error: unknown) {
      if (error instanceof ApiError && error.status === 404) return { text: null, loop: null, reason: error.message };
      throw error;
    }
  });
  const history = useLoad('history', () => get<ApplyEntry[]>('/api/gitops/history?limit=50'));
  return (
    <>
      <h1>Plan and drift</h1>
      <Section title="Plan">
        <Show loaded={plan} what="the plan">
          {(p) =>
            p.text !== null ? (
              <>
                <p data-testid="plan-assumes">
                  What <code>dqctl apply --server</code> would do now with its defaults (changes made outside git are restored; <code>--keep-drift</code>{' '}
                  keeps them):
                </p>
                <pre class="plan" data-testid="plan" tabIndex={0} aria-label="the plan as dqctl plan prints it">
                  {p.text.split('\n').map((line, n) => (
                    <span key={n} class={/^\s*\+/.test(line) ? 'add' : /^\s*-/.test(line) ? 'del' : /^\s*~/.test(line) ? 'chg' : ''}>
                      {line}
                      {'\n'}
                    </span>
                  ))}
                </pre>
                {p.loop && <p data-testid="plan-loop">{p.loop}</p>}
              </>
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
            const drifted = o.not_synced.filter((n) => n.drifted || n.status === 'Extraneous');
            return drifted.length === 0 ? (
              <Empty>Nothing: no object was changed or created through the API since the last apply.</Empty>
            ) : (
              <table data-testid="drift-table">
                <thead>
                  <tr>
                    <th scope="col">Object</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Status</th>
                    <th scope="col">Changed outside git</th>
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
                      <td>{outsideGitText(n)}</td>
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

/** The fields an object's API writes changed (a conflict said as such); created-through-the-API objects have none. */
function outsideGitText(n: NotSyncedObject): string {
  const fields = (n.changes ?? []).filter((c) => c.origin !== 'repository');
  if (fields.length === 0) return n.status === 'Extraneous' ? 'created through the API' : '—';
  // what happens to them is said above: by the plan (apply --server) and by the loop's sentence
  return fields.map((c) => (c.origin === 'both' ? `${c.path} (changed in git too)` : c.path)).join(', ');
}

/** What the reconcile loop applies on its own, in one sentence. */
function loopText(plan: PlanSummary, status: GitopsStatus): string {
  const settings = status.settings;
  if (!settings) return '';
  const count = plan.summary.add + plan.summary.change + plan.summary.destroy;
  if (!settings.auto_apply) return `The reconcile loop applies nothing on its own: it runs without --auto-apply.`;
  const drift = plan.drift.filter((d) => !d.restored).length;
  const does = count === 0 ? 'has nothing to apply' : `applies ${plan.summary.add} to add, ${plan.summary.change} to change, ${plan.summary.destroy} to destroy`;
  const kept = settings.self_heal ? ' and restores changes made outside git (--self-heal)' : drift > 0 ? `, and keeps the changes made outside git of ${drift} object(s) (no --self-heal)` : '';
  return `The reconcile loop ${does}${kept}.`;
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
