import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { seedFromTemplate } from '../../src/store/pgliteTemplate.js';
import { openSqlClient } from '../../src/store/sql/openSqlClient.js';
import type { SqlQueryable } from '../../src/store/sql/sqlClient.js';
import { objectWrite } from './support/objectWrites.js';

/**
 * A new embedded store is a copy of the template (initdb + every migration, kept in the cache folder): the same
 * store initdb would have made, and a template that is not whole is never used.
 */
describe('pglite store: a new store from the template', () => {
  let root: string;
  let cache: string;
  const savedCache = process.env.DQCTL_CACHE_DIR;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'dqctl-template-'));
    cache = join(root, 'cache');
    process.env.DQCTL_CACHE_DIR = cache;
  });
  afterAll(async () => {
    process.env.DQCTL_CACHE_DIR = savedCache;
    await rm(root, { recursive: true, force: true });
  });

  const templateFolder = async (): Promise<string | undefined> => {
    const names = existsSync(cache) ? await readdir(cache) : [];
    const found = names.filter((name) => /^pglite-template-[0-9a-f]{32}$/.test(name));
    expect(found.length).toBeLessThanOrEqual(1);
    return found[0] && join(cache, found[0]);
  };
  /** The dqctl schema as the catalog describes it: tables, columns, types, defaults, indexes, constraints, storage. */
  const schemaOf = async (sql: SqlQueryable): Promise<unknown[]> => [
    ...(await sql.query(
      `select table_name, column_name, data_type, column_default, is_nullable from information_schema.columns
        where table_schema = 'dqctl' order by table_name, column_name`,
    )),
    ...(await sql.query(`select tablename, indexname, indexdef from pg_indexes where schemaname = 'dqctl' order by indexname`)),
    ...(await sql.query(
      `select conname, pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname = 'dqctl' order by conname`,
    )),
    ...(await sql.query(
      `select c.relname, a.attname, a.attstorage from pg_attribute a join pg_class c on c.oid = a.attrelid
         join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'dqctl' and c.relkind = 'r' and a.attnum > 0
        order by c.relname, a.attname`,
    )),
  ];
  const withStore = async <T>(stateDir: string, work: (store: Store, sql: SqlQueryable) => Promise<T>): Promise<T> => {
    const store = await openStore({ stateDir, openTimeoutMs: 10_000 });
    await store.close();
    // the same folder through a bare client, to read the catalog
    const client = await openSqlClient({ stateDir, openTimeoutMs: 10_000 });
    try {
      return await work(store, client);
    } finally {
      await client.close();
    }
  };
  const appliedAt = (sql: SqlQueryable) =>
    sql.query<{ version: number; applied_at: string }>('select version, applied_at::text from dqctl.schema_migrations order by version');

  it('makes the template once for two stores created at once, and each is the store initdb and the migrations make', { timeout: 600_000 }, async () => {
    const [first, second] = await Promise.all(
      ['first', 'second'].map(async (name) => {
        const stateDir = join(root, name);
        const store = await openStore({ stateDir, openTimeoutMs: 10_000 });
        try {
          await store.withLock({ holder: 't', operation: 'apply', timeoutMs: 1_000 }, (tx) => tx.upsertObjects([objectWrite('source', name, { n: 1 })]));
          return (await store.listObjects()).map((object) => object.name);
        } finally {
          await store.close();
        }
      }),
    );
    expect([first, second]).toEqual([['first'], ['second']]);
    const folder = await templateFolder();
    expect(folder).toBeDefined();
    expect(JSON.parse(await readFile(join(folder!, 'manifest.json'), 'utf8'))).toMatchObject({ format: 1 });

    const fromTemplate = await withStore(join(root, 'third'), async (store, sql) => ({ schema: await schemaOf(sql), applied: await appliedAt(sql) }));
    const fourth = await withStore(join(root, 'fourth'), async (store, sql) => appliedAt(sql));
    // copies of one template: the migrations were applied once, when it was made
    expect(fourth).toEqual(fromTemplate.applied);
    expect(fromTemplate.applied.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));

    process.env.DQCTL_STORE_TEMPLATE = 'off';
    try {
      const byInitdb = await withStore(join(root, 'initdb'), async (store, sql) => ({ schema: await schemaOf(sql), applied: await appliedAt(sql) }));
      expect(byInitdb.applied).not.toEqual(fromTemplate.applied);
      expect(byInitdb.schema).toEqual(fromTemplate.schema);
    } finally {
      delete process.env.DQCTL_STORE_TEMPLATE;
    }
  });

  it('ignores a manifest that names a file outside the template, and makes the template again', { timeout: 600_000 }, async () => {
    const made = await withStore(join(root, 'third'), async (store, sql) => appliedAt(sql));
    const folder = (await templateFolder())!;
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as { files: Array<{ path: string }> };
    manifest.files[0].path = '../../escaped';
    await writeFile(join(folder, 'manifest.json'), JSON.stringify(manifest));

    const sixth = await withStore(join(root, 'sixth'), async (store, sql) => appliedAt(sql));
    expect(sixth.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
    expect(sixth).not.toEqual(made);
    expect(existsSync(join(root, 'escaped'))).toBe(false);
    expect(existsSync(join(cache, 'escaped'))).toBe(false);
    const again = JSON.parse(await readFile(join((await templateFolder())!, 'manifest.json'), 'utf8')) as { files: Array<{ path: string }> };
    expect(again.files.every((file) => !file.path.includes('..'))).toBe(true);
  });

  it('never copies a template whose files differ from its manifest: it is deleted and the store left to initdb', async () => {
    const folder = (await templateFolder())!;
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as { files: Array<{ path: string }> };
    await appendFile(join(folder, 'data', manifest.files.find((file) => file.path.startsWith('base/'))!.path), 'x');

    expect(await seedFromTemplate(join(root, 'damaged', 'pglite'))).toBe(false);
    expect(existsSync(join(root, 'damaged', 'pglite'))).toBe(false);
    expect(existsSync(join(root, 'damaged')) ? await readdir(join(root, 'damaged')) : []).toEqual([]); // no half copy left
    expect(await templateFolder()).toBeUndefined();
  });

  it('leaves a folder that already holds a cluster alone', async () => {
    expect(await seedFromTemplate(join(root, 'first', 'pglite'))).toBe(false);
    await withStore(join(root, 'first'), async (store, sql) => {
      expect(await sql.query('select name from dqctl.objects')).toEqual([{ name: 'first' }]);
    });
  });
});
