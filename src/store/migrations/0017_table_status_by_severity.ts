/**
 * Migration of the helper h25keys (the lead renumbers it when merging): dqctl.table_status by connection and
 * severity, so that a connection's quality (the worst of its live tables', src/store/tableStatus.ts
 * readConnectionSeverities) is read from its worst rows first, checking that their tables exist only until one
 * does, instead of checking every table of the connection against the live objects (a page of 100 connections of
 * 1,000 tables each: 180 ms per keystroke of the console's search at 100,000 tables).
 */
export const migration0017 = {
  version: 17,
  name: 'table_status_by_severity',
  sql: /* sql */ `
create index table_status_by_severity on dqctl.table_status (connection_name, severity);
`,
};
