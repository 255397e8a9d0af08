import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import pg from 'pg';
import { BIN } from '../helpers/cli.js';

/** The real `dqctl serve` as a child process, for the reconcile CLI tests. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Served {
  child: ChildProcess;
  port: number;
  url: string;
  stderr(): string;
  stdout(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts `dqctl serve ...args --port <free>` and waits until its stderr holds `readyText`. */
export async function serve(args: string[], cwd: string, options: { env?: NodeJS.ProcessEnv; readyText?: string; timeoutMs?: number } = {}): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '', ...options.env },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const readyText = options.readyText ?? 'is reconciling';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print "${readyText}": ${err}`)), options.timeoutMs ?? 60_000);
    const check = () => {
      if (err.includes(readyText)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${err}`));
    });
  });
  return { child, port, url: `http://127.0.0.1:${port}`, stderr: () => err, stdout: () => out, exited };
}

/** Kills the children with SIGKILL and resolves once each has exited (its store connections closed with it). */
export async function killAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A query on a PostgreSQL database (a fresh connection each time: the server may restart between calls). */
export async function query<R extends object>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}

export async function livePriorityIn(url: string): Promise<number | null> {
  const rows = await query<{ priority: number | null }>(
    url,
    `select (spec->>'priority')::int as priority from dqctl.objects where kind = 'table' and name = 'shop_oltp/public.orders'`,
  ).catch(() => []);
  return rows[0]?.priority ?? null;
}
