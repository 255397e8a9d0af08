import type { Command } from 'commander';

/**
 * Every exit code a command uses, in one table (printed by `dqctl --help`, kept equal to docs/exit-codes.md's by a
 * test), and which of them each command uses (printed by its own --help). Each code has one meaning across
 * every command, so a script can tell "dqctl failed" (1) from "the data has a warning" (5). main.ts is the only
 * place that exits; the handlers return these names.
 */
export const EXIT = {
  ok: 0,
  error: 1,
  detailed: 2,
  invalid: 3,
  couldNotRun: 4,
  warning: 5,
  errorResult: 6,
  fatal: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES: ReadonlyArray<{ code: ExitCode; meaning: string }> = [
  { code: EXIT.ok, meaning: 'success: valid, no changes, no check result at --fail-at or above' },
  { code: EXIT.error, meaning: 'dqctl could not do what was asked: a bad option, an unknown name in a filter, nothing applied, store or server unreachable, lock timeout, stale or refused plan, …' },
  { code: EXIT.detailed, meaning: '--detailed-exitcode found something to act on: plan: there are changes; preview: a check would fail now' },
  { code: EXIT.invalid, meaning: 'the repository does not validate (nothing was planned or applied)' },
  { code: EXIT.couldNotRun, meaning: 'part of the work failed on a data source: a check could not run (execution error), a table\'s statistics or a check\'s error samples could not be collected' },
  { code: EXIT.warning, meaning: 'run checks: the highest result is a warning, at --fail-at warning' },
  { code: EXIT.errorResult, meaning: 'run checks: the highest result is an error, at or above --fail-at' },
  { code: EXIT.fatal, meaning: 'run checks: the highest result is a fatal, at or above --fail-at' },
];

/** The codes of each command, by its full name (`lock release`); every other command uses 0 and 1. */
const COMMAND_CODES: Record<string, Record<number, string>> = {
  validate: { 0: 'valid (warnings allowed)', 1: 'error (an unreadable folder, …)', 3: 'the repository does not validate' },
  plan: { 0: 'no changes (or changes without --detailed-exitcode)', 1: 'error', 2: '--detailed-exitcode: there are changes', 3: 'the repository does not validate' },
  apply: { 0: 'applied, or nothing to apply', 1: 'error (lock timeout, stale or refused plan, not confirmed, …)', 3: 'the repository does not validate' },
  diff: { 0: 'the diff was printed', 1: 'error (unknown ref, …)', 3: 'the head revision does not validate' },
  preview: {
    0: 'the preview was printed',
    1: 'error (unknown ref, store or server unreachable, …)',
    2: '--detailed-exitcode: a check would fail now (live: error or fatal)',
    3: 'the head revision does not validate',
  },
  demo: { 0: 'done (--no-serve), or the server was stopped', 1: 'error', 3: 'the repository does not validate', 4: '--no-serve: a check could not run' },
  'run checks': {
    0: 'no result at --fail-at or above',
    1: 'error of dqctl (an unknown name in a filter, nothing applied, store or server unreachable, options)',
    4: 'a check could not run (execution error)',
    5: 'the highest result is a warning, at --fail-at warning',
    6: 'the highest result is an error, at or above --fail-at',
    7: 'the highest result is a fatal, at or above --fail-at',
  },
  'collect statistics': { 0: 'collected', 1: 'error (an unknown name in a filter, nothing applied, …)', 4: 'a table whose statistics could not be collected' },
  'collect error-samples': { 0: 'collected', 1: 'error (an unknown name in a filter, nothing applied, …)', 4: 'a check whose samples could not be collected' },
};

const DEFAULT_CODES: Record<number, string> = { 0: 'success', 1: 'error' };

export function exitCodesTable(): string {
  return ['Exit codes (each command’s --help lists its own):', ...EXIT_CODES.map((e) => `  ${e.code}  ${e.meaning}`)].join('\n');
}

export function commandExitCodes(name: string): Record<number, string> {
  return COMMAND_CODES[name] ?? DEFAULT_CODES;
}

/** Adds "Exit codes: …" to the --help of every command that runs something (not to groups such as `lock`). */
export function addExitCodesToHelp(program: Command): void {
  const visit = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const name = prefix ? `${prefix} ${sub.name()}` : sub.name();
      if (sub.commands.length > 0) visit(sub, name);
      else if (name !== 'help') {
        const codes = commandExitCodes(name);
        sub.addHelpText('after', `\nExit codes:\n${Object.entries(codes).map(([code, meaning]) => `  ${code}  ${meaning}`).join('\n')}`);
      }
    }
  };
  visit(program, '');
}
