import { hostname, userInfo } from 'node:os';

/** Who runs this command, as recorded in the apply history and lock holders: DQCTL_ACTOR, else user@host. */
export function whoAmI(env: NodeJS.ProcessEnv): string {
  if (env.DQCTL_ACTOR) return env.DQCTL_ACTOR;
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers): keep "unknown"
  }
  return `${user}@${hostname()}`;
}
