/** The SQL dialects of the data sources dqctl runs checks on. */
export type { DialectName, SqlDialect } from './dialect.js';
export { POSTGRESQL } from './postgresql.js';
export { DUCKDB } from './duckdb.js';
export { MYSQL } from './mysql.js';
