import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportLive, objectPath } from '../../src/app/exportLive.js';
import { writeExport } from '../../src/app/writeExport.js';
import { loadRepository } from '../../src/manifest/loadRepository.js';
import { tableKey, type DesiredObject, type LiveObject } from '../../src/model/index.js';
import { EXAMPLE } from '../helpers/cli.js';
import { drifted, live } from '../helpers/objects.js';

/** What apply would have written for a desired object: its live twin, managed by git. */
function liveOf(d: DesiredObject, owner = 'shop'): LiveObject {
  return {
    kind: d.kind,
    name: d.name,
    spec: d.spec,
    attachments: d.attachments,
    contentHash: d.hash,
    appliedHash: d.hash,
    managedBy: 'git',
    owner,
    originFile: d.origin.file,
    originCommit: 'abc',
    revision: 1,
    applied: { spec: d.spec, attachments: d.attachments },
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
  };
}

/** Shuffles key order at every level, the way jsonb hands keys back in its own order. */
function shuffled<T>(value: T): T {
  if (Array.isArray(value)) return value.map(shuffled) as T;
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).reverse();
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffled(v)])) as T;
}

describe('exportLive: live objects → DQOps files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-export-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('round trip: the example exported and loaded again gives the same objects (names, hashes), with no findings', async () => {
    const desired = await loadRepository(EXAMPLE);
    const result = exportLive(desired.objects.map((d) => liveOf(d)));
    expect(result.warnings).toEqual([]);
    expect(result.replacedSecrets).toEqual([]);
    expect(result.objects).toBe(desired.objects.length);
    await writeExport(dir, result.files);
    const again = await loadRepository(dir);
    expect(again.diagnostics).toEqual([]);
    expect(again.settings.namespace).toBe('shop');
    expect(again.objects.map((o) => [o.kind, o.name, o.hash])).toEqual(desired.objects.map((o) => [o.kind, o.name, o.hash]));
    expect(again.fingerprint).toBe(desired.fingerprint);
  });

  it('round trip of a customized home: a sensor with its provider file and template, a check definition, a dictionary', async () => {
    const home = join(EXAMPLE, '..', '..', 'test', 'fixtures', 'customHome');
    const desired = await loadRepository(home);
    expect(desired.diagnostics).toEqual([]);
    expect(desired.objects.map((o) => `${o.kind}:${o.name}`)).toEqual([
      'source:shop',
      'table:shop/public.orders',
      'sensor:column/custom/accepted_count',
      'check:column/partitioned/daily/accepted_values/paid_status_count',
      'dictionary:statuses.csv',
    ]);
    const result = exportLive(desired.objects.map((d) => liveOf(d))); // owner "shop": a dqctl.yaml says so
    expect(result.warnings).toEqual([]);
    expect(result.files.map((f) => f.path)).toEqual([
      'checks/column/partitioned/daily/accepted_values/paid_status_count.dqocheck.yaml',
      'dictionaries/statuses.csv',
      'dqctl.yaml',
      'sensors/column/custom/accepted_count/postgresql.dqoprovidersensor.yaml',
      'sensors/column/custom/accepted_count/postgresql.sample.sql.jinja2',
      'sensors/column/custom/accepted_count/postgresql.sql.jinja2',
      'sensors/column/custom/accepted_count/sensordefinition.dqosensor.yaml',
      'sources/shop/connection.dqoconnection.yaml',
      'sources/shop/public.orders.dqotable.yaml',
    ]);
    await writeExport(dir, result.files);
    const again = await loadRepository(dir);
    expect(again.diagnostics).toEqual([]);
    expect(again.objects.map((o) => [o.kind, o.name, o.hash])).toEqual(desired.objects.map((o) => [o.kind, o.name, o.hash]));
    expect(await readFile(join(dir, 'dictionaries/statuses.csv'), 'utf8')).toBe('paid\nshipped\n');
    const sample = 'sensors/column/custom/accepted_count/postgresql.sample.sql.jinja2';
    expect(await readFile(join(dir, sample), 'utf8')).toBe(await readFile(join(home, sample), 'utf8'));
  });

  it('writes keys in the schema order and the same bytes whatever order the keys arrive in', async () => {
    const desired = await loadRepository(EXAMPLE);
    const objects = desired.objects.map((d) => liveOf(d));
    const first = exportLive(objects);
    const second = exportLive(objects.map((o) => ({ ...o, spec: shuffled(o.spec) })).reverse());
    expect(second.files).toEqual(first.files);
    const orders = first.files.find((f) => f.path === 'sources/shop_oltp/public.orders.dqotable.yaml')!.content;
    const lines = orders.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      '# yaml-language-server: $schema=https://dqctl.dev/schemas/table.dqotable.schema.json',
      'apiVersion: dqo/v1',
      'kind: table',
      'spec:',
    ]);
    // table spec properties in schema order: stage, priority, timestamp_columns, …, monitoring_checks, …, columns
    const top = lines.filter((l) => /^ {2}[a-z_]+:/.test(l)).map((l) => l.trim().split(':')[0]);
    expect(top.indexOf('stage')).toBeLessThan(top.indexOf('timestamp_columns'));
    expect(top.indexOf('monitoring_checks')).toBeLessThan(top.indexOf('columns'));
    // inside a check: parameters, then warning, error, fatal (the schema's order), not alphabetical
    const check = orders.slice(orders.indexOf('daily_row_count:'));
    expect(check.indexOf('warning:')).toBeLessThan(check.indexOf('error:'));
    expect(check.indexOf('error:')).toBeLessThan(check.indexOf('fatal:'));
  });

  it('names the schemas by --schema-base when given', () => {
    const [file] = exportLive([live('source', 'pg', { provider_type: 'postgresql' })], { schemaBase: '../../schemas/' }).files;
    expect(file.content.split('\n')[0]).toBe('# yaml-language-server: $schema=../../schemas/connection.dqoconnection.schema.json');
  });

  it('hostile names (spaces, slashes, quotes, percent, unicode, dots) round-trip through file names', async () => {
    const objects = [
      live('source', 'my "conn"', { provider_type: 'postgresql' }),
      live('source', 'a/b', { provider_type: 'postgresql' }),
      live('table', 'my "conn"/sales.we/ird "name" ü \'q\' 100%', { stage: 's' }),
      live('table', 'my "conn"/sales..hidden', { stage: 's' }),
      // a connection named a/b: its tables' keys encode the slash (model/tableIdentity), so the key splits at its first '/'
      live('table', tableKey({ connection: 'a/b', schema: 'x', table: 'y' }), { stage: 's' }),
      live('rule', 'odd/../..', { type: 'python' }),
      live('default_table_checks', 'sub folder/<all> tables?', { target: { table: '*' } }),
      live('default_column_checks', 'cols/ids', { target: { column: 'id' } }),
    ];
    const result = exportLive(objects);
    expect(result.warnings).toEqual([]);
    const paths = result.files.map((f) => f.path);
    expect(paths).toContain('sources/my %22conn%22/sales.we%2Fird %22name%22 ü %27q%27 100%25.dqotable.yaml');
    expect(paths).toContain('sources/a%2Fb/x.y.dqotable.yaml');
    expect(paths).toContain('rules/odd/%2E%2E/%2E%2E.dqorule.yaml');
    expect(paths).toContain('patterns/sub folder/%3Call%3E tables%3F.dqotablepattern.yaml');
    await writeExport(dir, result.files);
    const loaded = await loadRepository(dir);
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.objects.map((o) => [o.kind, o.name, o.hash]).sort()).toEqual(objects.map((o) => [o.kind, o.name, o.contentHash]).sort());
  });

  it('writes a git-managed object back to its origin file when that file gives its name (the author\'s spelling)', () => {
    const authored = live('table', 'c/s.a/b', { stage: 'x' }, { originFile: 'sources/c/s.a%2fb.dqotable.yaml' });
    const moved = live('table', 'c/s.other', { stage: 'x' }, { originFile: 'sources/c/s.not_this_name.dqotable.yaml' });
    const api = live('table', 'c/s.api', { stage: 'x' }, { managedBy: 'api', originFile: null, appliedHash: null });
    expect(exportLive([authored, moved, api]).files.map((f) => f.path)).toEqual([
      'sources/c/s.a%2fb.dqotable.yaml',
      'sources/c/s.api.dqotable.yaml',
      'sources/c/s.other.dqotable.yaml',
    ]);
  });

  it('refuses names no file name can hold, and says so', () => {
    expect(objectPath('table', 'conn/no_schema_dot')).toBeUndefined();
    expect(objectPath('rule', 'a//b')).toBeUndefined();
    const result = exportLive([live('table', 'conn/noschema', {})]);
    expect(result.files).toEqual([]);
    expect(result.warnings[0]).toContain('table "conn/noschema" is not exported');
  });

  it('replaces literal secrets by ${DQCTL_SECRET_…} references unless includeSecrets; references stay as written', () => {
    const source = live('source', 'shop-oltp', {
      provider_type: 'postgresql',
      postgresql: { host: 'db', user: '${PGUSER}', password: 'hunter2' },
    });
    const result = exportLive([source]);
    expect(result.files[0].content).toContain('password: ${DQCTL_SECRET_SHOP_OLTP_PASSWORD}');
    expect(result.files[0].content).toContain('user: ${PGUSER}');
    expect(result.files[0].content).not.toContain('hunter2');
    expect(result.replacedSecrets).toEqual([{ object: 'source "shop-oltp"', path: 'postgresql.password', variable: 'DQCTL_SECRET_SHOP_OLTP_PASSWORD' }]);
    const withSecrets = exportLive([source], { includeSecrets: true });
    expect(withSecrets.files[0].content).toContain('password: hunter2');
    expect(withSecrets.replacedSecrets).toEqual([]);
  });

  it('quotes strings YAML 1.1 readers would take for something else', () => {
    const [file] = exportLive([live('table', 'c/s.t', { stage: 'yes', filter: '2025-01-01', labels: ['on', '0755', '1:20', 'plain'] })]).files;
    expect(file.content).toContain('stage: "yes"');
    expect(file.content).toContain('filter: "2025-01-01"');
    expect(file.content).toContain('- "on"\n    - "0755"\n    - "1:20"\n    - plain');
  });

  it('onlyDrift: just the git-managed objects changed through the API, at their origin files', () => {
    const kept = live('table', 'c/s.kept', { stage: 'a' }, { originFile: 'sources/c/s.kept.dqotable.yaml' });
    const changed = drifted(live('table', 'c/s.changed', { stage: 'a' }, { originFile: 'sources/c/s.changed.dqotable.yaml' }), { stage: 'b' });
    const api = live('table', 'c/s.api', { stage: 'a' }, { managedBy: 'api', appliedHash: null, originFile: null });
    const result = exportLive([kept, changed, api], { onlyDrift: true });
    expect(result.files.map((f) => f.path)).toEqual(['sources/c/s.changed.dqotable.yaml']);
    expect(result.files[0].content).toContain('stage: b');
  });

  it('writes dqctl.yaml only for one non-default namespace, and never over an existing one', async () => {
    const one = exportLive([live('source', 'pg', {}, { owner: 'team-a' })]);
    expect(one.files.find((f) => f.path === 'dqctl.yaml')?.content).toContain('namespace: team-a');
    expect(exportLive([live('source', 'pg', {})]).files.some((f) => f.path === 'dqctl.yaml')).toBe(false);
    const two = exportLive([live('source', 'pg', {}, { owner: 'a' }), live('source', 'pg2', {}, { owner: 'b' })]);
    expect(two.files.some((f) => f.path === 'dqctl.yaml')).toBe(false);
    expect(two.namespaces).toEqual(['a', 'b']);
    await writeFile(join(dir, 'dqctl.yaml'), 'apiVersion: dqctl/v1\nkind: settings\nspec: {namespace: mine}\n');
    const outcome = await writeExport(dir, one.files);
    expect(outcome.kept).toEqual(['dqctl.yaml']);
    expect(await readFile(join(dir, 'dqctl.yaml'), 'utf8')).toContain('mine');
  });
});

