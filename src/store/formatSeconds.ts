/** `30s`, `0.5s`: how long a lock wait lasted, as LOCK_TIMEOUT messages say it. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)}s`;
}
