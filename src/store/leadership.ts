import type { AdvisoryKey, SqlClient, SqlSession } from './sql/sqlClient.js';

/**
 * Leadership among the processes that share one store (`serve` replicas on one PostgreSQL): a session-level
 * advisory lock, held on a connection of its own for as long as the process leads. PostgreSQL drops it with the
 * session (process killed, connection lost, server restarted), so a dead leader never blocks the others, and
 * `lost` tells a live one that it no longer leads. On PGlite one process owns the store, so the first caller in
 * the process leads until it releases.
 */
export interface Leadership {
  /** Give leadership up (unlock, and give the connection back). */
  release(): Promise<void>;
  /** Resolves when leadership ended without `release()`: the session is gone, so another process may lead now. */
  readonly lost: Promise<void>;
}

export interface LeadershipOptions {
  /** How often the held session is probed (`select 1`) to notice that it died (default 2 s). */
  probeMs?: number;
  /**
   * Requests addressed to the leader (Store.requestLeader: a NOTIFY on the role's channel), heard on the
   * leadership's own session for as long as it leads.
   */
  onRequest?: (payload: string) => void;
}

/** The NOTIFY channel of requests to the leader of a role. */
export function leaderChannel(role: string): string {
  return `dqctl_leader_${role}`;
}

export async function tryLeadership(
  client: SqlClient,
  key: AdvisoryKey,
  options: LeadershipOptions & { /** Where onRequest listens (default: the reconcile role's). */ channel?: string } = {},
): Promise<Leadership | null> {
  const session = await client.session({ dedicated: true });
  let locked: boolean;
  try {
    locked = await session.tryAdvisoryLock(key);
    if (locked && options.onRequest) await session.listen(options.channel ?? leaderChannel('reconcile'), options.onRequest);
  } catch (error) {
    await session.release(true).catch(() => {});
    throw error;
  }
  if (!locked) {
    await session.release();
    return null;
  }
  return holdLeadership(session, key, options.probeMs ?? 2_000);
}

function holdLeadership(session: SqlSession, key: AdvisoryKey, probeMs: number): Leadership {
  let ended = false;
  let markLost!: () => void;
  const lost = new Promise<void>((resolve) => {
    markLost = resolve;
  });
  const end = async (broken: boolean): Promise<void> => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    await session.release(broken).catch(() => {});
  };
  let probing = false;
  const timer = setInterval(() => {
    if (probing || ended) return;
    probing = true;
    session
      .query('select 1')
      .then(
        () => undefined,
        async () => {
          // The session is gone, and the lock with it (PostgreSQL drops session locks with the connection).
          await end(true);
          markLost();
        },
      )
      .finally(() => {
        probing = false;
      });
  }, probeMs);
  timer.unref();
  return {
    lost,
    async release(): Promise<void> {
      if (ended) return;
      // if the connection died, the lock died with it: close it instead of giving it back
      const broken = await session.advisoryUnlock(key).then(
        () => false,
        () => true,
      );
      await end(broken);
    },
  };
}
