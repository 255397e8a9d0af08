import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { openStore } from '../../src/store/openStore.js';
import { createSourceFixture, SECRET_PASSWORD, SEED_SQL, type SourceFixture } from '../datasource/sourceFixture.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/** `dqctl import tables` and `dqctl collect statistics`, run in-process against a repository with secret references. */
describe('import tables and collect statistics commands', () => {
  let source: SourceFixture;
  let store: TestDatabase;
  let dir: string;
  let repo: string;

  const run = async (args: string[], env: Record<string, string> = {}) => {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      interactive: false,
      color: false,
      prompt: async () => '',
      env: { ...source.env, DQCTL_DATABASE_URL: store.url, DQ_TEST_SOURCE_PASSWORD: SECRET_PASSWORD, ...env },
      cwd: dir,
    };
    const code = await main(['node', 'dqctl', ...args], io);
    return { code, stdout, stderr };
  };

  beforeAll(async () => {
    source = await createSourceFixture(SEED_SQL + 'create table public.gone (x int);');
    store = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-ds-cli-'));
    repo = join(dir, 'home');
    await mkdir(join(repo, 'sources', 'src'), { recursive: true });
    await mkdir(join(repo, '.credentials'));
    await writeFile(join(repo, '.credentials', 'source_db'), `${source.database.name}\n`);
    const spec = source.spec();
    const pg = spec.postgresql as Record<string, unknown>;
    await writeFile(
      join(repo, 'sources', 'src', 'connection.dqoconnection.yaml'),
      `apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: \${DQ_TEST_SOURCE_HOST}\n    port: \${DQ_TEST_SOURCE_PORT}\n` +
        `    database: \${credential://source_db}\n    user: ${pg.user}\n    password: \${DQ_TEST_SOURCE_PASSWORD}\n`,
    );
    expect((await run(['apply', repo, '--auto-approve'])).code).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await store.drop();
    await source.dispose();
  });

  it('import tables reads the credential from <repository>/.credentials and writes the tables', async () => {
    const result = await run(['import', 'tables', '--connection', 'src', '--repository', repo]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+ src/Sales "EU".order lines.2024');
    expect(result.stdout).toContain('2 created, 0 updated, 0 unchanged.');
    const json = await run(['import', 'tables', '--connection', 'src', '--repository', repo, '--schema', 'Sales*', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ connection: 'src', created: [], updated: [], unchanged: ['src/Sales "EU".order lines.2024'] });
  });

  it('without the credentials folder the error names the credential, exit 1', async () => {
    const result = await run(['import', 'tables', '--connection', 'src', '--credentials-dir', join(dir, 'nowhere')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('source_db');
    expect(result.stderr).not.toContain(source.database.name);
  });

  it('collect statistics: a summary, exit 0; a failed table: its reason, exit 1; JSON output', async () => {
    const ok = await run(['collect', 'statistics', '--connection', 'src', '--table', 'Sales "EU".*', '--repository', repo]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/ok\s+src\/Sales "EU"\.order lines\.2024\s+8 columns, 70 results/);
    expect(ok.stdout).toContain('1 ok, 0 failed; 70 collectors on 8 columns (8 fully analyzed), 70 results stored, 0 collectors failed.');

    await source.admin('drop table public.gone');
    const failed = await run(['collect', 'statistics', '--table', 'public.gone', '--repository', repo, '--format', 'json']);
    expect(failed.code).toBe(4); // part of the work failed on the data source (was 1, which also meant "dqctl failed")
    const report = JSON.parse(failed.stdout);
    expect(report.result).toMatchObject({ executed_statistics_collectors: 10, total_collectors_failed: 10, total_collected_results: 0 });
    expect(report.tables[0]).toMatchObject({ table: 'src/public.gone', status: 'failed', error: { code: 'DATASOURCE_QUERY_FAILED' } });
    expect(failed.stderr).toContain('Error: statistics collection failed for 1 of 1 table');

    const one = await run(['collect', 'statistics', '--table', 'Sales "EU".order lines.2024', '--column', 'Flag', '--column', 'doc', '--category', 'nulls', '--repository', repo, '--format', 'json']);
    expect(JSON.parse(one.stdout).result).toEqual({
      executed_statistics_collectors: 4,
      columns_analyzed: 2,
      columns_successfully_analyzed: 2,
      total_collectors_failed: 0,
      total_collected_results: 4,
    });

    const opened = await openStore({ databaseUrl: store.url });
    try {
      const stats = await opened.latestStatistics({ connectionName: 'src', columnName: 'Flag', collectorName: 'nulls_count' });
      expect(stats.map((s) => s.resultDouble)).toEqual([1]);
    } finally {
      await opened.close();
    }

    // read back: the latest value of each statistic
    const shown = await run(['statistics', '--table', 'Sales "EU".*', '--column', 'Flag']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^TABLE\s+COLUMN\s+DATA GROUP\s+STATISTIC\s+VALUE$/m);
    expect(shown.stdout).toMatch(/src\/Sales "EU"\.order lines\.2024\s+Flag\s+all data\s+nulls\/nulls_count\s+1$/m);
    const json = JSON.parse((await run(['statistics', '--connection', 'src', '--format', 'json'])).stdout);
    const flagNulls = json.statistics.filter((r: { tableName: string; columnName: string; collectorName: string }) => r.tableName === 'order lines.2024' && r.columnName === 'Flag' && r.collectorName === 'nulls_count');
    expect(flagNulls).toMatchObject([{ resultDouble: 1, dataGroup: 'all data' }]);
    // the table that disappeared shows its collectors' errors
    expect(json.statistics.some((r: { tableName: string; errorMessage: string | null }) => r.tableName === 'gone' && r.errorMessage?.includes('does not exist'))).toBe(true);
    // a table the store does not hold is a typo, refused (it printed "No statistics", exit 0: the defect of issue 26)
    const unknown = await run(['statistics', '--table', 'public.nothing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Error: --table: no table named "public.nothing"');
  });
});
