import { DqError } from './errors.js';

/** `30s`, `2m`, `500ms`, `1h` or a plain number of seconds → milliseconds. */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new DqError('INVALID_ARGUMENT', `${option} must be a duration such as 30s, 2m or 500ms, not ${JSON.stringify(text)}`);
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit]!;
  return Math.round(value * factor);
}
