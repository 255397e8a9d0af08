/**
 * Typed view of catalog/check-catalog.json: the built-in checks, sensors and rules that dqctl knows.
 * Field names are camelCase here; the JSON file keeps the snake_case of its source.
 */
import type { CheckType, JsonValue, TimeScale } from '../model/index.js';

export type CheckTarget = 'table' | 'column';
export type { CheckType, TimeScale } from '../model/index.js';

/** Data types of sensor and rule parameters, as the catalog names them. */
export type ParameterType =
  | 'string'
  | 'boolean'
  | 'integer'
  | 'long'
  | 'double'
  | 'date'
  | 'enum'
  | 'string_list'
  | 'integer_list';

export interface CatalogParameter {
  name: string;
  type: ParameterType;
  required: boolean;
  /** Default value, already coerced to `type`; null when the source gives none. */
  default: JsonValue;
  /** Values of an `enum` parameter; null for other types. */
  allowedValues: readonly string[] | null;
  /** Display hint of the source (`textarea`, `column_names`, `requires_paid_version`). */
  hint?: string;
}

export interface CatalogCheck {
  checkName: string;
  target: CheckTarget;
  checkType: CheckType;
  /** null for profiling checks, which have no daily/monthly level. */
  timeScale: TimeScale | null;
  category: string;
  sensor: string;
  rule: string;
  defaultSeverity: 'warning' | 'error';
  standard: boolean;
  /** The name without its `profile_` / `daily_` / `monthly_` / `daily_partition_` / `monthly_partition_` prefix. */
  baseName: string;
}

export interface CatalogSensor {
  name: string;
  target: CheckTarget;
  category: string;
  parameters: readonly CatalogParameter[];
  /** True when the sensor has a PostgreSQL implementation. */
  postgresql: boolean;
  /** DQOps's PostgreSQL provider file of the sensor (`postgresql.dqoprovidersensor.yaml`), when the catalog records it. */
  postgresqlDefinition?: CatalogProviderDefinition;
  providers: readonly string[];
  requiresEventTimestamp: boolean;
  requiresIngestionTimestamp: boolean;
  /** The readout DQOps gives when the sensor's query returns no row (its definition's `default_value`), when it has one. */
  defaultValue?: number;
}

/** A built-in sensor's provider file as DQOps ships it: how it runs and what it supports. */
export interface CatalogProviderDefinition {
  type: 'sql_template' | 'java_class';
  supportsGrouping: boolean;
  supportsPartitionedChecks: boolean;
  disableMergingQueries: boolean;
}

export interface RuleTimeWindow {
  predictionTimeWindow: number;
  minPeriodsWithReadouts: number;
  historicDataPointGrouping: string;
}

export interface CatalogRule {
  name: string;
  mode: 'current_value' | 'previous_readouts';
  timeWindow: RuleTimeWindow | null;
  parameters: readonly CatalogParameter[];
  /** Fixed rule settings (e.g. degrees_of_freedom); not configurable in YAML. */
  config: Readonly<Record<string, JsonValue>>;
}