describe('writeExport: never loses a file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-export-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses to overwrite a differing file without force, writing nothing; force overwrites; files it does not know stay', async () => {
    const objects = [live('source', 'a', { provider_type: 'postgresql' }), live('source', 'b', { provider_type: 'postgresql' })];
    const { files } = exportLive(objects);
    await mkdir(join(dir, 'sources/b'), { recursive: true });
    await writeFile(join(dir, 'sources/b/connection.dqoconnection.yaml'), 'local edit\n');
    await writeFile(join(dir, 'README.md'), 'mine\n');
    await expect(writeExport(dir, files)).rejects.toMatchObject({ code: 'EXPORT_WOULD_OVERWRITE', message: expect.stringContaining('sources/b/connection.dqoconnection.yaml') });
    await expect(readFile(join(dir, 'sources/a/connection.dqoconnection.yaml'))).rejects.toThrow();
    const forced = await writeExport(dir, files, { force: true });
    expect(forced.written.sort()).toEqual(['sources/a/connection.dqoconnection.yaml', 'sources/b/connection.dqoconnection.yaml']);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('mine\n');
    const again = await writeExport(dir, files);
    expect(again).toEqual({ written: [], unchanged: files.map((f) => f.path), kept: [] });
  });

  it('leaves a file that holds the same content written differently as it is (comments and layout kept)', async () => {
    const object = live('table', 'c/s.t', { stage: 'a', priority: 2 }, { originFile: 'sources/c/s.t.dqotable.yaml' });
    await mkdir(join(dir, 'sources/c'), { recursive: true });
    const handWritten = '# my comment\napiVersion: dqo/v1\nkind: table\nspec: {priority: 2, stage: a, labels: []}\n';
    await writeFile(join(dir, 'sources/c/s.t.dqotable.yaml'), handWritten);
    const outcome = await writeExport(dir, exportLive([object]).files);
    expect(outcome).toEqual({ written: [], unchanged: ['sources/c/s.t.dqotable.yaml'], kept: [] });
    expect(await readFile(join(dir, 'sources/c/s.t.dqotable.yaml'), 'utf8')).toBe(handWritten);
  });

  it('onlyDrift replaces a file that still holds the version git applied, but not one edited since', async () => {
    const base = live('table', 'c/s.t', { stage: 'a' }, { originFile: 'sources/c/s.t.dqotable.yaml' });
    await mkdir(join(dir, 'sources/c'), { recursive: true });
    const file = join(dir, 'sources/c/s.t.dqotable.yaml');
    await writeFile(file, '# as committed\napiVersion: dqo/v1\nkind: table\nspec:\n  stage: a\n');
    const { files } = exportLive([drifted(base, { stage: 'b' })], { onlyDrift: true });
    expect((await writeExport(dir, files)).written).toEqual(['sources/c/s.t.dqotable.yaml']);
    expect(await readFile(file, 'utf8')).toContain('stage: b');
    await writeFile(file, 'apiVersion: dqo/v1\nkind: table\nspec:\n  stage: edited locally\n');
    await expect(writeExport(dir, files)).rejects.toMatchObject({ code: 'EXPORT_WOULD_OVERWRITE' });
  });
});
