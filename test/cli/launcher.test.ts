/**
 * bin/dqctl.js chooses what it runs: the bundle (dist/bundle/main.js) unless DQCTL_BUNDLE=off, there is none, or
 * it is older than dist/ (tsc run again without the bundle step); and it defines Node.js 21's `navigator` where
 * Node.js has none, before any of dqctl is loaded. The real launcher in a folder of its own, beside two stand-in
 * `main` modules that print which one ran (the real bundle is covered by startup.test.ts), with their times set.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const execFileAsync = promisify(execFile);
const LAUNCHER = resolve(import.meta.dirname, '../../bin/dqctl.js');

describe('bin/dqctl.js', () => {
  let dir: string;
  const stub = (name: string) =>
    `export async function main(argv) { process.stdout.write(JSON.stringify({ ran: ${JSON.stringify(name)}, args: argv.slice(2), userAgent: globalThis.navigator?.userAgent ?? null })); return Number(argv[2] ?? 0); }\n`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-launcher-'));
    await mkdir(join(dir, 'bin'));
    await mkdir(join(dir, 'dist', 'cli'), { recursive: true });
    await mkdir(join(dir, 'dist', 'bundle'));
    await copyFile(LAUNCHER, join(dir, 'bin', 'dqctl.js'));
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
    await writeFile(join(dir, 'dist', 'cli', 'main.js'), stub('unbundled'));
    await writeFile(join(dir, 'dist', 'bundle', 'main.js'), stub('bundle'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function launch(times: { bundle: number; unbundled: number }, env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<{ code: number; out: { ran: string; args: string[]; userAgent: string | null } }> {
    await utimes(join(dir, 'dist', 'bundle', 'main.js'), times.bundle, times.bundle);
    await utimes(join(dir, 'dist', 'cli', 'main.js'), times.unbundled, times.unbundled);
    const run = await execFileAsync(process.execPath, [join(dir, 'bin', 'dqctl.js'), ...args], { env: { ...process.env, DQCTL_BUNDLE: '', ...env } }).catch(
      (error: { code: number; stdout: string }) => ({ stdout: error.stdout, code: error.code }),
    );
    return { code: 'code' in run ? run.code : 0, out: JSON.parse(run.stdout) };
  }

  it('runs the bundle when it is as new as dist/ or newer (a packed tarball gives every file the same time)', async () => {
    expect((await launch({ bundle: 2_000_000, unbundled: 1_000_000 })).out.ran).toBe('bundle');
    expect((await launch({ bundle: 1_000_000, unbundled: 1_000_000 })).out.ran).toBe('bundle');
  });

  it('runs dist/ when the bundle is older (tsc ran again without the bundle step), or with DQCTL_BUNDLE=off', async () => {
    expect((await launch({ bundle: 1_000_000, unbundled: 2_000_000 })).out.ran).toBe('unbundled');
    expect((await launch({ bundle: 2_000_000, unbundled: 1_000_000 }, { DQCTL_BUNDLE: 'off' })).out.ran).toBe('unbundled');
  });

  it("passes the arguments, exits with main's code, and defines navigator as Node.js 21+ does", async () => {
    const run = await launch({ bundle: 2_000_000, unbundled: 1_000_000 }, {}, ['6']);
    expect(run.code).toBe(6);
    expect(run.out.args).toEqual(['6']);
    expect(run.out.userAgent).toMatch(/^Node\.js\/\d+/);
  });
});
