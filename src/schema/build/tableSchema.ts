/**
 * sources/<connection>/<schema>.<table>.dqotable.yaml (kind: table): the table, its columns, their checks
 * (from the catalog) and the lineage of the table.
 */
import type { CheckCatalog } from '../../catalog/index.js';
import { checkContainerSchemas, checkOwnerMarker } from './checkContainerSchemas.js';
import { documentSchema } from './documentSchema.js';
import { fileFormatDefs } from './fileFormatSchemas.js';
import { CHECK_TYPES, TIME_SCALES } from '../../model/index.js';
import { arrayOf, bool, closedObject, enumOf, freeObject, int, mapOf, ref, str, stringMap, type Schema } from './schemaShapes.js';
import { commentDefs, cronScheduleDefs, cronSchedulesOf, dataGroupingDefs, incidentGroupingFields, labelsSchema } from './sharedSpecs.js';

export function tableSchema(file: string, catalog: CheckCatalog): Schema {
  const tableChecks = checkContainerSchemas(catalog, 'table');
  const columnChecks = checkContainerSchemas(catalog, 'column');
  const { max_incident_length_days, mute_for_days, ...incidentFields } = incidentGroupingFields();

  const spec = closedObject(
    {
      disabled: bool('Turns off every check of the table.'),
      stage: str('Stage of the data pipeline the table belongs to (e.g. landing, staging).'),
      priority: int('Importance of the table; lower is more important. Policies can target it.'),
      filter: str('SQL condition added to the WHERE clause of every check of the table.'),
      do_not_collect_error_samples_in_profiling: bool('Kept for DQOps: do not collect error samples when profiling checks run (dqctl collects them only when asked).'),
      always_collect_error_samples_in_monitoring: bool('Kept for DQOps: collect error samples when monitoring checks run (dqctl collects them only when asked).'),
      timestamp_columns: closedObject(
        {
          event_timestamp_column: str('Column with the time the event happened.'),
          ingestion_timestamp_column: str('Column with the time the row was loaded.'),
          partition_by_column: str('Column that partitioned checks group by (a date or timestamp).'),
        },
        { description: 'Columns that give rows their time.' },
      ),
      incremental_time_window: closedObject(
        {
          daily_partitioning_recent_days: int('How many recent days daily partitioned checks analyse.', { minimum: 0 }),
          daily_partitioning_include_today: bool('Also analyse today in daily partitioned checks.'),
          monthly_partitioning_recent_months: int('How many recent months monthly partitioned checks analyse.', { minimum: 0 }),
          monthly_partitioning_include_current_month: bool('Also analyse the current month in monthly partitioned checks.'),
        },
        { description: 'The time window of partitioned checks.' },
      ),
      default_grouping_name: str('Name of the entry of groupings used when a check names none.'),
      groupings: mapOf(ref('data_grouping_configuration'), { description: 'Named data grouping configurations.' }),
      table_comparisons: mapOf(ref('table_comparison'), {
        description:
          'Named comparisons with a reference table (on any connection): the comparisons category of the check containers names one of these.',
      }),
      incident_grouping: closedObject(
        {
          ...incidentFields,
          // DQOps writes the singular form at table level; both spellings are accepted.
          divide_by_data_group: bool('Open separate incidents for each data group.'),
          max_incident_length_days,
          mute_for_days,
        },
        { description: 'Incident grouping of this table, overriding the connection.' },
      ),
      owner: {
        ...mapOf({ type: 'string' }),
        description: 'People and systems responsible for the table (free text fields).',
        properties: { data_steward: str('Who looks after the data.'), application: str('The application that writes the table.') },
      },
      ...tableChecks.properties,
      statistics: freeObject('Kept for DQOps: which statistics collectors run on the table and how (dqctl runs all of them).'),
      schedules_override: closedObject(cronSchedulesOf(ref('cron_schedule')), {
        description: "Kept for DQOps: schedules of this table's checks instead of the connection's (dqctl schedules by connection and by check).",
      }),
      columns: mapOf(ref('column'), { description: 'Columns by name.' }),
      labels: labelsSchema(),
      comments: ref('comments'),
      file_format: ref('file_format'),
      advanced_properties: stringMap('Free key/value properties (e.g. for data catalogs); kept, not acted on.'),
      source_tables: arrayOf(ref('source_table'), 'Tables this table is loaded from (data lineage).'),
    },
    { description: 'The table specification.', ...checkOwnerMarker('table') },
  );

  return documentSchema({
    file,
    title: 'dqctl / DQOps table',
    description: 'A monitored table: sources/<connection>/<schema>.<table>.dqotable.yaml (kind: table).',
    apiVersion: 'dqo/v1',
    kind: 'table',
    spec,
    defs: {
      table_comparison: closedObject(
        {
          reference_table_connection_name: str('Connection of the reference table (the source of truth).'),
          reference_table_schema_name: str('Schema of the reference table.'),
          reference_table_name: str('Name of the reference table.'),
          compared_table_filter: str('SQL condition on the rows of this table that are compared.'),
          reference_table_filter: str('SQL condition on the rows of the reference table that are compared.'),
          check_type: enumOf(CHECK_TYPES, 'The check type the comparison is configured for (informational).'),
          time_scale: enumOf(TIME_SCALES, 'The time scale the comparison is configured for (informational).'),
          grouping_columns: arrayOf(
            closedObject(
              {
                compared_table_column_name: str('Grouping column of this table.'),
                reference_table_column_name: str('The matching grouping column of the reference table.'),
              },
              { required: ['compared_table_column_name', 'reference_table_column_name'] },
            ),
            'Pairs of columns that split both tables into data groups compared group by group.',
          ),
        },
        {
          description: 'A comparison of this table with a reference table.',
          required: ['reference_table_connection_name', 'reference_table_schema_name', 'reference_table_name'],
        },
      ),
      column: closedObject(
        {
          disabled: bool('Turns off every check of the column.'),
          sql_expression: str('SQL expression that computes a virtual column.'),
          type_snapshot: closedObject(
            {
              column_type: str('Database type of the column.'),
              nullable: bool('Whether the column accepts nulls.'),
              length: int('Maximum length of text columns.'),
              precision: int('Precision of numeric columns.'),
              scale: int('Scale of numeric columns.'),
              nested: bool('Whether the column is a nested (struct) column.'),
            },
            { description: 'The type of the column as last imported.' },
          ),
          id: bool('True for a column that identifies the row (a primary key column): error samples report its value as a row id.'),
          ...columnChecks.properties,
          statistics: freeObject('Kept for DQOps: which statistics collectors run on the column and how (dqctl runs all of them).'),
          labels: labelsSchema(),
          comments: ref('comments'),
          advanced_properties: stringMap('Free key/value properties (e.g. for data catalogs); kept, not acted on.'),
        },
        { description: 'A column and its checks.', ...checkOwnerMarker('column') },
      ),
      source_table: closedObject(
        {
          source_connection: str('Connection of the source table.'),
          source_schema: str('Schema of the source table.'),
          source_table: str('Name of the source table.'),
          data_lineage_source_tool: str('Tool that reported this lineage.'),
          properties: stringMap('Extra properties of the flow.'),
          columns: mapOf(
            closedObject(
              {
                source_columns: arrayOf({ type: 'string' }, 'Columns of the source table this column is computed from.'),
                properties: stringMap('Extra properties of the column flow.'),
              },
              { description: 'Lineage of one column of this table.' },
            ),
            { description: 'Column-level lineage by target column name.' },
          ),
        },
        { description: 'A table this one is loaded from.' },
      ),
      ...dataGroupingDefs(),
      ...commentDefs(),
      ...cronScheduleDefs(),
      ...fileFormatDefs(),
      ...tableChecks.defs,
      ...columnChecks.defs,
    },
  });
}
