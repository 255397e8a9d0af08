import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli.js';
import { anchorsOf, ROOT } from './markdownPages.js';

/**
 * Every `--help` that points into docs/ points at a page and a heading that exist, and every command's --help
 * points somewhere: after the docs split a link is the way from the terminal to the reference.
 */
function everyHelp(): Array<{ name: string; help: string; leaf: boolean }> {
  let printed = '';
  const io: CliIo = { stdout: (t) => (printed += t), stderr: (t) => (printed += t), interactive: false, color: false, prompt: async () => '', env: {}, cwd: ROOT };
  const program = buildProgram(io, () => {});
  const helps: Array<{ name: string; help: string; leaf: boolean }> = [];
  const visit = (command: Command, name: string) => {
    printed = '';
    command.outputHelp();
    helps.push({ name: name || 'dqctl', help: printed, leaf: command.commands.length === 0 });
    for (const sub of command.commands) visit(sub, name ? `${name} ${sub.name()}` : sub.name());
  };
  visit(program, '');
  return helps;
}

const HELPS = everyHelp();
const linksOf = (help: string) => [...help.matchAll(/\bdocs\/[\w.-]+\.md(?:#[\w-]+)?/g)].map((m) => m[0]);

describe('the docs links of every --help', () => {
  it('covers every command', () => {
    expect(HELPS.map((h) => h.name)).toEqual(expect.arrayContaining(['dqctl', 'plan', 'run checks', 'lock list', 'incidents mute', 'export dqops-data']));
  });

  it.each(HELPS.map((h) => [h.name, h] as const))('%s --help', (_, { help, leaf }) => {
    const links = linksOf(help);
    if (leaf) expect(links.length, 'a command with no Reference line').toBeGreaterThan(0);
    const broken = links.filter((link) => {
      const [page, anchor] = link.split('#');
      if (!existsSync(join(ROOT, page))) return true;
      return anchor !== undefined && !anchorsOf(page).has(anchor);
    });
    expect(broken).toEqual([]);
  });

  it('the real bin prints them', async () => {
    const run = await runCli(['run', 'checks', '--help'], { cwd: ROOT });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nReferences:\n {2}docs\/checks\.md#dqctl-run-checks\n {2}docs\/data-sources\.md#secrets\n$/);
  });
});
