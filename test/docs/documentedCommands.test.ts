import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { EXAMPLE, onTerminal, runCli } from '../helpers/cli.js';
import { fencedBlocks, PAGES } from './markdownPages.js';

/**
 * Every `dqctl …` line in a fenced code block of the README and docs/ is a command a reader may copy. Each must
 * name a command and options that exist (commander's own program: buildProgram); the ones that can run offline
 * (validate, plan, apply, show, diff, state list, export, history, lock list, --help) are run with the real bin,
 * page by page in the order a reader meets them, on a git copy of examples/shop with the embedded store in a
 * temporary folder, and must exit as documented: 0, or the `# exit N` their comment names.
 *
 * Synopsis lines (`[--port 8888]`, `a|b`, `…`) are checked, not run. A command line that cannot run here says
 * why in NOT_RUN, and every entry of NOT_RUN must still be documented, so the list cannot outlive its lines.
 */
const execFileAsync = promisify(execFile);

interface DocumentedCommand {
  page: string;
  line: number;
  /** As written, continuation lines joined, comment dropped. */
  text: string;
  comment: string;
  /** The words after `dqctl`, unquoted. */
  args: string[];
}

/** Words of a shell line: quotes removed, `\`-continuations already joined. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const [, single, double, bare] of text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(single ?? double ?? bare);
  return words;
}

/** The line without its `# comment` (a # after a space, outside quotes), and the comment. */
function splitComment(line: string): [string, string] {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return [line.slice(0, i).trimEnd(), line.slice(i + 1).trim()];
  }
  return [line.trimEnd(), ''];
}

function documentedCommands(page: string): DocumentedCommand[] {
  const commands: DocumentedCommand[] = [];
  for (const block of fencedBlocks(page)) {
    // a block that shows a terminal (`$ command` then its output): only the `$` lines are commands
    const transcript = block.lines.some((l) => l.startsWith('$ '));
    for (let i = 0; i < block.lines.length; i++) {
      let line = block.lines[i].trim();
      if (transcript) {
        if (!line.startsWith('$ ')) continue;
        line = line.slice(2);
      }
      if (!/^dqctl(\s|$)/.test(line)) continue;
      const first = i;
      let [code, comment] = splitComment(line);
      // `\` continues a command; an indented `[…` line continues a synopsis
      while (i + 1 < block.lines.length && (code.endsWith('\\') || /^\s+\[/.test(block.lines[i + 1]))) {
        const [next, nextComment] = splitComment(block.lines[++i].trim());
        code = `${code.replace(/\\$/, '').trimEnd()} ${next}`;
        comment = [comment, nextComment].filter(Boolean).join(' ');
      }
      commands.push({ page, line: block.firstLine + first, text: code, comment, args: shellWords(code).slice(1) });
    }
  }
  return commands;
}

const ALL = PAGES.flatMap(documentedCommands);

function program(): Command {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, interactive: false, color: false, prompt: async () => '', env: {}, cwd: ROOT_CWD };
  return buildProgram(io, () => {});
}
const ROOT_CWD = process.cwd();

/** A synopsis shows choices and placeholders; it is checked, never run. */
const isSynopsis = (c: DocumentedCommand) => c.args.some((a) => /^\[|\]$|\||…/.test(a));

/**
 * The commands a line names (`incidents acknowledge|resolve` names two) and its options, or what is wrong
 * with them.
 */
