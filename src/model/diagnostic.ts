/** A finding about the repository, located in a file. The JSON output of `validate` is this shape. */
export type Severity = 'error' | 'warning';

export interface Position {
  /** 1-based */
  line: number;
  /** 1-based */
  column: number;
}

export interface SourceRange {
  /** Repository-relative path with forward slashes. */
  filename: string;
  start: Position;
  end: Position;
}

export interface Diagnostic {
  severity: Severity;
  /** Stable code from DIAGNOSTIC_CODES, e.g. `unknown_check`. */
  code: string;
  summary: string;
  detail?: string;
  range?: SourceRange;
}
