/**
 * DQOps's own identity of imported history (`dqctl import dqops-data`): each row keeps the `id` DQOps gave it,
 * so importing the same files again finds the row instead of adding one, and the API answers with DQOps's id.
 * `dqops_columns` keeps, as text exactly as the Parquet file held them (64-bit hashes digit for digit,
 * timestamps to the microsecond), the DQOps columns dqctl has no column of its own for (hashes, grouping levels,
 * created_by, the result's bounds…), so an export writes an imported row back as it came in. Rows of dqctl's own
 * runs have neither (export computes their ids and hashes).
 *
 * A check_results row is DQOps's readout and, when it has a verdict, its check result too (same id in DQOps);
 * execution errors are DQOps's `errors` rows. Incidents already had DQOps's id as their key.
 */
export const migration0012 = {
  version: 12,
  name: 'dqops_data',
  sql: /* sql */ `
alter table dqctl.check_results add column dqops_id text, add column dqops_columns jsonb;
create unique index check_results_dqops_id on dqctl.check_results (dqops_id);

alter table dqctl.error_samples add column dqops_id text, add column dqops_columns jsonb;
create unique index error_samples_dqops_id on dqctl.error_samples (dqops_id);

alter table dqctl.statistics add column dqops_id text, add column dqops_columns jsonb;
create unique index statistics_dqops_id on dqctl.statistics (dqops_id);

alter table dqctl.incidents add column dqops_columns jsonb;
`,
};
