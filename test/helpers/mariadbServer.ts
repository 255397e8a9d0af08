import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';

/**
 * A private MariaDB server for one test file: Debian's `mariadb-server` (`mariadb-install-db`, `/usr/sbin/mysqld`)
 * started on a free port in a temporary folder, with a user `dqctl` whose password is `PASSWORD`, and stopped by
 * `stop()`. When MariaDB is not installed this throws, so the tests that need it fail instead of skipping
 * (`.ci/run` installs it).
 */
export const MARIADB_USER = 'dqctl';
export const MARIADB_PASSWORD = 'mariadb-secret-3f9a';

export interface MariadbServer {
  port: number;
  /** Runs statements as root (over the socket), e.g. to create fixtures. */
  admin(statements: string[]): Promise<void>;
  stop(): Promise<void>;
}

const MYSQLD = '/usr/sbin/mysqld';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** `bufferPoolSize`: InnoDB's buffer pool (default 32M; a benchmark's table wants it in memory). */
export async function startMariadb(options: { bufferPoolSize?: string } = {}): Promise<MariadbServer> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-mariadb-'));
  const datadir = join(dir, 'data');
  const socket = join(dir, 'mysqld.sock');
  const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
  const install = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${datadir}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...asRoot], { encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`mariadb-install-db failed (is mariadb-server installed?): ${install.error?.message ?? install.stderr}`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    MYSQLD,
    ['--no-defaults', `--datadir=${datadir}`, `--socket=${socket}`, `--port=${port}`, '--bind-address=127.0.0.1', '--skip-log-bin', `--innodb-buffer-pool-size=${options.bufferPoolSize ?? '32M'}`, `--pid-file=${join(dir, 'mysqld.pid')}`, `--tmpdir=${dir}`, ...asRoot],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const rootConnection = () => mysql.createConnection({ socketPath: socket, user: 'root', multipleStatements: false });
  // mysqld says when it accepts connections: wait for that line (or its exit), not for a polling loop
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      void rm(dir, { recursive: true, force: true }).finally(() => reject(new Error(`MariaDB did not start: ${why}\n${log}`)));
    };
    const timer = setTimeout(() => fail('no "ready for connections" within 60 s'), 60_000);
    const early = () => fail(`mysqld exited (${child.exitCode})`);
    const check = () => {
      if (!log.includes('ready for connections')) return;
      clearTimeout(timer);
      child.stderr?.off('data', check);
      child.off('exit', early);
      resolve();
    };
    child.stderr?.on('data', check);
    child.once('exit', early);
    check();
  });
  const admin = async (statements: string[]) => {
    const connection = await rootConnection();
    try {
      for (const statement of statements) await connection.query(statement);
    } finally {
      await connection.end();
    }
  };
  await admin([`create user '${MARIADB_USER}'@'%' identified by '${MARIADB_PASSWORD}'`, `grant all privileges on *.* to '${MARIADB_USER}'@'%'`]);
  return {
    port,
    admin,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
