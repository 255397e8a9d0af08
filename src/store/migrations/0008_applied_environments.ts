/**
 * The environment (`--env`, dqctl.yaml's spec.environments) each namespace's objects were last applied with:
 * a plan for another environment says so, and apply refuses it without --switch-env, so a staging checkout
 * cannot silently overwrite production's thresholds. One row per namespace, because repositories of several
 * namespaces may share a store. `environment` NULL: applied without one. No row: never recorded (stores
 * applied before this migration, or never applied).
 */
export const migration0008 = {
  version: 8,
  name: 'applied_environments',
  sql: /* sql */ `
create table dqctl.applied_environments (
  namespace      text        primary key,
  environment    text,
  store_revision bigint      not null,
  applied_at     timestamptz not null default now()
);
alter table dqctl.apply_history add column environment text;
`,
};
