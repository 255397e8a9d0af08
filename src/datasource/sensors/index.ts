/**
 * Sensors as SQL for PostgreSQL: the check runner describes what to measure on a table, gets SQL text with
 * bound values, runs it on the data source (in a read-only transaction; this module never connects) and turns
 * the rows into readouts per sensor.
 */
export {
  buildErrorSamplesQuery,
  errorSamplingSupported,
  MAX_ID_COLUMNS,
  MAX_SAMPLE_LENGTH,
  type ErrorSample,
  type ErrorSamplesOptions,
  type ErrorSamplesQuery,
} from './buildErrorSamplesQuery.js';
export { buildTableQuery, splitScan } from './buildTableQuery.js';
export { planSensorQueries } from './planSensorQueries.js';
export { sourceColumnTypesWanted } from './definitions/tableSensors.js';
export { quoteIdent, quoteQualified } from './quoteIdent.js';
export { implementedSensors, sensorMeaning } from './sensorCoverage.js';
export * from './sensorTypes.js';
export { planTemplateSensors, type TemplateColumn } from './templateQueries.js';
export { customSensorOf, parameterProblem, TEMPLATE_PROVIDER, type CustomSensorDefinition } from '../templates/customSensor.js';
export { templateContext, type TemplateContextOptions } from '../templates/templateContext.js';
export { samplerContext, samplesOfRows } from '../templates/customSampler.js';
export { POSTGRESQL_DIALECT_TEMPLATE, POSTGRESQL_DIALECT_TEMPLATE_NAME, SCAN_REFERENCE_TEMPLATE } from '../templates/postgresqlDialect.js';
