/**
 * A row of check_results is a sensor readout and, when the check's rules decided, a check result. DQOps keeps
 * the two apart: a readout on which no configured rule could decide (too little history, no actual value) is
 * stored as a readout only, never as a check result; and a rule may report its own actual value (max_failures:
 * the count of consecutive failures), which the check result shows while the readout keeps the sensor's value.
 *
 * `verdict` false: a readout only (the results API, the overviews, the incidents and the counts skip it; the
 * rules' history and the readouts API read it). `rule_actual_value`: the rule's actual value, shown by the
 * results instead of `actual_value` (the readout), which the rules' history keeps reading. Rows written before
 * this migration had a verdict and no rule value.
 */
export const migration0007 = {
  version: 7,
  name: 'readouts_without_verdict',
  sql: /* sql */ `
alter table dqctl.check_results add column verdict boolean not null default true;
alter table dqctl.check_results add column rule_actual_value double precision;
`,
};
