/**
 * The words of DQOps's check model that every stage shares: check types, time scales, and severities with
 * their numbers (0 valid, 1 warning, 2 error, 3 fatal, as DQOps stores them in results and incidents). One
 * place, so a stage cannot spell them differently or rank them differently.
 */
export const CHECK_TYPES = ['profiling', 'monitoring', 'partitioned'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

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

export function severityName(severity: SeverityNumber | number): SeverityName {
  const name = SEVERITY_NAMES[severity];
  if (name === undefined) throw new RangeError(`no severity ${severity}`);
  return name;
}
