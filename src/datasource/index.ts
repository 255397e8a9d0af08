/**
 * The only module that connects to monitored data sources (PostgreSQL, DuckDB over files): pools per connection (DataSources), secret
 * references resolved at connect time, introspection, and the statistics SQL. Identifiers are always quoted
 * with quoteIdent; values are always bound parameters.
 */
export { APPLICATION_NAME, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS } from './dataSource.js';
export type { DataSource, DataSourceOptions, DataSourceSession, SessionOptions, SqlTarget } from './dataSource.js';
export { PostgresDataSource } from './postgresDataSource.js';
export { DuckdbDataSource } from './duckdb/duckdbDataSource.js';
export { DUCKDB, POSTGRESQL, type SqlDialect } from './dialects/index.js';
export { DataSources, type DataSourcesOptions } from './dataSources.js';
export { DEFAULT_PARALLEL_JOBS_LIMIT, parallelJobsLimitOf, postgresBlockOf } from './connectionConfig.js';
export { classifyDataSourceError, dataSourceFailure, failureReason, type DataSourceFailure } from './dataSourceErrors.js';
export { hasSecretReference, redactSecrets, resolveSecretReferences, type SecretContext } from './secretReferences.js';
export { quoteIdent, quoteQualified } from './sensors/quoteIdent.js';
export { describeTable, describeTables, describeTablesOrFailures, likePattern, listSchemas, listTables, schemaTableKey, type SourceColumn, type SourceTable, type TableFilter } from './introspect.js';
export type { SourceCatalog, TableColumns } from './sourceCatalog.js';
export {
  ALL_DATA,
  DEFAULT_TOP_VALUES,
  MAX_DATA_GROUPS,
  collectTableStatistics,
  dataGroupName,
  type AnalyzedColumn,
  type GroupingLevel,
  type StatisticsValue,
  type TableStatistics,
  type TableStatisticsRequest,
} from './collectTableStatistics.js';
export {
  STATISTICS_CATEGORIES,
  STATISTICS_COLLECTORS,
  categoryOfCollector,
  columnProfileOf,
  selectedCollectors,
  type ColumnProfile,
  type CollectorSelection,
  type StatisticsCategory,
} from './statisticsCollectors.js';
