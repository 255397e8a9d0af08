/**
 * What schema validation reports: a coded finding at a path of the document. The manifest turns the path into
 * file:line:column (`onKey` says whether to point at the key or at its value), so a violation never carries
 * positions itself and validation stays a pure function of the parsed document.
 */

export const VIOLATION_CODES = [
  'unknown_key',
  'wrong_type',
  'missing_key',
  'invalid_value',
  'unknown_check',
  'check_wrong_container',
  'unknown_category',
  'unknown_rule_parameter',
  'unknown_sensor_parameter',
] as const;

export type ViolationCode = (typeof VIOLATION_CODES)[number];

export type DocumentPath = (string | number)[];

export interface SchemaViolation {
  /**
   * Path of the offending value within the document, e.g. `['spec', 'columns', 'id', 'type_snapshot', 'length']`.
   * For an unknown key, the path INCLUDING the key; for a missing key, the path of the object that lacks it.
   */
  path: DocumentPath;
  /** True when the key itself is the problem (unknown key), false when its value is. */
  onKey: boolean;
  code: ViolationCode;
  /** One line, e.g. `unknown rule parameter "min_cont" of comparison/min_count; did you mean "min_count"?` */
  summary: string;
  /** More context: the allowed keys or values, where a misplaced check belongs. */
  detail?: string;
  /** The did-you-mean candidates quoted in the summary, for editors' quick fixes; absent when there are none. */
  suggestions?: string[];
}
