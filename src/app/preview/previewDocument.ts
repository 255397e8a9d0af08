import type { CheckType, SeverityName, TimeScale } from '../../model/index.js';

/**
 * What `dqctl preview --format json` prints (format_version 1.0): for every check a change adds or modifies,
 * what its head settings would have said on the stored readouts of the last `days` days (backtest), and what
 * they say on the data now (live). Renderers (text, markdown) read this and nothing else.
 */
export const PREVIEW_FORMAT_VERSION = '1.0';

export type SeverityCounts = Record<SeverityName, number>;

export interface Backtest {
  /** Readouts backtested: the newest of each time period (and data group) in the window. */
  readouts: number;
  /** As stored when they ran. */
  before: SeverityCounts;
  /** Under the head revision's settings. */
  after: SeverityCounts;
}

export interface LiveOutcome {
  status: 'ran' | 'not_run';
  /** The readout (for several partitions or data groups: the most severe one's). */
  actual_value: number | null;
  expected_value: number | null;
  /** Under the head settings; null when not run (or the rule gave no verdict and nothing is configured). */
  severity: SeverityName | null;
  /** Why it did not run: --no-live, the live limit, the data source's error, the sensor's error. */
  reason: string | null;
  /** Partitioned checks (and grouped ones): how many partitions or data groups at each severity; else null. */
  partitions: SeverityCounts | null;
}

export interface PreviewCheck {
  connection: string;
  schema: string;
  table: string;
  column: string | null;
  check_type: CheckType;
  /** `daily` or `monthly`; null for profiling checks. */
  time_scale: TimeScale | null;
  check_name: string;
  change: 'added' | 'modified';
  source: string;
  /** null: no stored readouts of this check (or of one with the same sensor and parameters) in the window, or an error. */
  backtest: Backtest | null;
  /** Why the stored readouts could not be judged (the rule raised, could not be loaded, may not run here); else null. */
  backtest_error: string | null;
  live: LiveOutcome | null;
}

/** What a store and its data sources answer for a PreviewRequest (the server's answer too). */
export interface PreviewOutcome {
  checks: PreviewCheck[];
  /** Things the reader should know: tables left out of the live run, a rule that could not be backtested. */
  warnings: string[];
}

export interface PreviewDocument extends PreviewOutcome {
  format_version: typeof PREVIEW_FORMAT_VERSION;
  /** Full commit ids. */
  base: string;
  head: string;
  days: number;
}

export function zeroCounts(): SeverityCounts {
  return { valid: 0, warning: 0, error: 0, fatal: 0 };
}

