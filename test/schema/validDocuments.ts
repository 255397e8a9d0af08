/** Small valid documents of every kind; tests take a fresh copy and break one thing. */
import type { DocumentKind } from '../../src/schema/index.js';

export function validDocument(kind: DocumentKind): Record<string, any> {
  return structuredClone(DOCUMENTS[kind]);
}

const DOCUMENTS: Record<DocumentKind, Record<string, unknown>> = {
  sensor: {
    apiVersion: 'dqo/v1',
    kind: 'sensor',
    spec: {
      fields: [{ field_name: 'expected_values', display_name: 'expected_values', data_type: 'string_list', required: true, sample_values: ['a'] }],
      requires_event_timestamp: false,
      default_value: 0,
      parameters: { note: 'x' },
    },
  },
  provider_sensor: {
    apiVersion: 'dqo/v1',
    kind: 'provider_sensor',
    spec: { type: 'sql_template', java_class_name: 'com.dqops.execution.sqltemplates.rendering.JinjaSqlTemplateSensorRunner', supports_grouping: true, supports_partitioned_checks: true, disable_merging_queries: false },
  },
  check: {
    apiVersion: 'dqo/v1',
    kind: 'check',
    spec: { sensor_name: 'table/volume/row_count', rule_name: 'comparison/min_count', help_text: 'h', friendly_name: 'f', standard: true, default_severity: 'error' },
  },
  dictionary: { apiVersion: 'dqo/v1', kind: 'dictionary', spec: {} },
  source: {
    apiVersion: 'dqo/v1',
    kind: 'source',
    spec: {
      provider_type: 'postgresql',
      postgresql: {
        host: '${PGHOST}',
        port: 5432,
        database: 'shop',
        user: '${PGUSER}',
        password: '${PGPASSWORD}',
        sslmode: 'verify-full',
        postgresql_engine_type: 'postgresql',
        properties: { application_name: 'dqctl' },
      },
      snowflake: { account: 'kept as is', anything: { nested: true } },
      parallel_jobs_limit: 4,
      default_grouping_configuration: { level_1: { source: 'column_value', column: 'country' } },
      schedules: { monitoring_daily: { cron_expression: '0 12 * * *' }, profiling: { cron_expression: '0 1 1 * *', disabled: true } },
      auto_import_tables: { schema_filter: 'public', schedule: { cron_expression: '0 3 * * *' } },
      incident_grouping: {
        grouping_level: 'table_dimension_category',
        minimum_severity: 'warning',
        max_incident_length_days: 60,
        incident_notification: { incident_opened_addresses: 'team@example.com', filtered_notifications: { any: {} } },
      },
      comments: [{ date: '2024-01-01T10:00:00', comment_by: 'ann', comment: 'shop database' }],
      labels: ['production'],
      advanced_properties: { x: 'y' },
    },
  },
  table: {
    apiVersion: 'dqo/v1',
    kind: 'table',
    spec: {
      priority: 2,
      stage: 'landing',
      timestamp_columns: { event_timestamp_column: 'created_at', partition_by_column: 'created_at' },
      incremental_time_window: { daily_partitioning_recent_days: 7, daily_partitioning_include_today: true },
      groupings: { by_country: { level_1: { source: 'column_value', column: 'country' } } },
      table_comparisons: { to_crm: { reference_table_connection_name: 'crm', reference_table_schema_name: 'public', reference_table_name: 'orders', grouping_columns: [{ compared_table_column_name: 'country', reference_table_column_name: 'country_code' }] } },
      incident_grouping: { grouping_level: 'table', divide_by_data_group: true },
      owner: { data_steward: 'ann', business_owner: 'finance' },
      profiling_checks: { volume: { profile_row_count: {} } },
      monitoring_checks: {
        daily: {
          volume: { daily_row_count: { warning: { min_count: 10 }, error: { min_count: 1 }, fatal: null } },
          schema: { daily_column_count_changed: { error: {} } },
          comparisons: { to_crm: { daily_row_count_match: { error: { max_diff_percent: 1 } } } },
        },
      },
      partitioned_checks: { daily: { volume: { daily_partition_row_count: { error: { min_count: 1 } } } } },
      columns: {
        id: {
          type_snapshot: { column_type: 'bigint', nullable: false },
          monitoring_checks: {
            daily: {
              nulls: { daily_nulls_count: { error: { max_count: 0 }, disabled: false, comments: [{ comment: 'key' }] } },
              comparisons: { to_crm: { reference_column: 'order_id', daily_sum_match: { error: { max_diff_percent: 0 } } } },
            },
          },
        },
        status: {
          monitoring_checks: {
            daily: {
              accepted_values: {
                daily_text_found_in_set_percent: { parameters: { expected_values: ['new', 'paid'], filter: 'id > 0' }, error: { min_percent: 100 } },
              },
              datetime: {},
            },
          },
          profiling_checks: { datetime: { profile_text_match_date_format_percent: { parameters: { date_format: 'DD/MM/YYYY' } } } },
        },
      },
      labels: ['finance'],
      source_tables: [{ source_connection: 'crm', source_schema: 'public', source_table: 'orders', columns: { id: { source_columns: ['order_id'] } } }],
    },
  },
  rule: {
    apiVersion: 'dqo/v1',
    kind: 'rule',
    spec: {
      type: 'python',
      mode: 'previous_readouts',
      time_window: { prediction_time_window: 30, min_periods_with_readouts: 7, historic_data_point_grouping: 'day' },
      fields: [{ field_name: 'max_percent', display_name: 'Max percent', data_type: 'double', required: true, default_value: 5 }],
      parameters: { degrees_of_freedom: '5' },
    },
  },
  default_table_checks: {
    apiVersion: 'dqo/v1',
    kind: 'default_table_checks',
    spec: {
      priority: 100,
      description: 'Detect empty tables',
      target: { connection: 'shop*', table_priority: 3, label: 'finance' },
      monitoring_checks: { daily: { volume: { daily_row_count: { error: { min_count: 1 } } } } },
    },
  },
  default_column_checks: {
    apiVersion: 'dqo/v1',
    kind: 'default_column_checks',
    spec: {
      disabled: false,
      target: { column: '*_id', data_type_category: 'numeric_integer' },
      profiling_checks: { nulls: { profile_nulls_count: { warning: { max_count: 0 } } } },
      partitioned_checks: { monthly: { nulls: { monthly_partition_nulls_percent: { error: { max_percent: 1.5 } } } } },
    },
  },
  default_schedules: {
    apiVersion: 'dqo/v1',
    kind: 'default_schedules',
    spec: { profiling: { cron_expression: '0 1 1 * *' }, monitoring_daily: { cron_expression: '0 12 * * *', disabled: true } },
  },
  default_notifications: {
    apiVersion: 'dqo/v1',
    kind: 'default_notifications',
    spec: {
      incident_opened_addresses: 'https://hooks.slack.com/services/${SLACK_PATH}, oncall@example.com',
      filtered_notifications: {
        fatal_only: { priority: 1, filter: { table: 'fact_*', highest_severity: 3 }, target: { incident_opened_addresses: '${PAGER_WEBHOOK}' }, message: 'page' },
      },
    },
  },
  settings: {
    apiVersion: 'dqctl/v1',
    kind: 'settings',
    spec: { namespace: 'team-a.prod', protected: ['source:warehouse', 'table:warehouse/public.*'], prune: { unmanaged: false, mass_delete_threshold: 0.25 } },
  },
};
