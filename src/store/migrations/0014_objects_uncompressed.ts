/**
 * Migration of the helper h25plan (the lead renumbers it when merging): large specs are stored out of line
 * without compression. Compressing them (pglz) took more than half of an embedded apply's insert, because PGlite
 * runs it in WASM (measured: 10,000 tables, 16 MB of specs, 7.0 s → 4.0 s); PostgreSQL skips its own, cheaper
 * compression too. The cost is disk: a spec takes its JSON size (about 1.6 KB a table in the benchmark) instead of
 * a third of it. Rows written before keep their compressed values until they are written again.
 */
export const migration0014 = {
  version: 14,
  name: 'objects_uncompressed',
  sql: /* sql */ `
alter table dqctl.objects
  alter column spec set storage external,
  alter column attachments set storage external,
  alter column applied_content set storage external;
`,
};
