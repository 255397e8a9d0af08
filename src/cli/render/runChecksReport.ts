import type { RunChecksOutcome } from '../../app/inProcessJobs/runChecksInProcess.js';
import type { RunChecksResult } from '../../app/types.js';
import { EXIT, type ExitCode } from '../exitCodes.js';
import type { CliIo } from '../io.js';
import { int64Json, SEVERITY_NUMBERS, type RuleSeverity } from '../../model/index.js';

/** The report of `dqctl run checks`, local or `--server`: the same counts, the same text, the same exit code. */
export type FailAt = RuleSeverity;


const EXIT_OF_SEVERITY: Record<RuleSeverity, ExitCode> = { warning: EXIT.warning, error: EXIT.errorResult, fatal: EXIT.fatal };

/**
 * Exit code of `run checks`: 4 when a check could not run (execution error); otherwise the code of the highest
 * severity (5 warning, 6 error, 7 fatal) when it reaches --fail-at, else 0. Codes 1 to 3 keep their meaning of
 * every command (1: dqctl itself failed), so a script can tell bad data from a broken run.
 */
export function exitCodeOf(result: RunChecksResult, failAt: FailAt): ExitCode {
  if (result.execution_errors > 0) return EXIT.couldNotRun;
  const highest = result.highest_severity;
  if (!highest || highest === 'valid' || SEVERITY_NUMBERS[highest] < SEVERITY_NUMBERS[failAt]) return EXIT.ok;
  return EXIT_OF_SEVERITY[highest];
}

/** Prints the outcome (text or JSON) and returns the exit code. */
export function reportRunChecks({ result, tables, failed }: RunChecksOutcome, options: { format: 'text' | 'json'; failAt: FailAt }, io: CliIo, elapsedMs: number, whereToSee: string): number {
  if (options.format === 'json') {
    const failedTables = failed.map((t) => ({ table: t.table, code: t.code, error: t.message }));
    io.stdout(int64Json(failed.length > 0 ? { ...result, failed_tables: failedTables } : result, 2) + '\n');
  } else {
    for (const t of failed) io.stdout(`  FAILED  ${t.table}  ${t.message ?? ''}\n`);
    io.stdout(
      `Ran ${result.executed_checks} check${result.executed_checks === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s: ` +
        `${result.valid_results} valid, ${result.warnings} warning${result.warnings === 1 ? '' : 's'}, ${result.errors} error${result.errors === 1 ? '' : 's'}, ` +
        `${result.fatals} fatal, ${result.execution_errors} execution error${result.execution_errors === 1 ? '' : 's'}` +
        `${result.highest_severity ? `; highest severity: ${result.highest_severity}` : ''}.\n` +
        (failed.length > 0 ? `The data source failed ${failed.length} of ${tables} tables; their checks are stored as execution errors.\n` : '') +
        (result.executed_checks > 0 ? `${whereToSee}\n` : 'No check matched the filters.\n'),
    );
  }
  return exitCodeOf(result, options.failAt);
}