function resolveCommand(root: Command, args: readonly string[]): { commands: Command[]; options: string[]; problems: string[] } {
  const problems: string[] = [];
  let commands = [root];
  let at = 0;
  while (at < args.length && !/^[-[]/.test(args[at]) && commands[0].commands.length > 0) {
    const names = args[at].split('|');
    const found = names.map((name) => commands[0].commands.find((c) => c.name() === name));
    found.forEach((c, k) => c || problems.push(`no command "${[...pathOf(commands[0]), names[k]].join(' ')}"`));
    if (found.some((c) => !c)) return { commands: [], options: [], problems };
    commands = found as Command[];
    at++;
  }
  const options = args.flatMap((a) => a.split('|')).flatMap((a) => /^\[*(--[a-z][a-z0-9-]*)/.exec(a)?.[1] ?? []);
  for (const command of commands) {
    const known = new Set(['--help', ...command.options.map((o) => o.long).filter((l): l is string => Boolean(l))]);
    for (const option of options) if (!known.has(option)) problems.push(`"${['dqctl', ...pathOf(command)].join(' ')}" has no option ${option}`);
  }
  return { commands, options, problems };
}

function pathOf(command: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

describe('every dqctl command in the docs names a command and options that exist', () => {
  it('finds the documented commands', () => {
    expect(ALL.length).toBeGreaterThan(30);
    expect(ALL.map((c) => c.page)).toContain('README.md');
  });
  it.each(ALL.map((c) => [`${c.page}:${c.line}: dqctl ${c.args.join(' ')}`, c] as const))('%s', (_, command) => {
    expect(resolveCommand(program(), command.args).problems).toEqual([]);
  });
});

/** The commands that run offline, by their name under dqctl. */
const OFFLINE = new Set(['validate', 'plan', 'apply', 'show', 'diff', 'state list', 'export', 'history', 'lock list']);

/** Documented lines that cannot run offline, and why. Each must still be in the docs. */
const NOT_RUN: Record<string, string> = {
  'dqctl plan --git-ref v1.4.0 /srv/git/dq.git --path home': 'names a bare repository of the reader',
};

function runnable(command: DocumentedCommand): boolean {
  if (isSynopsis(command) || NOT_RUN[command.text] !== undefined) return false;
  if (command.args.includes('--help') || command.args.includes('--version')) return true;
  const { commands } = resolveCommand(program(), command.args);
  return commands.length === 1 && OFFLINE.has(pathOf(commands[0]).join(' '));
}

/** The reader's own paths stand for the copy of the example the commands run in. */
const READER_PATHS: Record<string, string> = { 'path/to/dqops-home': '.', 'examples/shop': '.' };

describe('the documented commands that run offline exit as documented (real bin, a git copy of examples/shop, embedded store)', { timeout: 600_000 }, () => {
  const folders: string[] = [];
  afterAll(async () => {
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  });

  it('lists only documented lines as not runnable', () => {
    const documented = new Set(ALL.map((c) => c.text));
    expect(Object.keys(NOT_RUN).filter((text) => !documented.has(text))).toEqual([]);
  });

  const pages = PAGES.filter((page) => ALL.some((c) => c.page === page && runnable(c)));
  it.each(pages)('%s', async (page) => {
    const dir = await mkdtemp(join(tmpdir(), 'dqctl-docs-'));
    folders.push(dir);
    const repo = join(dir, 'home');
    await cp(EXAMPLE, repo, { recursive: true });
    const git = (...args: string[]) => execFileAsync('git', args, { cwd: repo });
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('-c', 'user.name=docs', '-c', 'user.email=docs@example.com', 'commit', '-qm', 'the example shop');
    await git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    // the store is the embedded one of the copy (.dqctl under it), whatever this process's environment says
    const env = { DQCTL_STATE_DIR: join(dir, 'store'), DQCTL_DATABASE_URL: '', DQCTL_SERVER_URL: '', DQCTL_TOKEN: '', DQCTL_ENV: '' };
    const failures: string[] = [];
    for (const command of ALL.filter((c) => c.page === page && runnable(c))) {
      const args = command.args.map((a) => READER_PATHS[a] ?? a);
      const expected = Number(/\bexit (\d+)/.exec(command.comment)?.[1] ?? 0);
      // apply asks on a terminal; a reader types yes
      const asks = args[0] === 'apply' && !args.includes('--auto-approve') && !/\.json$/.test(args[1] ?? '');
      const run = asks ? await onTerminal(args, 'yes', repo, env) : await runCli(args, { cwd: repo, env, timeoutMs: 240_000 });
      const output = 'output' in run ? run.output : `${run.stdout}${run.stderr}`;
      if (run.code !== expected) failures.push(`${command.page}:${command.line}: dqctl ${args.join(' ')} exited ${run.code}, documented ${expected}:\n${output.slice(-1500)}`);
    }
    expect(failures).toEqual([]);
  });
});
