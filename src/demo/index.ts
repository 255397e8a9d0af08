/**
 * The demo data source of `npm start` / `dqctl demo`: decide where the example's data comes from, build the
 * demo databases (generated shop data with deliberate quality problems), and point the example's connections
 * at them through the environment. Talks to a PostgreSQL server with `pg` directly: it creates databases,
 * which the data-source module (read-only by design) never does.
 */
export { chooseDemoSource, type DemoSource } from './chooseDemoSource.js';
export { DEMO_CONNECTIONS, configuredConnectionVariables, connectionVariables } from './demoConnections.js';
export { DEFAULT_DEMO_DATA_SIZE, GENERATOR_VERSION, type DemoDataSize } from './demoData.js';
export { DEFAULT_DEMO_PREFIX, checkDemoPrefix, demoDatabaseName, dropDemoDatabases, ensureDemoDatabases, type DemoDatabase } from './demoDatabases.js';
export { describeDemoFiles, prepareDemoFiles, type PreparedDemoFiles } from './prepareDemoFiles.js';
export { demoEnvironment, describeDemoEnvironment } from './demoEnvironment.js';
export { DEFAULT_DEMO_DATABASE_URL, DEMO_DATABASE_URL_VARIABLE, databaseUrl, parseDemoServer, type DemoServer } from './demoServer.js';
export { DEMO_TABLES } from './demoTables.js';
