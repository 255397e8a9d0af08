/**
 * One registry of error codes. Every error dqctl raises on purpose is a DqError with a code from here;
 * the CLI maps the code to an exit code in one place (cli/main.ts) and the server to an HTTP status.
 */
export const ERROR_CODES = {
  INVALID_ARGUMENT: { http: 400, exit: 1, description: 'A command-line option or request parameter is wrong.' },
  VALIDATION_FAILED: { http: 400, exit: 3, description: 'The repository has validation errors; nothing was planned or applied.' },
  REPOSITORY_UNREADABLE: { http: 400, exit: 1, description: 'The repository cannot be read (a missing folder, permission denied, not a git repository, an unknown git ref).' },
  PLAN_FILE_INVALID: { http: 400, exit: 1, description: 'A saved plan file cannot be read or has an unknown format_version.' },
  ENVIRONMENT_SWITCH_REFUSED: {
    http: 409,
    exit: 1,
    description: 'apply refused a plan for another environment (--env) than the one the live store was last applied with; pass --switch-env if that is intended.',
  },
  STALE_PLAN: { http: 409, exit: 1, description: 'A saved plan no longer matches the repository or the live store; run plan again.' },
  MASS_DELETE_REFUSED: { http: 409, exit: 1, description: 'The plan would delete more than half (or all) of the managed objects; pass --allow-mass-delete.' },
  OWNERSHIP_CONFLICT: { http: 409, exit: 1, description: 'An object in the repository is owned by another namespace in the live store.' },
  CONFIRMATION_REQUIRED: { http: 400, exit: 1, description: 'apply was not confirmed: pass --auto-approve when there is no terminal.' },
  APPLY_CANCELLED: { http: 400, exit: 1, description: 'apply was declined at the confirmation prompt.' },
  LOCK_TIMEOUT: { http: 423, exit: 1, description: 'The store lock is held by another operation and was not released within --lock-timeout.' },
  STORE_UNREACHABLE: { http: 503, exit: 1, description: 'The live store (PostgreSQL or the embedded data directory) cannot be opened.' },
  STORE_INCOMPATIBLE: { http: 500, exit: 1, description: 'The live store was written by a newer dqctl (unknown migration).' },
  UNKNOWN_NAME: { http: 404, exit: 1, description: 'A --connection, --table, --column or --check filter names nothing the live store holds (a typo); the message suggests the closest names.' },
  NOTHING_APPLIED: { http: 409, exit: 1, description: 'run checks or collect found no table in the live store: nothing was applied to it; apply a repository first.' },
  AMBIGUOUS_ID: { http: 400, exit: 1, description: 'An id prefix matches more than one object (an incident); the message lists the matches; give more characters.' },
  NOT_FOUND: { http: 404, exit: 1, description: 'The named object does not exist.' },
  ALREADY_EXISTS: { http: 409, exit: 1, description: 'An object of that name exists already.' },
  READ_ONLY_MANAGED: { http: 409, exit: 1, description: 'The object is managed by git and the server runs with --read-only-managed; change its file instead.' },
  BODY_INVALID: { http: 400, exit: 1, description: 'A request body is not valid JSON or does not match its schema; the violations are listed.' },
  MALFORMED_REQUEST: { http: 400, exit: 1, description: 'The HTTP request is malformed: a path that is not valid percent-encoded UTF-8, a broken request line or header.' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, exit: 1, description: 'A request body of a content type the route does not read; send application/json.' },
  URI_TOO_LONG: { http: 414, exit: 1, description: 'The request line or a path parameter is longer than the server accepts.' },
  HEADERS_TOO_LARGE: { http: 431, exit: 1, description: 'The request line and headers are larger than the server accepts (16 KB).' },
  REQUEST_TIMEOUT: { http: 408, exit: 1, description: 'The client did not send its whole request in time.' },
  PAYLOAD_TOO_LARGE: { http: 413, exit: 1, description: 'A request body is larger than the server accepts (default 5 MB).' },
  UNAUTHENTICATED: { http: 401, exit: 1, description: 'The request has no token, or a token the server does not know.' },
  FORBIDDEN: { http: 403, exit: 1, description: "The caller's role does not allow this operation." },
  INSECURE_BIND: { http: 500, exit: 1, description: 'serve refuses to listen on a non-loopback address without tokens; pass --tokens or --insecure.' },
  NOT_IMPLEMENTED: { http: 501, exit: 1, description: 'The operation needs a job executor this server was built without, or is one dqctl does not serve (DQOps Cloud features, the scheduler through the API, …).' },
  STORE_IN_USE: { http: 423, exit: 1, description: 'The embedded store is open in a running `dqctl serve`; run plan, apply, run checks, preview and the reads through it with --server URL, or stop it.' },
  SERVER_UNREACHABLE: { http: 502, exit: 1, description: 'The dqctl server given with --server cannot be reached, or did not answer as a dqctl server.' },
  LOCK_HELD: { http: 409, exit: 1, description: 'lock release refused: the holder is alive and the lock is younger than its TTL.' },
  EXPORT_WOULD_OVERWRITE: { http: 409, exit: 1, description: 'export would overwrite files that differ from the live state; nothing was written (pass --force).' },
  DQOPS_DATA_INVALID: { http: 400, exit: 1, description: 'A file of a DQOps `.data/` folder cannot be imported (not Parquet, a required column missing, a column of the wrong type, an unknown kind folder, a month folder that disagrees with its rows); the message names the file and column, and nothing of that import was stored.' },
  RULE_UNKNOWN: { http: 400, exit: 1, description: 'A check names a rule that dqctl cannot evaluate (not in the built-in catalog).' },
  RULE_INPUT_INVALID: { http: 400, exit: 1, description: 'A rule got a wrong threshold (unknown name, wrong type, a required one without default) or a malformed time period; stored as the check\'s execution error.' },
  SECRET_UNRESOLVED: { http: 400, exit: 1, description: 'A ${ENV_VAR} or ${credential://name} reference of a connection cannot be resolved (the variable is not set, the credential file is missing); the message names it, never a value.' },
  DATASOURCE_UNREACHABLE: { http: 502, exit: 1, description: 'The data source cannot be reached: connection refused, unknown host, connection timeout, no such database, or no free connection slot.' },
  DATASOURCE_AUTH_FAILED: { http: 502, exit: 1, description: 'The data source refused the credentials of the connection (authentication failed).' },
  DATASOURCE_TIMEOUT: { http: 504, exit: 1, description: 'A query on the data source ran longer than its statement timeout and was stopped.' },
  DATASOURCE_CONNECTION_LOST: { http: 502, exit: 1, description: 'The connection to the data source dropped while a query ran.' },
  DATASOURCE_QUERY_FAILED: { http: 502, exit: 1, description: 'The data source answered a query with an error: a table, schema or column that does not exist, permission denied, …' },
  QUERY_CANCELLED: { http: 409, exit: 1, description: 'A query on the data source was cancelled (its job was cancelled).' },
  JOB_FAILED: { http: 500, exit: 1, description: 'A job started on a dqctl server (`run checks --server`) failed for a reason other than its data sources failing tables; the message is the job\'s.' },
  INTERNAL: { http: 500, exit: 1, description: 'A bug in dqctl; please report it with the command that caused it.' },
} as const satisfies Record<string, { http: number; exit: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class DqError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'DqError';
    this.code = code;
    this.details = details;
  }

  get exitCode(): number {
    return ERROR_CODES[this.code].exit;
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }
}

export function isDqError(error: unknown): error is DqError {
  return error instanceof DqError;
}
