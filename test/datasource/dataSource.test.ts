import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyDataSourceError, DataSources, failureReason, type DataSourceSession } from '../../src/datasource/index.js';
import { DqError } from '../../src/model/index.js';
import { createSourceFixture, dqctlBackends, running as runningQuery, sampleMaxBackends, SECRET_PASSWORD, untilBackends, type SourceFixture } from './sourceFixture.js';

/** The pools of monitored sources, against a real PostgreSQL: secrets, read-only, timeouts, faults, cancel, limits. */
describe('data sources', () => {
  let source: SourceFixture;
  let credentials: string;
  const pools: DataSources[] = [];
  const sources = (options: ConstructorParameters<typeof DataSources>[0] = {}) => {
    const made = new DataSources({ env: source.env, credentialsDir: credentials, ...options });
    pools.push(made);
    return made;
  };

  beforeAll(async () => {
    source = await createSourceFixture();
    credentials = await mkdtemp(join(tmpdir(), 'dqctl-credentials-'));
    await mkdir(join(credentials, 'pg'));
    await writeFile(join(credentials, 'pg', 'user'), 'postgres\n');
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await rm(credentials, { recursive: true, force: true });
    await source.dispose();
  });

  it('connects with values resolved from ${ENV} and ${credential://…} references, as application_name dqctl', async () => {
    const spec = source.spec();
    (spec.postgresql as Record<string, unknown>).user = '${credential://pg/user}';
    const ds = sources().get('src', spec);
    const [row] = await ds.query<{ db: string; usr: string; app: string; ro: string; tz: string }>(
      `select current_database() as db, current_user as usr, current_setting('application_name') as app,
              current_setting('transaction_read_only') as ro, current_setting('TimeZone') as tz`,
    );
    expect(row).toEqual({ db: source.database.name, usr: 'postgres', app: 'dqctl', ro: 'on', tz: 'UTC' });
  });

  it('a missing variable is a SECRET_UNRESOLVED error naming the variable, never a value', async () => {
    const spec = source.spec();
    (spec.postgresql as Record<string, unknown>).password = '${DQ_NOT_SET_ANYWHERE}';
    const error = await sources().get('src', spec).query('select 1').catch((e) => e);
    expect(error).toBeInstanceOf(DqError);
    expect(error.code).toBe('SECRET_UNRESOLVED');
    expect(error.message).toContain('DQ_NOT_SET_ANYWHERE');
    expect(error.message).toContain('postgresql.password');

    const missingFile = source.spec();
    (missingFile.postgresql as Record<string, unknown>).user = '${credential://nope}';
    await expect(sources().get('src', missingFile).query('select 1')).rejects.toMatchObject({ code: 'SECRET_UNRESOLVED', message: expect.stringContaining('"nope"') });

    const escape = source.spec();
    (escape.postgresql as Record<string, unknown>).user = '${credential://../etc/passwd}';
    await expect(sources().get('src', escape).query('select 1')).rejects.toMatchObject({ code: 'SECRET_UNRESOLVED' });
  });

  it('every statement runs read-only: a write is refused with reason read_only', async () => {
    const ds = sources().get('src', source.spec());
    const error = await ds.query('create table stolen (x int)').catch((e) => e);
    expect(error).toMatchObject({ code: 'DATASOURCE_QUERY_FAILED', details: { reason: 'read_only', sqlstate: '25006' } });
    const [{ n }] = await source.admin<{ n: number }>(`select count(*)::int as n from pg_class where relname = 'stolen'`);
    expect(n).toBe(0);
  });

  it('a session\'s settings are data: a value with quotes, a backslash and a semicolon is set as it is, in a snapshot', async () => {
    const ds = sources().get('src', source.spec());
    const hostile = `x'); drop table t; select ('\\ "y"`;
    const rows = await ds.session(
      async (session) => [
        ...(await session.query<{ v: string; iso: string; ro: string }>(
          `select current_setting('application_name') as v, current_setting('transaction_isolation') as iso, current_setting('transaction_read_only') as ro`,
        )),
        ...(await session.query<{ v: string; iso: string; ro: string }>(`select current_setting('jit') as v, '' as iso, current_setting('TimeZone') as ro`)),
      ],
      { snapshot: true, settings: { application_name: hostile, jit: 'off' } },
    );
    expect(rows).toEqual([
      { v: hostile, iso: 'repeatable read', ro: 'on' },
      { v: 'off', iso: '', ro: 'UTC' },
    ]);
    // local to the transaction: the next session on the pool's connection is named dqctl again
    expect(await ds.query<{ v: string }>(`select current_setting('application_name') as v`)).toEqual([{ v: 'dqctl' }]);
  });

  it('a statement longer than the timeout is stopped: DATASOURCE_TIMEOUT, and the pool stays usable', async () => {
    const ds = sources({ statementTimeoutMs: 300 }).get('src', source.spec());
    const started = Date.now();
    const error = await ds.query('select pg_sleep(5)').catch((e) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toMatchObject({ code: 'DATASOURCE_TIMEOUT', details: { reason: 'statement_timeout', connection: 'src' } });
    expect(await ds.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    // a session may ask for its own timeout
    await expect(ds.query('select pg_sleep(0.5)', [], { statementTimeoutMs: 100 })).rejects.toMatchObject({ code: 'DATASOURCE_TIMEOUT' });
  });

  it('a source that refuses connections: DATASOURCE_UNREACHABLE with reason refused, and the secret never in the message', async () => {
    const spec = source.spec();
    (spec.postgresql as Record<string, unknown>).port = 1;
    const error = await sources({ connectTimeoutMs: 3000 }).get('refusing', spec).query('select 1').catch((e) => e);
    expect(error).toMatchObject({ code: 'DATASOURCE_UNREACHABLE', details: { reason: 'refused', connection: 'refusing' } });
    expect(error.message).toContain('refused');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(SECRET_PASSWORD);
  });

  it('an unknown host taken from a secret is redacted from the driver message', async () => {
    const env = { ...source.env, DQ_TEST_SOURCE_HOST: 'secret-host-7f3a.invalid' };
    const error = await sources({ env, connectTimeoutMs: 3000 }).get('src', source.spec()).query('select 1').catch((e) => e);
    expect(error.code).toBe('DATASOURCE_UNREACHABLE');
    expect(error.message).not.toContain('secret-host-7f3a');
  });

  it('a connection dropped mid-query: DATASOURCE_CONNECTION_LOST with reason dropped; the next query works', async () => {
    const ds = sources().get('src', source.spec());
    // the handler is attached at once: the rejection may come before the admin query below returns
    const running = ds.session((session) => session.query('select pg_sleep(20)')).catch((e: unknown) => e);
    await untilBackends(source, runningQuery('pg_sleep(20)'), 'pg_sleep(20) to run');
    const [victim] = (await dqctlBackends(source)).filter((b) => b.query.includes('pg_sleep(20)'));
    await source.admin('select pg_terminate_backend($1)', [victim.pid]);
    const error = await running;
    expect(error).toMatchObject({ code: 'DATASOURCE_CONNECTION_LOST', details: { reason: 'dropped' } });
    expect(await ds.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('aborting cancels the running statement on the server (pg_cancel_backend), then closes that connection', async () => {
    const ds = sources().get('src', source.spec());
    const controller = new AbortController();
    const running = ds.query('select pg_sleep(30)', [], { signal: controller.signal });
    await untilBackends(source, runningQuery('pg_sleep(30)'), 'pg_sleep(30) to run');
    const started = Date.now();
    controller.abort();
    const error = await running.catch((e) => e);
    expect(error).toMatchObject({ code: 'QUERY_CANCELLED', details: { reason: 'cancelled' } });
    expect(Date.now() - started).toBeLessThan(3000);
    await untilBackends(source, (backends) => !runningQuery('pg_sleep(30)')(backends), 'pg_sleep(30) to stop', 3000);
    // an aborted signal refuses to start at all
    await expect(ds.query('select 1', [], { signal: controller.signal })).rejects.toMatchObject({ code: 'QUERY_CANCELLED' });
  });

  it('never more than parallel_jobs_limit connections: 10 concurrent queries on a limit of 2', async () => {
    // the pools of the tests before keep idle connections (also named dqctl): close them first
    await Promise.all(pools.splice(0).map((p) => p.close()));
    await untilBackends(source, (backends) => backends.length === 0, 'no dqctl connections');
    const ds = sources().get('limited', source.spec({ parallel_jobs_limit: 2 }));
    const sampling = sampleMaxBackends(source);
    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, () => ds.query('select pg_sleep(0.2)')));
    const elapsed = Date.now() - started;
    const max = await sampling.stop();
    expect(max).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(5 * 200 - 50);
  });

  it('one pool per connection name, replaced when the spec changes', async () => {
    const registry = sources();
    const a = registry.get('one', source.spec());
    expect(registry.get('one', source.spec({ labels: ['changed'] }))).toBe(a);
    const b = registry.get('one', source.spec({ parallel_jobs_limit: 3 }));
    expect(b).not.toBe(a);
    expect(b.maxConnections).toBe(3);
    expect(registry.get('two', source.spec()).maxConnections).toBe(2);
  });

  it('a session owes its commit to the next session on its connection (one round trip), else commits it alone at once', async () => {
    await source.admin('create table owing (x int)');
    const ds = sources().get('owing', source.spec({ parallel_jobs_limit: 1 }));
    const sent: string[] = [];
    // the driver's query, counted (statements sent to this source)
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (this.database === source.database.name) sent.push(typeof args[0] === 'string' ? args[0] : (args[0] as { text: string }).text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    try {
      const snapshot = { snapshot: true };
      let pid = 0;
      const count = (session: DataSourceSession) => {
        pid = session.backendPid!;
        return session.query<{ n: number; at: string }>('select count(*)::int as n, now()::text as at from owing');
      };
      const idle = (backends: Awaited<ReturnType<typeof dqctlBackends>>) => backends.some((b) => b.pid === pid && b.state === 'idle');
      // back to back (no turn of the event loop between them): the second session's begin carries the first's commit
      const [a] = await ds.session(count, snapshot);
      const [b] = await ds.session(count, snapshot);
      expect(sent.filter((text) => text.includes('begin'))).toHaveLength(2);
      expect(sent.filter((text) => text.includes('begin'))[1]).toMatch(/^commit; begin isolation level repeatable read read only; select set_config/);
      expect(sent.filter((text) => text === 'commit')).toHaveLength(0);
      expect(a!.at).not.toBe(b!.at); // two transactions
      // nobody takes the connection: the owed commit goes alone, and no transaction stays open while idle
      await untilBackends(source, idle, 'the idle connection to commit');
      expect(sent.filter((text) => text === 'commit')).toHaveLength(1);
      // a row committed meanwhile is in the next session's snapshot
      await source.admin('insert into owing values (1)');
      expect((await ds.session(count, snapshot))[0]!.n).toBe(1);

      // a failing statement right after: its own error, rolled back, and the connection serves the next session
      sent.length = 0;
      await ds.query('select 1');
      const failed = await ds.query('select * from no_such_table').catch((e) => e);
      expect(failed).toMatchObject({ code: 'DATASOURCE_QUERY_FAILED', details: { reason: 'table_missing' } });
      expect(sent).toContain('rollback');
      expect(await ds.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);

      // the idle connection lost while its commit is owed (or after): the next session gets a new one
      await ds.session(count);
      await untilBackends(source, idle, 'the idle connection to commit');
      await source.admin('select pg_terminate_backend($1)', [pid]);
      await untilBackends(source, (backends) => !backends.some((b) => b.pid === pid), 'the connection to be gone');
      expect(await ds.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      pg.Client.prototype.query = original;
    }
  });

  it('other providers are refused with a clear error', async () => {
    const error = await sources().get('bq', { provider_type: 'bigquery', bigquery: {} }).query('select 1').catch((e) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(error.message).toContain('bigquery');
  });

  it('driver errors map to coded reasons, with secrets redacted', () => {
    const auth = classifyDataSourceError({ code: '28P01', message: 'password authentication failed for user "bob-the-secret"' }, 'c', 'connect', ['bob-the-secret']);
    expect(auth.code).toBe('DATASOURCE_AUTH_FAILED');
    expect(failureReason(auth)).toBe('auth_failed');
    expect(auth.message).not.toContain('bob-the-secret');
    expect(failureReason(classifyDataSourceError({ code: '42P01', message: 'relation "x" does not exist' }, 'c', 'query', []))).toBe('table_missing');
    expect(failureReason(classifyDataSourceError(new Error('Connection terminated unexpectedly'), 'c', 'query', []))).toBe('dropped');
    expect(failureReason(classifyDataSourceError(new Error('timeout exceeded when trying to connect'), 'c', 'connect', []))).toBe('connect_timeout');
    expect(failureReason(classifyDataSourceError({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND h' }, 'c', 'connect', []))).toBe('host_not_found');
  });
});
