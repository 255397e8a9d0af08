import { DqError, isDqError } from '../../model/index.js';

/**
 * Turns "cannot reach the store" failures (refused, unknown host, timeout, dropped connection, missing
 * database, bad credentials, unreadable folder) into STORE_UNREACHABLE with the reason in one line, so the CLI
 * prints a sentence rather than a stack. Other errors pass through unchanged.
 */
export function storeUnreachable(description: string, error: unknown, doing = 'cannot open the store'): DqError {
  if (isDqError(error)) return error;
  const reason = describeReason(error);
  return new DqError('STORE_UNREACHABLE', `${doing} ${description}: ${reason}`, { store: description, reason });
}

/** Errors that mean the connection itself failed, as opposed to a failing statement. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // Node socket errors, and SQLSTATE classes 08 (connection exception), 57P (operator intervention),
    // 28 (invalid authorization), 3D000 (database does not exist).
    if (/^E[A-Z]+$/.test(code)) return true;
    if (code.startsWith('08') || code.startsWith('57P') || code.startsWith('28') || code === '3D000') return true;
  }
  if (error instanceof AggregateError) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message);
}

function describeReason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    // Node 20 reports ECONNREFUSED for `localhost` as an AggregateError with an empty message (one per address).
    const inner = [...new Set(error.errors.map((each) => describeReason(each)))];
    return inner.join('; ');
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.trim();
    if (message) return message;
    if (typeof code === 'string') return code;
    return error.name;
  }
  return String(error);
}
