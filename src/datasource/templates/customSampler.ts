/**
 * The error sampler of a custom sensor: its `postgresql.sample.sql.jinja2` rendered with the variables of the
 * sensor's own template plus `error_sampling` (DQOps's ErrorSamplingRenderParameters: `samples_limit`,
 * `total_samples_limit`, `id_columns`), and the rows it returns read as error samples: `actual_value` the
 * sampled value, `row_id_1` … `row_id_5` the row ids, `grouping_level_<n>` the data group, as the sensors name it.
 */
import type { JsonObject } from '../../model/index.js';
import { MAX_ID_COLUMNS, MAX_SAMPLE_LENGTH, type ErrorSample } from '../sensors/buildErrorSamplesQuery.js';
import { dataGroupOf } from '../sensors/parseReadouts.js';
import { groupingLevels } from '../sensors/rowSource.js';
import type { SensorRequest, TableQueryRequest } from '../sensors/sensorTypes.js';
import type { CustomSensorDefinition } from './customSensor.js';
import { templateContext } from './templateContext.js';

export interface CustomSamplerOptions {
  tableSpec: JsonObject;
  /** Samples of the check (max_results_per_check), per data group as the built-in samplers keep them. */
  limit: number;
  /** The row id columns, at most five. */
  idColumns: readonly string[];
}

/** The variables of the sample template. */
export function samplerContext(request: TableQueryRequest, sensor: SensorRequest, definition: CustomSensorDefinition, options: CustomSamplerOptions): JsonObject {
  return {
    ...templateContext(request, sensor, definition, { tableSpec: options.tableSpec }),
    error_sampling: { samples_limit: options.limit, total_samples_limit: totalLimitOf(options.limit), id_columns: options.idColumns.slice(0, MAX_ID_COLUMNS) },
  };
}

/** All samples of a check over its data groups: DQOps's total_samples_limit (1000), or the limit when larger. */
export function totalLimitOf(limit: number): number {
  return Math.max(limit, 1000);
}

/** The rows of a rendered sample template as samples (at most totalLimitOf(limit); values cut to MAX_SAMPLE_LENGTH). */
export function samplesOfRows(
  rows: readonly Record<string, unknown>[],
  request: TableQueryRequest,
  definition: CustomSensorDefinition,
  options: { limit: number; idCount: number },
): ErrorSample[] {
  const levels = definition.supportsGrouping ? groupingLevels(request) : [];
  const groupName = levels.map((level, index) => ('tag' in level ? { tag: level.tag } : { alias: `grouping_level_${index + 1}` }));
  return rows.slice(0, totalLimitOf(options.limit)).map((row) => {
    const value = textOf(row.actual_value);
    return {
      dataGroup: dataGroupOf(row, groupName),
      value: value === null ? null : value.slice(0, MAX_SAMPLE_LENGTH),
      rowIds: Array.from({ length: Math.min(options.idCount, MAX_ID_COLUMNS) }, (_, index) => textOf(row[`row_id_${index + 1}`])),
    };
  });
}

function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
