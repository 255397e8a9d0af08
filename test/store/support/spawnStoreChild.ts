import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { OpenStoreOptions } from '../../../src/store/store.js';

/**
 * Starts storeChild.ts in its own Node process and resolves once it prints READY (holding the lock, in the
 * middle of its transaction). `kill()` SIGKILLs it and waits for it to be gone: no exit handlers, no cleanup.
 */
export interface StoreChild {
  pid: number;
  kill(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./storeChild.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export async function spawnStoreChild(request: {
  options: OpenStoreOptions;
  mode: 'hold-lock' | 'half-write';
  tag?: string;
  count?: number;
}): Promise<StoreChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(request)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the store child did not get ready in 60s\n${stderr}`));
    }, 60_000);
    child.stdout!.on('data', (data: Buffer) => {
      stdout += data.toString();
      if (stdout.includes('READY\n')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (data: Buffer) => {
      stderr += data.toString();
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the store child exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
  });
  return {
    pid: child.pid!,
    async kill() {
      killProcess(child);
      await exited;
    },
  };
}

function killProcess(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
