import { useState } from 'preact/hooks';
import type { ApiError, Profile } from '../api';
import { collectStatistics, runChecks } from '../actions';
import { links } from '../router';

/** Run checks / collect statistics for one table: shown only to roles that may (operator and admin). */
export function JobButtons({ profile, connection, schema, table }: { profile: Profile; connection: string; schema: string; table: string }) {
  const [message, setMessage] = useState<{ text: string; jobId?: number; bad?: boolean } | null>(null);
  if (!profile.can_run_checks && !profile.can_collect_statistics) return null;
  const start = async (what: string, action: () => Promise<{ jobId: { jobId: number } }>) => {
    setMessage({ text: `Starting ${what}…` });
    try {
      const started = await action();
      setMessage({ text: `${what} queued as job ${started.jobId.jobId}.`, jobId: started.jobId.jobId });
    } catch (error) {
      setMessage({ text: `${what} could not start: ${(error as ApiError).message}`, bad: true });
    }
  };
  return (
    <div class="actions">
      {profile.can_run_checks ? (
        <button type="button" onClick={() => start('Running checks', () => runChecks(connection, schema, table))}>
          Run checks
        </button>
      ) : null}
      {profile.can_collect_statistics ? (
        <button type="button" onClick={() => start('Collecting statistics', () => collectStatistics(connection, schema, table))}>
          Collect statistics
        </button>
      ) : null}
      {message ? (
        <span role="status" class={message.bad ? 'tone-bad' : ''}>
          {message.text} {message.jobId ? <a href={links.jobs()}>See jobs</a> : null}
        </span>
      ) : null}
    </div>
  );
}
