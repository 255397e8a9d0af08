import type { ObjectStatusRowModel } from './apiTypes.generated';

/**
 * Severity, sync and status are always written as words; colour only adds to them (the `tone` class). The
 * vocabularies are the server's (its schema of an object's row), so a status added there needs its word here.
 */
export type QualityStatus = ObjectStatusRowModel['quality_status'];
export type SyncStatus = ObjectStatusRowModel['sync_status'];
export type ObjectKindName = ObjectStatusRowModel['kind'];

export const QUALITY_WORDS: Record<QualityStatus, string> = {
  valid: 'valid',
  warning: 'warning',
  error: 'error',
  fatal: 'fatal',
  execution_error: 'execution error',
  not_run: 'not run',
};

export const QUALITY_ORDER: QualityStatus[] = ['fatal', 'error', 'warning', 'execution_error', 'valid', 'not_run'];

export const SYNC_WORDS: Record<string, string> = {
  Synced: 'synced',
  OutOfSync: 'out of sync',
  Missing: 'missing',
  Extraneous: 'not in git',
  Drifted: 'changed outside git',
  Unknown: 'unknown',
};

export const KIND_WORDS: Record<ObjectKindName, string> = {
  source: 'connection',
  table: 'table',
  rule: 'rule',
  sensor: 'sensor',
  check: 'check definition',
  dictionary: 'dictionary',
  default_table_checks: 'table policy',
  default_column_checks: 'column policy',
  default_schedules: 'default schedules',
  default_notifications: 'default notifications',
};

export const KIND_PLURAL: Record<ObjectKindName, string> = {
  source: 'connections',
  table: 'tables',
  rule: 'rules',
  sensor: 'sensors',
  check: 'check definitions',
  dictionary: 'dictionaries',
  default_table_checks: 'table policies',
  default_column_checks: 'column policies',
  default_schedules: 'default schedules',
  default_notifications: 'default notifications',
};

/** DQOps's incident severities: 1 warning, 2 error, 3 fatal; an issue without one is an execution error. */
export function incidentSeverityWord(severity: number | null): string {
  if (severity === null) return QUALITY_WORDS.execution_error;
  return ['valid', 'warning', 'error', 'fatal'][severity] ?? `severity ${severity}`;
}

export function toneOfQuality(status: string | null | undefined): string {
  switch (status) {
    case 'valid':
    case 'Synced':
    case 'finished':
    case 'resolved':
      return 'tone-good';
    case 'warning':
    case 'Drifted':
    case 'Extraneous':
    case 'acknowledged':
    case 'queued':
    case 'running':
      return 'tone-warn';
    case 'error':
    case 'OutOfSync':
    case 'Missing':
    case 'open':
    case 'failed':
      return 'tone-bad';
    case 'fatal':
      return 'tone-fatal';
    default:
      return 'tone-none';
  }
}

/** An ISO time, or epoch milliseconds (the incidents API's times, as DQOps serves them), in UTC. */
export function formatTime(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : many}`;
}

/** A table's failed results (the newest run of each check), worst first, as the overview and the table page both say it. */
export function failedResults(counts: { fatals: number; errors: number; warnings: number }): string {
  return [counts.fatals ? `${counts.fatals} fatal` : '', counts.errors ? plural(counts.errors, 'error') : '', counts.warnings ? plural(counts.warnings, 'warning') : '']
    .filter(Boolean)
    .join(', ') || '—';
}

/** Readouts as people read them: integers whole with thousands separators, others to six significant digits. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return Number(value.toPrecision(6)).toLocaleString('en-US', { maximumSignificantDigits: 6 });
}

/** A hash readout (a schema check's) as a hash: twelve hex digits, never as an amount. */
export function shortHash(value: number): string {
  const hex = Math.abs(Math.trunc(value)).toString(16);
  return hex.length > 12 ? hex.slice(0, 12) : hex.padStart(12, '0');
}
