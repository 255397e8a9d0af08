import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { dqctlCacheFolder } from '../model/index.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * A new embedded store starts as a copy of a template: a PGlite data folder made once by PGlite's initdb and
 * every migration of this dqctl, then closed cleanly, kept in the cache folder (`pglite-template-<key>`, see
 * model/cacheFolder.ts). Creating a PostgreSQL cluster inside WASM takes 15–35 s on a loaded 2-core machine;
 * copying the template's 40 MB takes well under a second, and the store then opens as any existing one.
 *
 * A cleanly shut-down data folder is a complete cluster (PostgreSQL's cold copy), so the copy is the same store
 * initdb and the migrations would have made (the migrations' `applied_at` is the template's time). The template is
 * keyed by PGlite's files and version and by the migrations' text: another PGlite or a changed migration gets a
 * template of its own. Its manifest lists every folder and file with its size and sha256; a copy is checked
 * against it file by file, and a template that does not match (a disk error, an edit) is deleted and the store
 * made by initdb, as without a template. Made in a folder of its own and renamed into place, so a process that
 * dies while making it leaves no template, and two processes making it at once both end with a whole one.
 * DQCTL_STORE_TEMPLATE=off creates every store with initdb.
 */
export interface TemplateOptions {
  env?: NodeJS.ProcessEnv;
}

/** Bumped when the template's layout or manifest changes. */
const TEMPLATE_FORMAT = 1;
const MANIFEST = 'manifest.json';
const DATA = 'data';
const COPIES_IN_FLIGHT = 16;

interface TemplateManifest {
  format: number;
  key: string;
  folders: string[];
  files: Array<{ path: string; size: number; sha256: string }>;
}

/**
 * Fills `dataDir`, which must not hold a cluster yet, with a copy of the template (made first if there is none).
 * False when it did not (turned off, the cache folder not writable, a template that failed its check): the caller
 * then creates the cluster with initdb. The caller holds the store folder's lock.
 */
export async function seedFromTemplate(dataDir: string, options: TemplateOptions = {}): Promise<boolean> {
  const env = options.env ?? process.env;
  if (env.DQCTL_STORE_TEMPLATE === 'off') return false;
  if (!(await isEmptyOrAbsent(dataDir))) return false;
  try {
    const key = await templateKey();
    const folder = join(dqctlCacheFolder(env), `pglite-template-${key.slice(0, 32)}`);
    let manifest = await readManifest(folder, key);
    if (!manifest) {
      await rm(folder, { recursive: true, force: true }); // a partial or foreign one: made again
      await makeTemplate(folder, key);
      manifest = await readManifest(folder, key);
      if (!manifest) return false;
    }
    const seed = `${dataDir}.seed-${process.pid}-${randomUUID()}`;
    try {
      if (!(await copyChecked(join(folder, DATA), seed, manifest))) {
        await rm(folder, { recursive: true, force: true }).catch(() => {});
        return false;
      }
      await rmdir(dataDir).catch(() => {}); // an empty folder left by an earlier open; rename needs it gone
      await rename(seed, dataDir);
      return true;
    } finally {
      await rm(seed, { recursive: true, force: true }).catch(() => {});
    }
  } catch {
    // the template only saves time: whatever went wrong, initdb makes the store as it always did
    return false;
  }
}

/**
 * What the template depends on: PGlite (its package.json, which names its version, and the sizes of the files initdb
 * and the engine run: an npm version never changes its files) and the migrations' text.
 */
async function templateKey(): Promise<string> {
  const require = createRequire(import.meta.url);
  const wasm = require.resolve('@electric-sql/pglite/pglite.wasm');
  const hash = createHash('sha256').update(`dqctl pglite template ${TEMPLATE_FORMAT}\n`);
  hash.update(await readFile(join(dirname(wasm), '..', 'package.json')));
  for (const file of [wasm, require.resolve('@electric-sql/pglite/initdb.wasm'), require.resolve('@electric-sql/pglite/pglite.data')]) {
    hash.update(`\n${(await stat(file)).size}`);
  }
  for (const migration of MIGRATIONS) hash.update(`\n${migration.version} ${migration.name}\n${migration.sql}`);
  return hash.digest('hex');
}

async function readManifest(folder: string, key: string): Promise<TemplateManifest | null> {
  try {
    const manifest = JSON.parse(await readFile(join(folder, MANIFEST), 'utf8')) as TemplateManifest;
    const valid =
      manifest.format === TEMPLATE_FORMAT &&
      manifest.key === key &&
      Array.isArray(manifest.folders) &&
      Array.isArray(manifest.files) &&
      manifest.files.some((file) => file.path === 'PG_VERSION') &&
      [...manifest.folders, ...manifest.files.map((file) => file.path)].every(isInsidePath);
    return valid ? manifest : null;
  } catch {
    return null;
  }
}

/** initdb and the migrations in a folder of its own, closed, listed, and renamed into place whole. */
async function makeTemplate(folder: string, key: string): Promise<void> {
  const build = `${folder}.build-${process.pid}-${randomUUID()}`;
  try {
    // imported here: openStore.ts imports this module for every store, and PGlite's package costs ~0.1 s of CPU to
    // load, which a command on a PostgreSQL store must not pay
    const { openPgliteClient } = await import('./sql/pgliteClient.js');
    const client = await openPgliteClient({ stateDir: build, openTimeoutMs: 10_000, operation: 'store template' });
    try {
      await migrate(client);
    } finally {
      await client.close();
    }
    const staged = join(build, 'template');
    await mkdir(staged);
    await rename(join(build, 'pglite'), join(staged, DATA));
    const manifest: TemplateManifest = { format: TEMPLATE_FORMAT, key, ...(await listFolder(join(staged, DATA))) };
    await writeFile(join(staged, MANIFEST), JSON.stringify(manifest));
    await rename(staged, folder).catch((error: NodeJS.ErrnoException) => {
      // another process put its template there first: the same content, keep theirs
      if (error.code !== 'EEXIST' && error.code !== 'ENOTEMPTY') throw error;
    });
  } finally {
    await rm(build, { recursive: true, force: true }).catch(() => {});
  }
}

async function listFolder(root: string): Promise<Pick<TemplateManifest, 'folders' | 'files'>> {
  const folders: string[] = [];
  const files: TemplateManifest['files'] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const entry of await readdir(join(root, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        folders.push(path);
        await walk(path);
      } else if (entry.isFile()) {
        const bytes = await readFile(join(root, path));
        files.push({ path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
      } else {
        throw new Error(`unexpected entry in a PGlite data folder: ${path}`);
      }
    }
  };
  await walk('');
  return { folders, files };
}

/** Copies the manifest's folders and files into `target`, checking each file's size and sha256 as it goes. */
async function copyChecked(source: string, target: string, manifest: TemplateManifest): Promise<boolean> {
  await mkdir(target, { recursive: true });
  for (const folder of manifest.folders) await mkdir(join(target, folder), { recursive: true });
  let next = 0;
  let intact = true;
  // a thousand small files: several in flight, as one at a time waits on the disk for each
  const copyOne = async (): Promise<void> => {
    while (intact && next < manifest.files.length) {
      const file = manifest.files[next++];
      const bytes = await readFile(join(source, file.path)).catch(() => null);
      if (!bytes || bytes.length !== file.size || createHash('sha256').update(bytes).digest('hex') !== file.sha256) {
        intact = false;
        return;
      }
      await writeFile(join(target, file.path), bytes);
    }
  };
  await Promise.all(Array.from({ length: COPIES_IN_FLIGHT }, copyOne));
  return intact;
}

/** A relative path that stays inside its folder: a foreign manifest must not make the copy write elsewhere. */
function isInsidePath(path: unknown): boolean {
  return typeof path === 'string' && /^[\w.-]+(\/[\w.-]+)*$/.test(path) && !path.split('/').some((part) => part === '.' || part === '..');
}

async function isEmptyOrAbsent(folder: string): Promise<boolean> {
  try {
    return (await readdir(folder)).length === 0;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
