/**
 * Statistics collected from the tables of the data sources (row count; per column nulls, distinct values,
 * min, max, mean, text lengths, most common values), for the whole table (`all data`) or per data group.
 * Like check results, rows carry names rather than references to `dqctl.objects`: they are facts about a
 * collection, kept when the table's configuration changes. A row holds one result (a double, a text or a
 * json value; numeric min / max keep both the double and the exact text) or, when the collector failed,
 * an error_message. All rows of one collection of one table share collected_at: the latest statistics of a
 * table are the rows with its newest collected_at per collector.
 */
export const migration0004 = {
  version: 4,
  name: 'statistics',
  sql: /* sql */ `
create table dqctl.statistics (
  id                 bigserial        primary key,
  connection_name    text             not null,
  schema_name        text             not null,
  table_name         text             not null,
  column_name        text,
  collector_category text             not null,
  collector_name     text             not null,
  data_group         text             not null default 'all data',
  result_double      double precision,
  result_text        text,
  result_json        jsonb,
  collected_at       timestamptz      not null default now(),
  duration_ms        integer,
  error_message      text
);

create index statistics_latest_idx on dqctl.statistics
  (connection_name, schema_name, table_name, collector_name, collected_at desc);
`,
};
