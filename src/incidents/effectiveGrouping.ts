import { isJsonObject, SEVERITY_NUMBERS, type JsonObject, type SeverityNumber } from '../model/index.js';

/**
 * The incident grouping that applies to one table: its connection's `incident_grouping`, overridden field by
 * field by the table's own (`grouping_level`, `minimum_severity`, `divide_by_data_groups` — DQOps's table spec
 * spells it `divide_by_data_group`, both are read — and `disabled`). Defaults are DQOps's.
 */
export const INCIDENT_GROUPING_LEVELS = [
  'table',
  'table_dimension',
  'table_dimension_category',
  'table_dimension_category_type',
  'table_dimension_category_name',
] as const;
export type IncidentGroupingLevel = (typeof INCIDENT_GROUPING_LEVELS)[number];

export interface EffectiveGrouping {
  groupingLevel: IncidentGroupingLevel;
  /** 1 warning, 2 error, 3 fatal: failures below it open no incident. */
  minimumSeverity: SeverityNumber;
  divideByDataGroups: boolean;
  maxIncidentLengthDays: number;
  muteForDays: number;
  disabled: boolean;
}

export const DEFAULT_GROUPING: EffectiveGrouping = {
  groupingLevel: 'table_dimension_category',
  minimumSeverity: 1,
  divideByDataGroups: false,
  maxIncidentLengthDays: 60,
  muteForDays: 60,
  disabled: false,
};


function level(value: unknown): IncidentGroupingLevel | undefined {
  return typeof value === 'string' && (INCIDENT_GROUPING_LEVELS as readonly string[]).includes(value) ? (value as IncidentGroupingLevel) : undefined;
}

export function effectiveGrouping(connectionSpec: JsonObject | undefined, tableSpec: JsonObject | undefined): EffectiveGrouping {
  const c = isJsonObject(connectionSpec?.incident_grouping) ? connectionSpec.incident_grouping : {};
  const t = isJsonObject(tableSpec?.incident_grouping) ? tableSpec.incident_grouping : {};
  const pick = <T>(read: (o: JsonObject) => T | undefined, fallback: T): T => read(t) ?? read(c) ?? fallback;
  const bool = (key: string) => (o: JsonObject) => (typeof o[key] === 'boolean' ? (o[key] as boolean) : undefined);
  const days = (key: string, fallback: number): number => (typeof c[key] === 'number' && Number.isInteger(c[key]) && (c[key] as number) >= 0 ? (c[key] as number) : fallback);
  return {
    groupingLevel: pick((o) => level(o.grouping_level), DEFAULT_GROUPING.groupingLevel),
    minimumSeverity: pick((o) => (typeof o.minimum_severity === 'string' && o.minimum_severity in SEVERITY_NUMBERS && o.minimum_severity !== 'valid' ? SEVERITY_NUMBERS[o.minimum_severity as keyof typeof SEVERITY_NUMBERS] : undefined), DEFAULT_GROUPING.minimumSeverity),
    divideByDataGroups: pick((o) => bool('divide_by_data_groups')(o) ?? bool('divide_by_data_group')(o), DEFAULT_GROUPING.divideByDataGroups),
    maxIncidentLengthDays: days('max_incident_length_days', DEFAULT_GROUPING.maxIncidentLengthDays),
    muteForDays: days('mute_for_days', DEFAULT_GROUPING.muteForDays),
    disabled: pick(bool('disabled'), DEFAULT_GROUPING.disabled),
  };
}
