import { createInterface } from 'node:readline/promises';

/** What commands may touch of the outside world; tests and the bin pass different ones. */
export interface CliIo {
  stdout: (text: string) => void;
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
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    interactive,
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
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
