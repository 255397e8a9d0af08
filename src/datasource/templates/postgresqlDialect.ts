/**
 * dqctl's PostgreSQL dialect file for custom sensor templates: the Jinja2 macros a DQOps template imports with
 * `{% import '/dialects/postgresql.sql.jinja2' as lib with context %}`, written for dqctl from DQOps's documented
 * behaviour (same names, arguments and output columns), so that a template written for DQOps means the same SQL
 * here. Where DQOps's macros and dqctl's built-in sensors differ, these macros follow the built-in sensors, so a
 * custom sensor reads exactly the rows, groups and partitions of the table's merged scan and can join it:
 * - the table is `"schema"."table"` (the connected database, as the built-in sensors name it);
 * - the partition window is counted from the run's start time (`dqctl.now`), not LOCALTIMESTAMP, in the data
 *   source session's time zone, as the built-in scan does;
 * - a partition's `time_period` is its first day as a DATE (`date_trunc` of the partition column);
 * - text constants are quoted as E'…' strings (quotes and backslashes escaped), which is safe whatever
 *   standard_conforming_strings says.
 * Kept in a file of its own so that a dialect layer can hold one such file per database.
 */
export const POSTGRESQL_DIALECT_TEMPLATE_NAME = '/dialects/postgresql.sql.jinja2';

