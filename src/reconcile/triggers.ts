import { relative, resolve, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { READ_ROOTS, SETTINGS_FILE } from '../manifest/repositorySource.js';

/**
 * What starts a reconcile pass besides the webhook (a route of the server): a watch of the repository folder
 * and a timer. Both only ask for a pass; the loop decides what a pass does (see reconciler.ts).
 */
export interface Trigger {
  stop(): Promise<void>;
}

export interface FolderWatchOptions {
  /** Quiet time after the last event before the trigger fires (default 200 ms): a save of many files is one pass. */
  debounceMs?: number;
  /** Fire at the latest this long after the first event, even while events keep coming (default 2 s). */
  maxWaitMs?: number;
  onError?: (error: Error) => void;
}

/** Whether a path of the repository is one dqctl reads: sources/, rules/, patterns/ (anything below) or dqctl.yaml. */
export function isWatchedPath(relativePath: string): boolean {
  if (relativePath === '') return true;
  const top = relativePath.split(/[\\/]/)[0];
  if (top === SETTINGS_FILE) return relativePath === SETTINGS_FILE;
  return (READ_ROOTS as readonly string[]).includes(top);
}

/**
 * Watches `dir` (chokidar) and calls `onChange` with the paths that changed, debounced. Only what dqctl reads
 * is watched, so `.git/`, `.dqctl/` (the embedded store may live inside the repository) and editors' folders
 * never trigger a pass. Resolves once the initial scan is done: a change after that is seen.
 */
export async function watchFolder(dir: string, onChange: (paths: string[]) => void, options: FolderWatchOptions = {}): Promise<Trigger> {
  const root = resolve(dir);
  const debounceMs = options.debounceMs ?? 200;
  const maxWaitMs = options.maxWaitMs ?? 2_000;
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;
  const fire = (): void => {
    timer = undefined;
    const paths = [...changed].sort();
    changed.clear();
    if (paths.length > 0) onChange(paths);
  };
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    ignored: (path: string) => {
      const rel = relative(root, path);
      if (rel.startsWith('..')) return false;
      return !isWatchedPath(rel.split(sep).join('/'));
    },
  });
  watcher.on('all', (_event, path) => {
    const rel = relative(root, path).split(sep).join('/');
    if (!isWatchedPath(rel)) return;
    if (changed.size === 0) firstAt = Date.now();
    changed.add(rel);
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - Date.now())));
  });
  watcher.on('error', (error) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
  await new Promise<void>((done) => watcher.once('ready', () => done()));
  return {
    async stop(): Promise<void> {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}

/** Calls `onTick` every `intervalMs` (drift is checked, and a git remote polled, on it even when nothing moved). */
export function startTimer(intervalMs: number, onTick: () => void): Trigger {
  const timer = setInterval(onTick, intervalMs);
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
    },
  };
}
