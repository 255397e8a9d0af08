/**
 * sources/<connection>/connection.dqoconnection.yaml (kind: source). The postgresql, duckdb, mysql and mariadb blocks are
 * validated in full because dqctl runs checks on them; the blocks of the other DQOps providers are accepted as
 * objects so that an existing DQOps home still loads.
 */
import { documentSchema } from './documentSchema.js';
import { fileFormatDefs } from './fileFormatSchemas.js';
import { closedObject, enumOf, freeObject, int, ref, str, stringMap, type Schema } from './schemaShapes.js';
import { incidentNotificationSchema } from './notificationSchemas.js';
import { commentDefs, cronScheduleDefs, cronSchedulesOf, dataGroupingDefs, incidentGroupingFields, labelsSchema } from './sharedSpecs.js';

export const PROVIDER_TYPES = [
  'bigquery', 'clickhouse', 'databricks', 'db2', 'duckdb', 'hana', 'mariadb', 'mysql', 'oracle',
  'postgresql', 'presto', 'questdb', 'redshift', 'snowflake', 'spark', 'sqlserver', 'teradata', 'trino',
] as const;

export { SCHEDULING_GROUPS } from './sharedSpecs.js';

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
/** MySQL's ssl-mode, as DQOps's MySqlSslMode spells it. */
export const MYSQL_SSL_MODES = ['DISABLED', 'PREFERRED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'] as const;

/** host, port, database, user and password of a MySQL-protocol server (DQOps's MysqlParametersSpec, MariaDbParametersSpec). */
function mysqlProtocolFields(engine: string): Record<string, Schema> {
  return {
    host: str(`${engine} host name; may be a \${ENV_VAR} reference.`),
    port: { type: ['string', 'integer'], description: 'Port number (default 3306), or a ${ENV_VAR} reference.' },
    database: str(`${engine} database name (the schema of its tables).`),
    user: str(`${engine} user name.`),
    password: str('Password; use a ${ENV_VAR} or ${credential://...} reference, not a literal.'),
    properties: stringMap('JDBC properties in DQOps; dqctl reads `sslMode` (MariaDB Connector/J: disable, trust, verify-ca, verify-full) and ignores the others.'),
  };
}

export function connectionSchema(file: string): Schema {
  const spec: Record<string, Schema> = {
    provider_type: enumOf(PROVIDER_TYPES, 'The database engine of the data source.'),
  };
  for (const provider of PROVIDER_TYPES) {
    spec[provider] =
      provider === 'postgresql' || provider === 'duckdb' || provider === 'mysql' || provider === 'mariadb'
        ? ref(`${provider}_parameters`)
        : freeObject(`Connection settings for ${provider} (accepted, not validated).`);
  }
  const schedules = cronSchedulesOf(ref('cron_schedule'));
  Object.assign(spec, {
    parallel_jobs_limit: int('How many checks may run on this source at the same time.', { minimum: 1 }),
    default_grouping_configuration: ref('data_grouping_configuration'),
    schedules: closedObject(schedules, { description: 'Schedules of each group of checks.' }),
    auto_import_tables: closedObject(
      {
        schema_filter: str('Schemas to import (wildcards allowed).'),
        table_name_contains: str('Only tables whose name contains this text.'),
        schedule: ref('cron_schedule'),
      },
      { description: 'Periodic import of new tables.' },
    ),
    schedule_on_instance: str('Kept for DQOps: the DQOps instance that runs the schedules of this connection.'),
    incident_grouping: closedObject(
      {
        ...incidentGroupingFields(),
        incident_notification: incidentNotificationSchema('Notification addresses for incidents of this source (empty fields fall back to settings/defaultnotifications.dqonotifications.yaml).'),
      },
      { description: 'How failed checks of this source are grouped into incidents.' },
    ),
    comments: ref('comments'),
    labels: labelsSchema(),
    advanced_properties: stringMap('Extra properties passed to the provider.'),
  });
  return documentSchema({
    file,
    title: 'dqctl / DQOps connection',
    description: 'A data source: sources/<connection>/connection.dqoconnection.yaml (kind: source).',
    apiVersion: 'dqo/v1',
    kind: 'source',
    spec: closedObject(spec, { description: 'The connection specification.' }),
    defs: {
      postgresql_parameters: closedObject(
        {
          host: str('Host name or IP address; may be an ${ENV_VAR} reference.'),
          port: { type: ['string', 'integer'], description: 'Port number, or a ${ENV_VAR} reference.' },
          database: str('Database name.'),
          user: str('User name.'),
          password: str('Password; use a ${ENV_VAR} or ${credential://...} reference, not a literal.'),
          options: str('PostgreSQL connection options (the options startup parameter).'),
          sslmode: enumOf(SSL_MODES, 'TLS mode, as in libpq.'),
          postgresql_engine_type: enumOf(['postgresql', 'timescale'], 'The PostgreSQL flavour.'),
          properties: stringMap('Extra JDBC / driver properties.'),
        },
        { description: 'Connection settings for PostgreSQL.' },
      ),
      mysql_parameters: closedObject(
        {
          ...mysqlProtocolFields('MySQL'),
          sslmode: enumOf(MYSQL_SSL_MODES, 'TLS mode, as MySQL names it: DISABLED, PREFERRED (no TLS in dqctl: the driver cannot fall back), REQUIRED (TLS, certificate not verified), VERIFY_CA and VERIFY_IDENTITY (verified).'),
          mysql_engine_type: enumOf(['mysql', 'singlestoredb'], 'The MySQL flavour (dqctl runs MySQL and MariaDB).'),
          single_store_db_parameters_spec: freeObject('SingleStoreDB settings (accepted, not used).'),
        },
        { description: 'Connection settings for MySQL.' },
      ),
      mariadb_parameters: closedObject(mysqlProtocolFields('MariaDB'), { description: 'Connection settings for MariaDB.' }),
      ...fileFormatDefs(),
      ...cronScheduleDefs(),
      ...dataGroupingDefs(),
      ...commentDefs(),
    },
  });
}