export const POSTGRESQL_DIALECT_TEMPLATE = String.raw`{#- dqctl: PostgreSQL macros for custom sensor templates -#}
{%- set time_series = effective_time_series | default(none, true) -%}
{%- set time_window_filter = effective_time_window_filter | default(none, true) -%}
{%- set data_groupings = effective_data_groupings | default(none, true) -%}
{%- set calculated_column_expression = table.columns[column_name].sql_expression | default('', true) -%}
{%- set target_column_data_type = table.columns[column_name].type_snapshot.column_type | default(none, true) -%}
{%- set timestamp_column_data_type = table.columns[time_series.timestamp_column].type_snapshot.column_type | upper | default(none, true) -%}

{%- macro quote_identifier(name) -%}
"{{ name | replace('"', '""') }}"
{%- endmacro -%}

{%- macro make_text_constant(string) -%}
E'{{ string | string | replace('\\', '\\\\') | replace("'", "''") }}'
{%- endmacro -%}

{%- macro render_regex(regex) -%}
{{ make_text_constant(regex) }}
{%- endmacro -%}

{%- macro eol() -%}
{{ '\n' }}
{%- endmacro -%}

{%- macro render_target_table() -%}
{{ quote_identifier(target_table.schema_name) }}.{{ quote_identifier(target_table.table_name) }}
{%- endmacro -%}

{%- macro render_referenced_table(foreign_table) -%}
{%- if '.' in foreign_table -%}
{{ foreign_table }}
{%- else -%}
{{ quote_identifier(target_table.schema_name) }}.{{ quote_identifier(foreign_table) }}
{%- endif -%}
{%- endmacro -%}

{%- macro substitute_tokens(sql, table_alias_prefix, column_sql) -%}
{{ sql | replace('{column}', column_sql) | replace('{table}', render_target_table()) | replace('{alias}', table_alias_prefix) }}
{%- endmacro -%}

{%- macro render_column(name, table_alias_prefix = 'analyzed_table') -%}
{%- set expression = table.columns[name].sql_expression | default('', true) -%}
{%- set plain = (table_alias_prefix ~ '.' if table_alias_prefix != '' else '') ~ quote_identifier(name) -%}
{%- if expression != '' -%}
({{ substitute_tokens(expression, table_alias_prefix, table_alias_prefix ~ '.' ~ quote_identifier(name)) }})
{%- else -%}
{{ plain }}
{%- endif -%}
{%- endmacro -%}

{%- macro render_target_column(table_alias_prefix = 'analyzed_table') -%}
{{ render_column(column_name, table_alias_prefix) }}
{%- endmacro -%}

{%- macro is_local_date(data_type) -%}{{ 'true' if (data_type | upper) == 'DATE' else 'false' }}{%- endmacro -%}
{%- macro is_local_time(data_type) -%}{{ 'true' if (data_type | upper) in ('TIME', 'TIME WITHOUT TIME ZONE') else 'false' }}{%- endmacro -%}
{%- macro is_local_date_time(data_type) -%}{{ 'true' if (data_type | upper) in ('TIMESTAMP', 'TIMESTAMP WITHOUT TIME ZONE') else 'false' }}{%- endmacro -%}
{%- macro is_instant(data_type) -%}{{ 'true' if (data_type | upper) in ('TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE') else 'false' }}{%- endmacro -%}

{%- macro run_start() -%}
CAST({{ make_text_constant(dqctl.now) }} AS TIMESTAMP WITH TIME ZONE)
{%- endmacro -%}

{%- macro date_trunc(value, part = 'day', datatype = none) -%}
{%- if part in ('year', 'quarter', 'month', 'week', 'hour') -%}
DATE_TRUNC({{ make_text_constant(part) }}, {{ value }})
{%- elif part == 'millisecond' -%}
{{ value }}
{%- else -%}
DATE_TRUNC('day', {{ value }})
{%- endif -%}
{%- endmacro -%}

{%- macro date_trunc_utc(value, part = 'day', datatype = none) -%}
CAST({{ date_trunc(value, part, datatype) }} AS TIMESTAMP WITH TIME ZONE)
{%- endmacro -%}

{%- macro render_time_dimension_expression(table_alias_prefix = 'analyzed_table') -%}
{%- if time_series is not none -%}
{%- if time_series.mode == 'timestamp_column' -%}
CAST({{ date_trunc(render_column(time_series.timestamp_column, table_alias_prefix), time_series.time_gradient) }} AS DATE)
{%- else -%}
CAST({{ date_trunc(run_start(), time_series.time_gradient) }} AS DATE)
{%- endif -%}
{%- endif -%}
{%- endmacro -%}

{%- macro render_time_dimension_expression_utc(table_alias_prefix = 'analyzed_table') -%}
{%- if time_series is not none -%}
CAST({{ render_time_dimension_expression(table_alias_prefix) }} AS TIMESTAMP WITH TIME ZONE)
{%- endif -%}
{%- endmacro -%}

{%- macro render_data_grouping_projections(table_alias_prefix = 'analyzed_table', indentation = '    ') -%}
{%- if data_groupings is not none and (data_groupings | length) > 0 -%}
{%- for attribute in data_groupings -%}
{%- set level = data_groupings[attribute] -%}
,{{ eol() }}{{ indentation }}
{%- if level.source == 'tag' -%}
{{ make_text_constant(level.tag) }}
{%- else -%}
{{ render_column(level.column, table_alias_prefix) }}
{%- endif %} AS grouping_{{ attribute }}
{%- endfor -%}
{%- endif -%}
{%- endmacro -%}

{%- macro render_data_grouping_projections_reference(table_alias_prefix = 'grouping_table', indentation = '    ') -%}
{%- if data_groupings is not none and (data_groupings | length) > 0 -%}
{%- for attribute in data_groupings -%}
,{{ eol() }}{{ indentation }}{{ table_alias_prefix }}.grouping_{{ attribute }}
{%- endfor -%}
{%- endif -%}
{%- endmacro -%}

{%- macro render_time_dimension_projection(table_alias_prefix = 'analyzed_table', indentation = '    ') -%}
{%- if time_series is not none -%}
,{{ eol() }}{{ indentation }}{{ render_time_dimension_expression(table_alias_prefix) }} AS time_period,{{ eol() }}{{ indentation }}{{ render_time_dimension_expression_utc(table_alias_prefix) }} AS time_period_utc
{%- endif -%}
{%- endmacro -%}

{%- macro render_time_dimension_projection_reference(table_alias_prefix = 'grouping_table', indentation = '    ') -%}
{%- if time_series is not none -%}
,{{ eol() }}{{ indentation }}time_period,{{ eol() }}{{ indentation }}time_period_utc
{%- endif -%}
{%- endmacro -%}

{#- The incremental time window of partitioned checks, counted from the run's start like the built-in scan. -#}
{%- macro render_date_range_filters(prefix_to_render = none, table_alias_prefix = 'analyzed_table', indentation = '      ') -%}
{%- if time_window_filter is not none and time_series is not none and (time_series.timestamp_column | default(none, true)) is not none -%}
{%- set p = render_column(time_series.timestamp_column, table_alias_prefix) -%}
{%- set joiner = eol() ~ indentation ~ 'AND ' -%}
{%- if time_window_filter.daily_partitioning_recent_days | default(none, true) is not none -%}
{{ prefix_to_render }}{{ p }} >= CAST({{ run_start() }} AS DATE) - {{ time_window_filter.daily_partitioning_recent_days | int }}{{ joiner }}{{ p }} < CAST({{ run_start() }} AS DATE) + {{ 1 if time_window_filter.daily_partitioning_include_today else 0 }}
{%- elif time_window_filter.monthly_partitioning_recent_months | default(none, true) is not none -%}
{{ prefix_to_render }}{{ p }} >= DATE_TRUNC('month', {{ run_start() }}) - MAKE_INTERVAL(months => {{ time_window_filter.monthly_partitioning_recent_months | int }}){{ joiner }}{{ p }} < DATE_TRUNC('month', {{ run_start() }}) + MAKE_INTERVAL(months => {{ 1 if time_window_filter.monthly_partitioning_include_current_month else 0 }})
{%- endif -%}
{%- endif -%}
{%- endmacro -%}

{%- macro render_where_clause(extra_filter = none, table_alias_prefix = 'analyzed_table', indentation = '') -%}
{%- set filters = ([table.filter | default(none, true), parameters.filter | default(none, true), extra_filter | default(none, true)] | reject('none') | list) + (additional_filters | default([], true) | list) -%}
{%- if (filters | length) > 0 -%}
{{ eol() }}{{ indentation }}WHERE
{%- for filter in filters %} {% if not loop.first %}{{ eol() }}{{ indentation }}      AND {% endif -%}
({{ substitute_tokens(filter, table_alias_prefix, render_target_column(table_alias_prefix) if column_name else '{column}') }})
{%- endfor -%}
{{ render_date_range_filters(eol() ~ indentation ~ '      AND ', table_alias_prefix, indentation ~ '      ') }}
{%- else -%}
{{ render_date_range_filters(eol() ~ indentation ~ 'WHERE ', table_alias_prefix, indentation ~ '      ') }}
{%- endif -%}
{%- endmacro -%}

{%- macro render_grouping_column_names() -%}
{%- if data_groupings is not none and (data_groupings | length) > 0 -%}
{%- for attribute in data_groupings -%}{{ ', ' if not loop.first }}grouping_{{ attribute }}{%- endfor -%}
{%- endif -%}
{%- if time_series is not none -%}
{{ ', ' if data_groupings is not none and (data_groupings | length) > 0 }}time_period, time_period_utc
{%- endif -%}
{%- endmacro -%}

{%- macro render_group_by(indentation = '') -%}
{%- if (data_groupings is not none and (data_groupings | length) > 0) or time_series is not none -%}
{{ eol() }}{{ indentation }}GROUP BY {{ render_grouping_column_names() }}
{%- endif -%}
{%- endmacro -%}

{%- macro render_order_by(indentation = '') -%}
{%- if (data_groupings is not none and (data_groupings | length) > 0) or time_series is not none -%}
{{ eol() }}{{ indentation }}ORDER BY {{ render_grouping_column_names() }}
{%- endif -%}
{%- endmacro -%}
{#- Error samplers (<provider>.sample.sql.jinja2): the rows the call block's condition marks as failing, as
    actual_value, the row ids row_id_1..n of error_sampling.id_columns and the grouping_level_n columns, over the
    same rows as the sensor (table filter, check filter, partition window), the NULL values left out unless
    render_null_check = false. Without data groupings: ordered by the value (then the ids), at most
    error_sampling.samples_limit rows. With them: at most that many rows per data group (numbered sample_index),
    and at most error_sampling.total_samples_limit in all. -#}
{%- macro render_error_sampler(wrap_condition = '', render_null_check = true, override_samples_limit = none, value_order_by = 'ASC', sample_index = true, order_by_value_first = true, order_by_expression = '') -%}
{%- set per_group = override_samples_limit if override_samples_limit is not none else error_sampling.samples_limit -%}
{%- set ids = error_sampling.id_columns | default([], true) | list -%}
{%- set value = render_target_column('analyzed_table') if column_name else 'NULL' -%}
{%- set direction = 'DESC' if (value_order_by | upper) == 'DESC' else 'ASC' -%}
{%- set order_items = [] -%}
{%- if order_by_expression is not none and (order_by_expression | length) > 0 and column_name -%}
{%- set _ = order_items.append((order_by_expression | replace('{column}', value)) ~ ' ' ~ direction) -%}
{%- endif -%}
{%- if order_by_value_first -%}{%- set _ = order_items.append(value ~ ' ' ~ direction) -%}{%- endif -%}
{%- for id in ids -%}{%- set _ = order_items.append(render_column(id, 'analyzed_table') ~ ' ASC') -%}{%- endfor -%}
{%- if not order_by_value_first -%}{%- set _ = order_items.append(value ~ ' ' ~ direction) -%}{%- endif -%}
{%- set condition = ((value ~ ' IS NOT NULL AND ') if (render_null_check and column_name) else '') ~ wrap_condition ~ ' (' ~ caller() ~ ')' -%}
{%- set grouped = data_groupings is not none and (data_groupings | length) > 0 -%}
{%- if grouped -%}
WITH error_samples AS (
    SELECT
        {{ value }} AS actual_value
        {%- for id in ids %},
        {{ render_column(id, 'analyzed_table') }} AS row_id_{{ loop.index }}
        {%- endfor -%}
        {{- render_data_grouping_projections('analyzed_table', '        ') }},
        ROW_NUMBER() OVER (PARTITION BY
        {%- for attribute in data_groupings %}{{ ',' if not loop.first }} grouping_{{ attribute }}{% endfor %} ORDER BY {{ order_items | join(', ') }}) AS sample_index
    FROM (
        SELECT analyzed_table.*
            {{- render_data_grouping_projections('analyzed_table', '            ') }}
        FROM {{ render_target_table() }} AS analyzed_table
        {%- if parameters.foreign_table | default(none, true) is not none %}
        LEFT OUTER JOIN {{ render_referenced_table(parameters.foreign_table) }} AS foreign_table
        ON {{ value }} = foreign_table.{{ quote_identifier(parameters.foreign_column) }}
        {%- endif -%}
        {{- render_where_clause(condition, 'analyzed_table', '        ') }}
    ) AS analyzed_table
)
SELECT
    sample_table.actual_value AS actual_value
    {%- if sample_index %},
    sample_table.sample_index AS sample_index
    {%- endif -%}
    {%- for attribute in data_groupings %},
    sample_table.grouping_{{ attribute }} AS grouping_{{ attribute }}
    {%- endfor -%}
    {%- for id in ids %},
    sample_table.row_id_{{ loop.index }} AS row_id_{{ loop.index }}
    {%- endfor %}
FROM error_samples AS sample_table
WHERE sample_table.sample_index <= {{ per_group | int }}
ORDER BY {% for attribute in data_groupings %}sample_table.grouping_{{ attribute }}, {% endfor %}sample_table.sample_index
LIMIT {{ error_sampling.total_samples_limit | int }}
{%- else -%}
SELECT
    {{ value }} AS actual_value
    {%- for id in ids %},
    {{ render_column(id, 'analyzed_table') }} AS row_id_{{ loop.index }}
    {%- endfor %}
FROM {{ render_target_table() }} AS analyzed_table
{%- if parameters.foreign_table | default(none, true) is not none %}
LEFT OUTER JOIN {{ render_referenced_table(parameters.foreign_table) }} AS foreign_table
ON {{ value }} = foreign_table.{{ quote_identifier(parameters.foreign_column) }}
{%- endif -%}
{{- render_where_clause(condition) }}
ORDER BY {{ order_items | join(', ') }}
LIMIT {{ per_group | int }}
{%- endif -%}
{%- endmacro -%}
`;

/**
 * The query a custom sensor is compared with to learn whether it reads exactly the rows and groups of the
 * table's merged scan: the same macros around one aggregate. A template whose rendered SQL has the same parts
 * outside its actual_value / expected_value lines (DQOps's rule for merging) joins the scan.
 */
export const SCAN_REFERENCE_TEMPLATE = `{% import '${POSTGRESQL_DIALECT_TEMPLATE_NAME}' as lib with context -%}
SELECT
    COUNT(*) AS actual_value
    {{- lib.render_data_grouping_projections('analyzed_table') }}
    {{- lib.render_time_dimension_projection('analyzed_table') }}
FROM {{ lib.render_target_table() }} AS analyzed_table
{{- lib.render_where_clause() -}}
{{- lib.render_group_by() -}}
{{- lib.render_order_by() -}}`;
