import { CommanderError } from 'commander';
import { ValidationFailed } from '../app/validationFailed.js';
import { isDqError } from '../model/index.js';
import { processIo, type CliIo } from './io.js';
import { buildProgram } from './program.js';
import { diagnosticsReport, renderDiagnosticsText } from './render/diagnostics.js';

/**
 * The one place that turns outcomes into exit codes (their table, one meaning each: EXIT_CODES in exitCodes.ts;
 * a DqError's code gives its own, 1 or 3). Errors are printed as one clear line; stack traces only with DQCTL_DEBUG=1.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let result: Promise<number> | undefined;
  const program = buildProgram(io, (promise) => {
    result = promise;
  });
  program.exitOverride();
  try {
    await program.parseAsync(argv);
    return result ? await result : 0;
  } catch (error) {
    return reportError(error, io, argv);
  }
}

function reportError(error: unknown, io: CliIo, argv: string[]): number {
  if (error instanceof CommanderError) {
    // help and version "errors" are successes; commander already printed the message
    return error.exitCode === 0 ? 0 : 1;
  }
  if (error instanceof ValidationFailed) {
    const json = argv.includes('json') && argv.some((a) => a === '--format' || a.startsWith('--format='));
    if (json) io.stdout(JSON.stringify(diagnosticsReport(error.desired.diagnostics), null, 2) + '\n');
    else io.stderr(renderDiagnosticsText(error.desired.diagnostics, error.desired.texts, io.color));
    io.stderr(`Error: ${error.message}\n`);
    return error.exitCode;
  }
  if (isDqError(error)) {
    io.stderr(`Error: ${error.message}\n`);
    if (io.env.DQCTL_DEBUG && error.stack) io.stderr(error.stack + '\n');
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`Error: internal error: ${message}\n`);
  if (io.env.DQCTL_DEBUG && error instanceof Error && error.stack) io.stderr(error.stack + '\n');
  else io.stderr('(set DQCTL_DEBUG=1 for the stack trace, and please report it)\n');
  return 1;
}
