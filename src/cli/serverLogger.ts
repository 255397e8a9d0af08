import { PinoPretty } from 'pino-pretty';
import type { CliIo } from './io.js';

/**
 * The logger of `serve` and `demo`: one JSON object per line (pino's format: `level`, `time`, `msg` and the
 * event's fields) for log collectors, or the same events as human text on a terminal. `--log-format` chooses;
 * by default text when stdout is a terminal, JSON otherwise. Authorization headers are redacted either way
 * (request lines never carry headers anyway).
 */
export type LogFormat = 'json' | 'text';

export interface ServerLoggerOptions {
  level: string;
  /** Undefined: text on a terminal, JSON otherwise. */
  format?: LogFormat;
}

export function serverLogger(options: ServerLoggerOptions, io: CliIo, isTerminal = Boolean(process.stdout.isTTY)) {
  const format = options.format ?? (isTerminal ? 'text' : 'json');
  const base = { level: options.level, redact: ['req.headers.authorization'] };
  if (format === 'json') return base;
  const stream = PinoPretty({
    sync: true,
    colorize: io.color,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId',
    singleLine: true,
  });
  return { ...base, stream };
}
