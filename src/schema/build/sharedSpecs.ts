/**
 * Spec fragments that several file kinds share (comments, labels, cron schedules, data grouping, incident
 * grouping). Each document schema copies the ones it uses into its own `$defs`, because editors load one schema
 * file per YAML file and must not need to fetch another.
 */
import { arrayOf, bool, closedObject, enumOf, int, ref, str, type Schema } from './schemaShapes.js';
import { RULE_SEVERITIES } from '../../model/index.js';


export const INCIDENT_GROUPING_LEVELS = [
  'table',
  'table_dimension',
  'table_dimension_category',
  'table_dimension_category_type',
  'table_dimension_category_name',
] as const;

export function commentDefs(): Record<string, Schema> {
  return {
    comment: closedObject(
      {
        date: str('When the comment was written (ISO date-time).'),
        comment_by: str('Who wrote the comment.'),
        comment: str('The text of the comment.'),
      },
      { description: 'A comment kept with the object.' },
    ),
    comments: arrayOf(ref('comment'), 'Comments kept with the object, oldest first.'),
  };
}

export function labelsSchema(): Schema {
  return arrayOf({ type: 'string' }, 'Free-form labels; policies can target them.');
}

export function cronScheduleDefs(): Record<string, Schema> {
  return {
    cron_schedule: closedObject(
      {
        cron_expression: str('Unix cron expression (minute hour day-of-month month day-of-week).'),
        disabled: bool('Stops this schedule without removing it.'),
      },
      { description: 'When the checks of one scheduling group run.' },
    ),
  };
}

/** The five scheduling groups of DQOps, each holding `schedule` (a connection's schedules, the default schedules). */
export function cronSchedulesOf(schedule: Schema): Record<string, Schema> {
  const groups: Record<string, Schema> = {};
  for (const group of SCHEDULING_GROUPS) groups[group] = schedule;
  return groups;
}

export const SCHEDULING_GROUPS = ['profiling', 'monitoring_daily', 'monitoring_monthly', 'partitioned_daily', 'partitioned_monthly'] as const;

export function dataGroupingDefs(): Record<string, Schema> {
  const levels: Record<string, Schema> = {};
  for (let level = 1; level <= 9; level++) levels[`level_${level}`] = ref('data_grouping_level');
  return {
    data_grouping_level: closedObject(
      {
        source: enumOf(['tag', 'column_value'], 'Where the value of this grouping level comes from.'),
        tag: str('The fixed value of the level, when source is tag.'),
        column: str('The column whose values form the groups, when source is column_value.'),
        name: str('Display name of the level.'),
      },
      { description: 'One level of a data grouping.' },
    ),
    data_grouping_configuration: closedObject(levels, {
      description: 'Up to nine levels that split the rows of a table into data groups for checks.',
    }),
  };
}

/** Fields of incident grouping common to connections and tables. */
export function incidentGroupingFields(): Record<string, Schema> {
  return {
    grouping_level: enumOf(INCIDENT_GROUPING_LEVELS, 'Which failed checks are grouped into one incident.'),
    minimum_severity: enumOf(RULE_SEVERITIES, 'Lowest severity of issues that open incidents.'),
    divide_by_data_groups: bool('Open separate incidents for each data group.'),
    max_incident_length_days: int('Days after which an open incident is closed and a new one opened.', { minimum: 0 }),
    mute_for_days: int('Days a muted incident stays muted.', { minimum: 0 }),
    disabled: bool('Turns incident creation off.'),
  };
}
