import { createInterface } from 'node:readline/promises';

/** What commands may touch of the outside world; tests and the bin pass different ones. */
export interface CliIo {
  stdout: (text: string) => void;
  /**
   * Resolves once stdout has taken what was written to it (a pipe whose reader is slower than dqctl: the text would
   * otherwise wait in dqctl's memory); absent: writes are taken at once (a file, a test's buffer).
   */
  stdoutDrained?: () => Promise<void>;
  stderr: (text: string) => void;
  /** True when stdin and stdout are terminals: the only case where apply may ask for confirmation. */
  interactive: boolean;
  color: boolean;
  /** The terminal that progress is drawn on (stderr when it is a terminal); undefined: no progress output. */
  progressStream?: NodeJS.WriteStream;
  /** Asks a question on the terminal and returns the answer. */
  prompt: (question: string) => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIo(): CliIo {
  quietOnClosedPipe();
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  return {
    stdout: (text) => process.stdout.write(text),
    stdoutDrained: () => (process.stdout.writableNeedDrain ? new Promise<void>((resolve) => process.stdout.once('drain', () => resolve())) : Promise.resolve()),
    stderr: (text) => process.stderr.write(text),
    interactive,
    color: colorWanted(process.env, Boolean(process.stdout.isTTY)),
    progressStream: process.stderr.isTTY ? process.stderr : undefined,
    prompt: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * Colours as https://no-color.org and https://force-color.org say: NO_COLOR (any value) turns them off,
 * FORCE_COLOR (anything but 0 or false) on, e.g. in a CI log that renders them; otherwise on a terminal only.
 */
export function colorWanted(env: NodeJS.ProcessEnv, terminal: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  return terminal && env.TERM !== 'dumb';
}

let pipeWatched = false;

/**
 * `dqctl plan | head`: when the reader of stdout goes away, the rest of the output is not wanted. End quietly, as
 * Unix tools do, instead of a stack trace for the EPIPE of the next write. Other write errors still surface.
 */
function quietOnClosedPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
