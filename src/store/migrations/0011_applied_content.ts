/**
 * The content an object was last applied with, kept only while it differs from the live spec: after an API
 * write to a git-managed object, the version apply wrote (so a plan can tell, field by field, whether the
 * repository or the API changed what differs: a three-way comparison), and after a keep-drift apply, the
 * repository's version beside the merged spec. NULL: the live spec is the applied one when the hashes agree;
 * otherwise (an object drifted before this migration) the base is unknown.
 */
export const migration0011 = {
  version: 11,
  name: 'applied_content',
  sql: /* sql */ `
alter table dqctl.objects add column applied_content jsonb;
`,
};
