/**
 * The first schema: live objects, the revision counter, the apply audit trail and the lock row.
 * Listing reads (kind, name) in key order, which the primary key serves; specs are TOASTed out of line, so
 * listSummaries, which never selects them, does not read them. History is read newest first by id.
 */
export const migration0001 = {
  version: 1,
  name: 'initial',
  sql: /* sql */ `
create table dqctl.objects (
  kind          text        not null,
  name          text        not null,
  spec          jsonb       not null,
  attachments   jsonb       not null default '{}'::jsonb,
  content_hash  text        not null,
  applied_hash  text,
  managed_by    text        not null check (managed_by in ('git', 'api')),
  owner         text        not null,
  origin_file   text,
  origin_commit text,
  revision      bigint      not null,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now(),
  primary key (kind, name)
);

create table dqctl.store_state (
  id       boolean primary key default true check (id),
  revision bigint  not null
);
insert into dqctl.store_state (id, revision) values (true, 0);

create table dqctl.apply_history (
  id               bigint generated always as identity primary key,
  applied_by       text        not null,
  applied_at       timestamptz not null default now(),
  commit           text,
  repository       text,
  plan_fingerprint text        not null,
  summary          jsonb       not null,
  store_revision   bigint      not null
);

create table dqctl.lock (
  id          boolean primary key default true check (id),
  holder      text        not null,
  operation   text        not null,
  since       timestamptz not null,
  pid         integer,
  host        text,
  backend_pid integer     not null
);
`,
};
