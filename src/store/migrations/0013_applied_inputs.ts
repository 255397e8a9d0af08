/**
 * Migration of the helper h25plan (the lead renumbers it when merging): what each namespace's last apply was made
 * from, so that a plan of the same files against a store nothing has written to since can answer "no changes"
 * without listing and comparing every object (src/store/appliedInputs.ts, src/app/planRepository.ts).
 *
 * One row per namespace, written by an apply in its transaction: the digest of the repository's inputs (every
 * file's path and sha256, the environment, the code that loads them), the fingerprint of the desired state they
 * gave, the store revision of that apply and the store's schema version then. A row answers only while the store
 * revision is still that apply's (any write since, by anyone, moves it), the schema is the same and the objects
 * table is the same one (a TRUNCATE or a restore gives it a new file: its revision may then come back to N).
 */
export const migration0013 = {
  version: 13,
  name: 'applied_inputs',
  sql: /* sql */ `
create table dqctl.applied_inputs (
  namespace           text        primary key,
  input_digest        text        not null,
  desired_fingerprint text        not null,
  store_revision      bigint      not null,
  schema_version      integer     not null,
  objects_filenode    text        not null,
  recorded_at         timestamptz not null default now()
);
`,
};
