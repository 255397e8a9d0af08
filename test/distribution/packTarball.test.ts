import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What `npm pack` makes installs on a clean prefix, with the runtime dependencies only, through the same
 * script the repository's action (action.yml) runs, and the installed `dqctl` works: --version, and validate on
 * the example the package carries. npm reads package tarballs from the local cache (`--prefer-offline`; the
 * registry is asked only for the package lists `npm ci` did not cache).
 */
const execFileAsync = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

let dir: string;
let tarball: string;
let prefix: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dqctl-pack-'));
  prefix = join(dir, 'prefix');
  // dist/ is built by `npm test` (and by `npm ci` through prepare); --ignore-scripts does not build it again
  const { stdout } = await execFileAsync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], { cwd: ROOT });
  tarball = join(dir, stdout.trim().split('\n').pop()!);
  await execFileAsync('bash', [join(ROOT, 'scripts/install-dqctl.sh')], {
    cwd: dir,
    env: {
      ...process.env,
      DQCTL_TARBALL: tarball,
      RUNNER_TEMP: dir,
      GITHUB_OUTPUT: join(dir, 'github_output'),
      npm_config_prefix: prefix,
      npm_config_prefer_offline: 'true',
      npm_config_update_notifier: 'false',
      PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
    },
    timeout: 240_000,
  });
}, 300_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('packs the compiled CLI, its schemas, catalog and the example, and no sources or tests', async () => {
    const { stdout } = await execFileAsync('tar', ['-tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/bin/dqctl.js');
    expect(files).toContain('package/dist/cli/main.js');
    // what bin/dqctl.js loads: dqctl's modules bundled (scripts/bundle-cli.mjs), with its command chunks
    expect(files).toContain('package/dist/bundle/main.js');
    expect(files.filter((f) => f.startsWith('package/dist/bundle/chunk-')).length).toBeGreaterThan(10);
    expect(files).toContain('package/catalog/check-catalog.json');
    expect(files).toContain('package/schemas/table.dqotable.schema.json');
    expect(files.some((f) => f.startsWith('package/examples/shop/sources/'))).toBe(true);
    expect(files.filter((f) => /^package\/(src|test|bench|scripts)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toEqual([]);
  });

  it('installs with the runtime dependencies only', async () => {
    const installed = join(prefix, 'lib/node_modules/dqctl');
    const pkg = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      version: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const modules = await readdir(join(installed, 'node_modules'));
    for (const runtime of Object.keys(pkg.dependencies)) expect(modules).toContain(runtime.split('/')[0]);
    // by full name, and unless a runtime dependency asks for it too (npm installs mysql2's peer @types/node)
    const wanted = await dependenciesOfInstalled(join(installed, 'node_modules'));
    for (const dev of Object.keys(pkg.devDependencies)) {
      if (!wanted.has(dev)) expect(existsSync(join(installed, 'node_modules', dev)), `${dev} is a dev dependency`).toBe(false);
    }
    // the action's output
    expect(await readFile(join(dir, 'github_output'), 'utf8')).toBe(`version=${pkg.version}\n`);
  });

  it('runs: dqctl --version and dqctl validate on the example it carries', async () => {
    const dqctl = join(prefix, 'bin/dqctl');
    const version = await execFileAsync(dqctl, ['--version']);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout.trim()).toBe(pkg.version);
    const validate = await execFileAsync(dqctl, ['validate', join(prefix, 'lib/node_modules/dqctl/examples/shop')], { env: { ...process.env, NO_COLOR: '1' } });
    expect(validate.stdout).toMatch(/^valid: 0 warnings/);
  });
});

/** Every package that an installed package names among its own dependencies or peer dependencies (npm installs both). */
async function dependenciesOfInstalled(modules: string): Promise<Set<string>> {
  const names: string[] = [];
  for (const entry of await readdir(modules)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const scoped of await readdir(join(modules, entry))) names.push(`${entry}/${scoped}`);
    else names.push(entry);
  }
  const wanted = new Set<string>();
  for (const name of names) {
    const manifest = JSON.parse(await readFile(join(modules, name, 'package.json'), 'utf8').catch(() => '{}')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) wanted.add(dependency);
  }
  return wanted;
}
