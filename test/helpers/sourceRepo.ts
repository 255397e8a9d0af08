import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `sources/<name>/connection.dqoconnection.yaml` of a DQOps user home for the test database at
 * `databaseUrl`, its user read from `${DQ_USER}` (no secret in the file); returns that variable for the env.
 */
export async function writeSourceConnection(repo: string, name: string, databaseUrl: string): Promise<{ DQ_USER: string }> {
  const url = new URL(databaseUrl);
  await mkdir(join(repo, 'sources', name), { recursive: true });
  await writeFile(
    join(repo, 'sources', name, 'connection.dqoconnection.yaml'),
    `apiVersion: dqo/v1\nkind: source\nspec:\n  provider_type: postgresql\n  postgresql:\n    host: ${url.hostname}\n    port: "${url.port || 5432}"\n    database: ${url.pathname.slice(1)}\n    user: \${DQ_USER}\n`,
  );
  return { DQ_USER: decodeURIComponent(url.username) || 'postgres' };
}
