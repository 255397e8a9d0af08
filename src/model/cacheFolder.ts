import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The folder where dqctl keeps what only saves work between runs (the parse cache, the embedded store's
 * template): DQCTL_CACHE_DIR, else $XDG_CACHE_HOME/dqctl, else ~/.cache/dqctl. Deleting it is always safe.
 */
export function dqctlCacheFolder(env: NodeJS.ProcessEnv = process.env): string {
  return env.DQCTL_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'dqctl');
}
