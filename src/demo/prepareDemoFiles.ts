import { join } from 'node:path';
import { ensureDemoFiles, type DemoFilesConnection, type EnsureDemoFilesOptions } from './demoFiles.js';
import { makeDemoFilesHome, type LeftOutCheck } from './demoFilesHome.js';

/**
 * The demo without a PostgreSQL server: the demo files under `<state folder>/demo-files/` and a DuckDB copy of
 * the repository beside them (`demo-files/home`), which the demo then validates, applies, runs and serves in
 * place of the repository. `describeDemoFiles` is what the demo prints about it.
 */
export interface PreparedDemoFiles {
  /** The repository the demo uses from here on. */
  home: string;
  connections: DemoFilesConnection[];
  leftOut: LeftOutCheck[];
}

export async function prepareDemoFiles(repository: string, stateDir: string, options: EnsureDemoFilesOptions = {}): Promise<PreparedDemoFiles> {
  const folder = join(stateDir, 'demo-files');
  const connections = await ensureDemoFiles(join(folder, 'data'), options);
  const { home, leftOut } = await makeDemoFilesHome(repository, join(folder, 'home'), connections);
  return { home, connections, leftOut };
}

export function describeDemoFiles(prepared: PreparedDemoFiles, why: string): string {
  const lines = [`Data source: demo files read through DuckDB (embedded; ${why}).`];
  for (const files of prepared.connections) {
    const rows = Object.values(files.rows).reduce((sum, n) => sum + n, 0);
    const folders = [...new Set(Object.values(files.directories).map((d) => d.replace(/[\\/][^\\/]*$/, '')))];
    lines.push(
      `  ${files.connection} -> ${files.format} files in ${folders.join(', ')}: ${files.action}${files.reason ? ` (${files.reason})` : ''}, ` +
        `${Object.keys(files.rows).length} tables, ${rows} rows`,
    );
  }
  lines.push(`  the example's connections read them in a DuckDB copy of the repository: ${prepared.home}`);
  if (prepared.leftOut.length > 0) {
    lines.push(`  left out of that copy (PostgreSQL only, or not yet on DuckDB):`);
    for (const check of prepared.leftOut) lines.push(`    ${check.what}: ${check.reason}`);
  }
  lines.push(`  For the same demo on PostgreSQL, start one on 127.0.0.1:5432 or set DQCTL_DEMO_DATABASE_URL=postgres://user:password@host:5432/postgres.`);
  return `${lines.join('\n')}\n`;
}
