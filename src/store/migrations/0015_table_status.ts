import { REBUILD_TABLE_STATUS } from '../tableStatus.js';

/**
 * Migration of the helper h25plan (the lead renumbers it when merging): each table's data quality now, one row
 * per table with results, kept as results are written (src/store/tableStatus.ts), so that the console's lists
 * read it instead of folding every stored result; filled here from the results already stored.
 */
export const migration0015 = {
  version: 15,
  name: 'table_status',
  sql: /* sql */ `
create table dqctl.table_status (
  connection_name  text        not null,
  schema_name      text        not null,
  table_name       text        not null,
  severity         integer,
  valid            integer     not null,
  warnings         integer     not null,
  errors           integer     not null,
  fatals           integer     not null,
  execution_errors integer     not null,
  last_executed_at timestamptz not null,
  primary key (connection_name, schema_name, table_name)
);
${REBUILD_TABLE_STATUS}
`,
};
