/**
 * An apply from a work tree with uncommitted changes records which files differed from its commit: without
 * it the history would claim the commit was what was applied. NULL: clean (or not a git work tree), as every
 * record written before this migration is taken to be.
 */
export const migration0006 = {
  version: 6,
  name: 'apply_history_dirty',
  sql: /* sql */ `
alter table dqctl.apply_history add column dirty_files jsonb;
`,
};
