import type { DataGroupingLevel } from '../datasource/sensors/sensorTypes.js';
import { isJsonObject, type JsonObject } from '../model/index.js';

/**
 * The data grouping levels of a table: the grouping that its `default_grouping_name` names in its
 * `groupings` ("default" when unnamed), else its connection's `default_grouping_configuration` (what DQOps
 * copies into a table when it imports one, so a table file that relies on its connection groups the same).
 * Each of `level_1` … `level_9` is a column (`source: column_value`, GROUP BY) or a static tag (`source: tag`);
 * a level without `source` is a column when it names one, else a tag. Check runs, error samples and
 * statistics all read the grouping here, so they can never disagree.
 */
export function dataGroupingLevelsOf(tableSpec: JsonObject, connectionSpec: JsonObject | undefined): DataGroupingLevel[] {
  const configuration = tableGrouping(tableSpec) ?? (isJsonObject(connectionSpec?.default_grouping_configuration) ? connectionSpec.default_grouping_configuration : undefined);
  if (!configuration) return [];
  const levels: DataGroupingLevel[] = [];
  for (let i = 1; i <= 9; i++) {
    const level = configuration[`level_${i}`];
    if (!isJsonObject(level)) continue;
    const source = level.source ?? (typeof level.column === 'string' ? 'column_value' : 'tag');
    if (source === 'column_value' && typeof level.column === 'string' && level.column !== '') levels.push({ column: level.column });
    else if (source === 'tag' && typeof level.tag === 'string') levels.push({ tag: level.tag });
  }
  return levels;
}

function tableGrouping(spec: JsonObject): JsonObject | undefined {
  const groupings = isJsonObject(spec.groupings) ? spec.groupings : undefined;
  const name = typeof spec.default_grouping_name === 'string' && spec.default_grouping_name !== '' ? spec.default_grouping_name : 'default';
  const grouping = groupings?.[name];
  return isJsonObject(grouping) ? grouping : undefined;
}
