/**
 * The words of DQOps's check model that every stage shares: check types, time scales, and severities with
 * their numbers (0 valid, 1 warning, 2 error, 3 fatal, as DQOps stores them in results and incidents). One
 * place, so a stage cannot spell them differently or rank them differently.
 */
export const CHECK_TYPES = ['profiling', 'monitoring', 'partitioned'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

export function isCheckType(value: unknown): value is CheckType {
  return typeof value === 'string' && (CHECK_TYPES as readonly string[]).includes(value);
}

/** A check type read from outside (a stored row, a message): refused when it is none of DQOps's three. */
export function toCheckType(value: string): CheckType {
  if (!isCheckType(value)) throw new Error(`${JSON.stringify(value)} is not a check type (${CHECK_TYPES.join(', ')})`);
  return value;
}

export const TIME_SCALES = ['daily', 'monthly'] as const;
export type TimeScale = (typeof TIME_SCALES)[number];

/** The severities a rule can be configured with, in rising order. */
export const RULE_SEVERITIES = ['warning', 'error', 'fatal'] as const;
export type RuleSeverity = (typeof RULE_SEVERITIES)[number];

/** The outcome of a check, its index is DQOps's severity number. */
export const SEVERITY_NAMES = ['valid', 'warning', 'error', 'fatal'] as const;
export type SeverityName = (typeof SEVERITY_NAMES)[number];
export type SeverityNumber = 0 | 1 | 2 | 3;

export const SEVERITY_NUMBERS: Readonly<Record<SeverityName, SeverityNumber>> = { valid: 0, warning: 1, error: 2, fatal: 3 };

export function severityName(severity: SeverityNumber): SeverityName {
  return SEVERITY_NAMES[severity];
}

/** The higher of two severities (an incident's highest severity as failures join it). */
export function higherSeverity(a: SeverityNumber, b: SeverityNumber): SeverityNumber {
  return b > a ? b : a;
}

export function isSeverityNumber(value: unknown): value is SeverityNumber {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/** A severity read from outside the type system (a database row, a sensor's output): checked, never assumed. */
export function toSeverityNumber(value: number): SeverityNumber {
  if (!isSeverityNumber(value)) throw new RangeError(`no severity ${value}`);
  return value;
}

/**
 * A check result's status as the API and the console word it: its severity, or `execution_error` when the
 * check could not run (the result has no severity).
 */
export const RESULT_STATUSES = [...SEVERITY_NAMES, 'execution_error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

/** A table's or an object's status: a result's, or `not_run` while it has no result. */
export const QUALITY_STATUSES = [...RESULT_STATUSES, 'not_run'] as const;
export type QualityStatus = (typeof QUALITY_STATUSES)[number];

export function resultStatusOf(severity: SeverityNumber | null): ResultStatus {
  return severity === null ? 'execution_error' : SEVERITY_NAMES[severity];
}
