/**
 * One check result (or readout) per check, time period and data group, as DQOps stores them: a later run of the
 * check for the same period and data group replaces the row (src/store/resultKey.ts; the writer upserts). Before
 * this migration every run added rows, so a re-run on the same day showed twice in every results view and
 * incident. The duplicates are removed first, keeping the newest execution of each key (the highest id when
 * two ran at the same instant), then the unique index holds the key. Execution errors stay one row per failed
 * run and are left out of the index.
 *
 * column_name and table_comparison are coalesced because a unique index treats NULLs as distinct before
 * PostgreSQL 15 (NULLS NOT DISTINCT).
 */
export const migration0010 = {
  version: 10,
  name: 'one_result_per_period',
  sql: /* sql */ `
delete from dqctl.check_results r
 using (select id, row_number() over (
                 partition by connection_name, schema_name, table_name, coalesce(column_name, ''), check_type, time_gradient,
                              check_category, check_name, coalesce(table_comparison, ''), time_period, data_group
                 order by executed_at desc, id desc) as newer
          from dqctl.check_results
         where error_message is null) d
 where r.id = d.id and d.newer > 1;

create unique index check_results_one_per_period on dqctl.check_results
  (connection_name, schema_name, table_name, coalesce(column_name, ''), check_type, time_gradient, check_category,
   check_name, coalesce(table_comparison, ''), time_period, data_group)
  where error_message is null;
`,
};
