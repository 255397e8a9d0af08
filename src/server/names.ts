import { DqError } from '../model/index.js';

/**
 * Names arrive in URL paths and end up as file names (export writes them as DQOps files), so hostile ones are
 * refused with 400: empty, over 1,024 characters, control characters (NUL included), or a `.`/`..` segment.
 * `/` is allowed where DQOps allows it (rules, policies in sub-folders, table names, encoded as %2F).
 */
export const MAX_NAME_LENGTH = 1024;

export function checkName(what: string, name: string, options: { slashes?: boolean } = {}): string {
  if (name.length === 0) throw new DqError('INVALID_ARGUMENT', `${what} must not be empty`);
  if (name.length > MAX_NAME_LENGTH) throw new DqError('INVALID_ARGUMENT', `${what} is longer than ${MAX_NAME_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new DqError('INVALID_ARGUMENT', `${what} must not contain control characters`);
  const segments = name.split('/');
  if (!options.slashes && segments.length > 1) throw new DqError('INVALID_ARGUMENT', `${what} must not contain "/"`);
  if (segments.some((s) => s === '.' || s === '..' || s === '')) {
    throw new DqError('INVALID_ARGUMENT', `${what} must not contain empty, "." or ".." path segments`);
  }
  return name;
}
