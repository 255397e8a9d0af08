/**
 * Check results and error samples: what check runs on the data sources write and the results API reads.
 * Rows are facts about runs, not configuration: they carry names (connection, schema, table, column, check)
 * rather than references to `dqctl.objects`, so deleting or renaming a table in git never deletes its history.
 *
 * A check result row is either a result (severity 0 valid, 1 warning, 2 error, 3 fatal) or an execution error
 * (severity null and an error_message). The two indexes serve the two reads the API makes: the newest results
 * of one table's checks (overview, comparisons) and the execution errors of one table.
 */
export const migration0002 = {
  version: 2,
  name: 'results',
  sql: /* sql */ `
create table dqctl.check_results (
  id                bigserial        primary key,
  connection_name   text             not null,
  schema_name       text             not null,
  table_name        text             not null,
  column_name       text,
  check_type        text             not null check (check_type in ('profiling', 'monitoring', 'partitioned')),
  time_gradient     text             not null,
  check_category    text             not null,
  check_name        text             not null,
  check_hash        bigint           not null,
  sensor_name       text,
  quality_dimension text,
  time_period       timestamptz      not null,
  data_group        text             not null default 'all data',
  actual_value      double precision,
  expected_value    double precision,
  severity          integer          check (severity between 0 and 3),
  duration_ms       integer,
  executed_at       timestamptz      not null default now(),
  table_comparison  text,
  error_message     text,
  check (severity is not null or error_message is not null)
);

create index check_results_latest_idx on dqctl.check_results
  (connection_name, schema_name, table_name, check_type, check_name, time_period desc, executed_at desc);

create index check_results_errors_idx on dqctl.check_results
  (connection_name, schema_name, table_name, executed_at desc)
  where error_message is not null;

create table dqctl.error_samples (
  id                bigserial        primary key,
  connection_name   text             not null,
  schema_name       text             not null,
  table_name        text             not null,
  column_name       text,
  check_type        text             not null check (check_type in ('profiling', 'monitoring', 'partitioned')),
  time_gradient     text             not null,
  check_category    text             not null,
  check_name        text             not null,
  check_hash        bigint           not null,
  sensor_name       text,
  quality_dimension text,
  data_group        text             not null default 'all data',
  sample_index      integer          not null,
  result            text,
  result_data_type  text,
  row_id_1          text,
  row_id_2          text,
  row_id_3          text,
  row_id_4          text,
  row_id_5          text,
  collected_at      timestamptz      not null default now(),
  executed_at       timestamptz,
  duration_ms       integer,
  table_comparison  text
);

create index error_samples_latest_idx on dqctl.error_samples
  (connection_name, schema_name, table_name, check_type, check_name, collected_at desc);
`,
};
