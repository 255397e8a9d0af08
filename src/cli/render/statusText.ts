import { padEndShown, shownWidth } from './columns.js';
import { maxOf } from '../../model/index.js';
import type { ObjectStatus, ReconcileStatus } from '../../app/types.js';

/**
 * `dqctl status` as text: one block of headline facts (repository, last apply, sync, health, last pass, lock),
 * then the objects that are not in sync and the findings of the repository. The JSON format prints the status
 * object itself.
 */
const SYMBOLS: Record<ObjectStatus['status'], string> = { Synced: '=', OutOfSync: '~', Missing: '+', Extraneous: '?', Drifted: '!' };

const REASONS: Record<string, string> = {
  create: 'in the repository, not in the live store',
  repository_changed: 'the repository changed it',
  adopt: 'created through the API, now in the repository (apply takes it over)',
  restore_drift: 'changed through the API; the next apply restores the repository version',
  drift_kept: 'changed through the API; kept (no --self-heal)',
  changed_through_api: 'changed through the API since the last apply',
  not_in_repository: 'its file left the repository; apply deletes it',
  prune_unmanaged: 'created through the API; deleted by --prune-unmanaged',
  unmanaged: 'created through the API, not in the repository',
  protected: 'not in the repository; protected by dqctl.yaml',
};

export function renderStatusText(status: ReconcileStatus): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${`${label}:`.padEnd(14)}${value}`);
  const repo = status.repository;
  if (repo) {
    const where = repo.type === 'git' ? `${repo.location} (git, branch ${repo.branch}${repo.path ? `, path ${repo.path}` : ''})` : `${repo.location} (folder)`;
    row('Repository', `${where}${repo.revision ? ` at ${repo.revision.slice(0, 12)}` : ''}`);
    if (repo.reachable === false) row('Remote', `UNREACHABLE: ${repo.fetch_error ?? 'fetch failed'}`);
  } else {
    row('Repository', '(none: pass --repo DIR or --server URL)');
  }
  const env = status.environment;
  if (env.loaded !== null || env.applied !== null) {
    row('Environment', `${env.loaded ?? '(none: no --env)'}${env.applied !== null && env.applied !== env.loaded ? `; the live store was applied with ${env.applied}` : ''}`);
  }
  const applied = status.last_applied;
  row('Last applied', applied ? `${applied.revision ? applied.revision.slice(0, 12) : '(no commit)'} at ${applied.applied_at} by ${applied.applied_by} (store revision ${applied.store_revision})` : 'never');
  const counts = Object.entries(status.counts)
    .map(([name, n]) => `${n} ${name}`)
    .join(', ');
  row('Sync', `${status.sync} (${counts})`);
  row('Health', status.health);
  if (status.message) row('', status.message);
  if (status.settings) {
    const settings = status.settings;
    row(
      'Loop',
      `${settings.auto_apply ? 'auto-apply' : 'report only'}, ${settings.self_heal ? 'self-heal' : 'no self-heal'}, every ${formatMs(settings.interval_ms)}${status.replica ? `, ${status.replica.leader ? 'leader' : 'follower'} (${status.replica.id})` : ''}${status.suspended ? `, SUSPENDED by ${status.suspended.by} since ${status.suspended.since}` : ''}`,
    );
  }
  const pass = status.last_pass;
  if (pass) {
    row('Last pass', `${pass.result} at ${pass.finished_at} (${formatMs(pass.duration_ms)}, ${pass.triggers.join('+')})${pass.applied ? `: ${pass.applied.add} added, ${pass.applied.change} changed, ${pass.applied.destroy} destroyed` : ''}`);
    if (pass.error) row('', pass.error);
  } else if (status.settings) {
    row('Last pass', status.pass_running ? 'running' : 'none yet');
  }
  const lock = status.lock;
  row('Lock', lock ? `held by ${lock.holder} (${lock.operation}${lock.pid !== null ? `, pid ${lock.pid}` : ''}${lock.host ? ` on ${lock.host}` : ''}, since ${lock.since})` : 'free');

  const shown = status.objects;
  if (shown.length > 0) {
    lines.push('', shown.every((o) => o.status === 'Synced') ? 'Objects:' : 'Objects not in sync:');
    const width = Math.min(60, maxOf(shown.map((o) => shownWidth(`${o.kind} ${JSON.stringify(o.name)}`))));
    for (const o of shown) {
      const address = padEndShown(`${o.kind} ${JSON.stringify(o.name)}`, width);
      const fields = o.fields.length > 0 ? `: ${o.fields.slice(0, 5).join(', ')}${o.fields.length > 5 ? `, … (${o.fields.length} fields)` : ''}` : '';
      lines.push(`  ${SYMBOLS[o.status]} ${address}  ${o.status.padEnd(10)} ${REASONS[o.reason] ?? o.reason}${fields}`);
    }
  }
  if (status.diagnostics.length > 0) {
    lines.push('', `Findings of the repository (${status.diagnostic_count.errors} error(s), ${status.diagnostic_count.warnings} warning(s)):`);
    for (const d of status.diagnostics.slice(0, 20)) {
      lines.push(`  ${d.file ? `${d.file}:${d.line}:${d.column}: ` : ''}${d.severity}[${d.code}]: ${d.summary}`);
    }
    if (status.diagnostics.length > 20) lines.push(`  … and ${status.diagnostic_count.errors + status.diagnostic_count.warnings - 20} more (dqctl validate lists them all)`);
  }
  return lines.join('\n') + '\n';
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms % 1000 === 0 && ms < 3_600_000) return `${ms / 1000}s`;
  return `${(ms / 1000).toFixed(1)} s`;
}
