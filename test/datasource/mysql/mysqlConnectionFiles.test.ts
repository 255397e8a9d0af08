/**
 * MySQL and MariaDB connections as DQOps writes them validate key by key: `mysql` (host, port, database, user,
 * password with references, sslmode as DQOps's MySqlSslMode, mysql_engine_type, properties) and `mariadb`
 * (the same without sslmode) load clean; a misspelt key or a wrong value is reported at its file:line:column.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../../src/manifest/loadRepository.js';

const homes: string[] = [];
afterAll(async () => Promise.all(homes.map((home) => rm(home, { recursive: true, force: true }))));

async function home(connections: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dqctl-mysql-home-'));
  homes.push(dir);
  for (const [name, text] of Object.entries(connections)) {
    await mkdir(join(dir, 'sources', name), { recursive: true });
    await writeFile(join(dir, 'sources', name, 'connection.dqoconnection.yaml'), text);
  }
  return dir;
}

const MYSQL = `apiVersion: dqo/v1
kind: source
spec:
  provider_type: mysql
  mysql:
    host: \${MYSQL_HOST}
    port: "3306"
    database: sales
    user: dq
    password: \${MYSQL_PASSWORD}
    sslmode: VERIFY_IDENTITY
    mysql_engine_type: mysql
    properties:
      connectTimeout: "5000"
`;

const MARIADB = `apiVersion: dqo/v1
kind: source
spec:
  provider_type: mariadb
  mariadb:
    host: db.example.com
    port: 3307
    database: crm
    user: dq
    password: \${credential://mariadb_password}
    properties:
      sslMode: verify-full
`;

describe('MySQL and MariaDB connection files', () => {
  it('load without diagnostics', async () => {
    const state = await loadRepository(await home({ sales: MYSQL, crm: MARIADB }));
    expect(state.diagnostics).toEqual([]);
    expect(state.objects.map((o) => `${o.kind}:${o.name}`).sort()).toEqual(['source:crm', 'source:sales']);
  });

  it('a misspelt key or a wrong value is reported at its line and column', async () => {
    const badMysql = MYSQL.replace('    sslmode: VERIFY_IDENTITY', '    sslmode: require').replace('    user: dq', '    username: dq');
    const badMariadb = MARIADB.replace('    port: 3307', '    port: [3307]').replace('    database: crm', '    sslmode: DISABLED\n    database: crm');
    const state = await loadRepository(await home({ sales: badMysql, crm: badMariadb }));
    const found = state.diagnostics.map((d) => `${d.severity} ${d.range?.filename}:${d.range?.start.line}:${d.range?.start.column} ${d.summary}`);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error sources\/sales\/connection\.dqoconnection\.yaml:9:5 .*username/),
        expect.stringMatching(/^error sources\/sales\/connection\.dqoconnection\.yaml:11:14 .*sslmode/),
        expect.stringMatching(/^error sources\/crm\/connection\.dqoconnection\.yaml:7:11 /),
        expect.stringMatching(/^error sources\/crm\/connection\.dqoconnection\.yaml:8:5 .*sslmode/),
      ]),
    );
  });
});
