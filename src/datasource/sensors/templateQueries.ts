/**
 * The queries of custom (template) sensors, merged as DQOps merges rendered queries (templates/queryFragments):
 * a sensor whose rendered query reads exactly the rows and groups of the table's merged scan (its parts outside
 * the value lines equal those of the scan's reference query rendered with the same variables) joins that scan
 * as one more column; the others merge with each other when their parts are equal; a sensor whose provider file
 * says `disable_merging_queries` runs its query alone, as rendered.
 */
import { parseGroupedRows, type ValueColumns } from './parseReadouts.js';
import { groupingLevels, hasDataGrouping, TIME_PERIOD_ALIAS, type GroupNamePart } from './rowSource.js';
import type { SensorQuery, SensorReadouts, SensorRequest, TableQueryRequest } from './sensorTypes.js';
export type { RenderedSensorTemplate } from './sensorTypes.js';
import { queryFragments, renamedFragment, valueExpression, type QueryFragments } from '../templates/queryFragments.js';

/** A custom sensor's value expressions, computed in the merged scan. */
export interface TemplateColumn {
  id: string;
  actual: string;
  expected?: string;
}

export interface TemplatePlan {
  /** Join the grouped scan (or the only one, without data grouping). */
  scan: TemplateColumn[];
  /** Join the ungrouped scan: sensors that do not support grouping on a grouped table. */
  ungroupedScan: TemplateColumn[];
  queries: SensorQuery[];
}

export function planTemplateSensors(request: TableQueryRequest, sensors: readonly SensorRequest[]): TemplatePlan {
  const plan: TemplatePlan = { scan: [], ungroupedScan: [], queries: [] };
  const groups = new Map<string, Array<{ sensor: SensorRequest; fragments: QueryFragments }>>();
  for (const sensor of sensors) {
    const rendered = sensor.template!;
    const fragments = rendered.disableMergingQueries ? undefined : queryFragments(rendered.sql);
    if (!fragments) {
      plan.queries.push(templateQuery(request, [{ sensor, fragments: undefined }]));
      continue;
    }
    const reference = queryFragments(rendered.reference);
    const actual = valueExpression(fragments.actual, 'actual_value');
    const expected = fragments.expected === undefined ? undefined : valueExpression(fragments.expected, 'expected_value');
    if (reference && reference.staticKey === fragments.staticKey && actual !== undefined && (fragments.expected === undefined || expected !== undefined)) {
      const column: TemplateColumn = { id: sensor.id, actual, ...(expected !== undefined ? { expected } : {}) };
      (hasDataGrouping(request) && !rendered.supportsGrouping ? plan.ungroupedScan : plan.scan).push(column);
      continue;
    }
    const group = groups.get(fragments.staticKey) ?? [];
    group.push({ sensor, fragments });
    groups.set(fragments.staticKey, group);
  }
  for (const members of groups.values()) plan.queries.push(templateQuery(request, members));
  return plan;
}

/** One query for sensors whose rendered queries merge (or one sensor's query as rendered). */
export function templateQuery(request: TableQueryRequest, members: ReadonlyArray<{ sensor: SensorRequest; fragments: QueryFragments | undefined }>): SensorQuery {
  const grouped = members[0].sensor.template!.supportsGrouping && hasDataGrouping(request);
  const groupName: GroupNamePart[] = grouped
    ? groupingLevels(request).map((level, index) => ('tag' in level ? { tag: level.tag } : { alias: `grouping_level_${index + 1}` }))
    : [];
  const partitioned = request.partitioning !== undefined;
  let text: string;
  let columns: ValueColumns[];
  if (members.length === 1) {
    const [{ sensor }] = members;
    text = sensor.template!.sql.trim().replace(/(\s*;)+$/, '');
    columns = [{ id: sensor.id, actual: 'actual_value', expected: 'expected_value' }];
  } else {
    const values: string[] = [];
    columns = members.map(({ sensor, fragments }, index) => {
      const actual = `actual_value_${index + 1}`;
      values.push(renamedFragment(fragments!.actual, 'actual_value', actual));
      if (fragments!.expected === undefined) return { id: sensor.id, actual };
      const expected = `expected_value_${index + 1}`;
      values.push(renamedFragment(fragments!.expected, 'expected_value', expected));
      return { id: sensor.id, actual, expected };
    });
    const first = members[0].fragments!;
    const { prefix, suffix } = first;
    // the comma the macros put after the last value (before the grouping projections) stays after the last value
    const trailingComma = /,\s*$/.test(first.expected ?? first.actual) ? ',' : '';
    text = `${prefix}\n${values.join(',\n')}${trailingComma}\n${suffix}`.trim().replace(/(\s*;)+$/, '');
  }
  return {
    kind: 'custom',
    text,
    values: [],
    queryMode: 'extended',
    sensorIds: members.map((m) => m.sensor.id),
    parse: (rows) => parseTemplateRows(rows, groupName, partitioned, columns),
  };
}

/** Rows of a template query: the value columns it has (expected_value is optional), the period as a date. */
function parseTemplateRows(rows: readonly Record<string, unknown>[], groupName: readonly GroupNamePart[], partitioned: boolean, columns: readonly ValueColumns[]): SensorReadouts {
  const present = rows.length > 0 ? rows[0] : {};
  const usable = columns.map((c) => (c.expected !== undefined && !(c.expected in present) ? { id: c.id, actual: c.actual } : c));
  const normalized = partitioned ? rows.map((row) => ({ ...row, [TIME_PERIOD_ALIAS]: dateText(row[TIME_PERIOD_ALIAS]) })) : rows;
  return parseGroupedRows(normalized, groupName, partitioned, usable);
}

/** A DATE as pg returns it (a Date at local midnight, or text) → `YYYY-MM-DD`. */
function dateText(value: unknown): unknown {
  if (value instanceof Date) {
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
  }
  return typeof value === 'string' ? value.slice(0, 10) : value;
}
