import type { CheckType, JsonObject, TimeScale } from '../../model/index.js';

/**
 * What a preview evaluates: the checks that a change between two revisions adds or modifies, with the head
 * revision's settings, grouped by table. The client computes it from git (changedChecks.ts) and evaluates it
 * against its own store and data sources, or posts it to a server (POST /api/gitops/preview), which evaluates it
 * with ITS store and connections, so no secret leaves the server. Plain JSON: the same shape on both sides
 * (schemas/api/PreviewRequest.json).
 */
export interface PreviewRequest {
  /** Backtest the readouts whose time period starts in the last `days` days. */
  days: number;
  /** false: no sensor runs on the data sources (every live outcome is `not_run`). */
  live: boolean;
  /** At most this many tables run live; the checks of the others are `not_run`, saying so. */
  live_limit: number;
  tables: PreviewTable[];
  /**
   * The head revision's custom rules, sensors and dictionaries that the checks use: what judges and measures
   * them (a custom rule replacing a built-in one too). Absent (an older client): the evaluator's own store's.
   */
  definitions?: PreviewDefinitions;
}

/** A rule (`attachments.python_module`), sensor (`attachments.providers`) or dictionary (`attachments.file_content`). */
export interface PreviewDefinition {
  name: string;
  spec: JsonObject;
  attachments: JsonObject;
}

export interface PreviewDefinitions {
  rules: PreviewDefinition[];
  sensors: PreviewDefinition[];
  dictionaries: PreviewDefinition[];
}

export interface PreviewTable {
  connection: string;
  schema: string;
  table: string;
  /** The table's spec in the head revision (filter, partitioning, grouping, column types). */
  spec: JsonObject;
  checks: PreviewRequestCheck[];
}

export interface PreviewRequestCheck {
  column: string | null;
  check_type: CheckType;
  time_scale: TimeScale | null;
  category: string;
  check_name: string;
  /**
   * The sensor and rule the check runs in the head revision (a custom check's, from its spec or its check
   * definition); absent (an older client): the built-in check's, or those its spec names.
   */
  sensor_name?: string;
  rule_name?: string;
  /** The table comparison of a comparison check, else null. */
  comparison: string | null;
  /** The check's effective spec in the head revision (parameters, warning/error/fatal). */
  spec: JsonObject;
  change: 'added' | 'modified';
  /** The file the check comes from in the head revision: the table file, or the policy's file. */
  source: string;
  /**
   * Whose stored readouts the backtest reads (same table, column, check type, time scale): the check's own,
   * or another check's of the same sensor and parameters; null: none (no history).
   */
  history_check_name: string | null;
}

/** Days of history a preview backtests by default, and tables it runs live at most. */
export const DEFAULT_PREVIEW_DAYS = 30;
export const DEFAULT_LIVE_LIMIT = 50;
