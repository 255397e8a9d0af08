/**
 * DuckDB connections and file tables as DQOps writes them validate key by key: a DQOps home with a `duckdb`
 * block (files mode, csv options, directories, a remote folder) and a table file with `file_format` and
 * `file_paths` loads clean; a misspelt key or a wrong value is reported at its file:line:column.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../../src/manifest/loadRepository.js';

const homes: string[] = [];
afterAll(async () => Promise.all(homes.map((home) => rm(home, { recursive: true, force: true }))));

async function home(connection: string, table: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-duckdb-home-'));
  homes.push(dir);
  await mkdir(join(dir, 'sources', 'files'), { recursive: true });
  await writeFile(join(dir, 'sources', 'files', 'connection.dqoconnection.yaml'), connection);
  await writeFile(join(dir, 'sources', 'files', 'landing.orders.dqotable.yaml'), table);
  return dir;
}

const CONNECTION = `apiVersion: dqo/v1
kind: source
spec:
  provider_type: duckdb
  duckdb:
    read_mode: files
    files_format_type: csv
    storage_type: local
    directories:
      landing: /data/landing
      lake: s3://bucket/lake
    csv:
      delim: ";"
      header: true
      compression: gzip
      hive_partitioning: false
      new_line: lf
      skip: 1
    parquet:
      union_by_name: true
`;

const TABLE = `apiVersion: dqo/v1
kind: table
spec:
  file_format:
    csv:
      header: true
      ignore_errors: false
    file_paths:
      - /data/landing/orders/2024-01.csv
      - /data/landing/orders/2024-02.csv
  columns:
    id: {}
`;

describe('DuckDB connection and table files', () => {
  it('a DQOps home with a files connection and a file table loads without diagnostics', async () => {
    const state = await loadRepository(await home(CONNECTION, TABLE));
    expect(state.diagnostics).toEqual([]);
    expect(state.objects.map((o) => `${o.kind}:${o.name}`).sort()).toEqual(['source:files', 'table:files/landing.orders']);
  });

  it('a misspelt key or a wrong value in the duckdb block or file_format is reported at its line and column', async () => {
    const badConnection = CONNECTION.replace('      delim: ";"', '      delimiter: ";"').replace('read_mode: files', 'read_mode: folder');
    const badTable = TABLE.replace('      ignore_errors: false', '      ignore_error: false').replace('    file_paths:\n      - /data/landing/orders/2024-01.csv', '    file_paths:\n      - 7');
    const state = await loadRepository(await home(badConnection, badTable));
    const found = state.diagnostics.map((d) => `${d.severity} ${d.range?.filename}:${d.range?.start.line}:${d.range?.start.column} ${d.summary}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error sources\/files\/connection\.dqoconnection\.yaml:6:16 .*read_mode/),
        expect.stringMatching(/^error sources\/files\/connection\.dqoconnection\.yaml:13:7 .*delimiter/),
        expect.stringMatching(/^error sources\/files\/landing\.orders\.dqotable\.yaml:7:7 .*ignore_error/),
        expect.stringMatching(/^error sources\/files\/landing\.orders\.dqotable\.yaml:9:9 /),
      ]),
    );
  });
});
