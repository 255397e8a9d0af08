/** Every schema file of schemas/, built from code and the check catalog; `npm run schemas` writes them. */
import type { CheckCatalog } from '../../catalog/index.js';
import { SCHEMA_FILES, type DocumentKind } from '../schemaFiles.js';
import { connectionSchema } from './connectionSchema.js';
import { checkDefinitionSchema, dictionarySchema, providerSensorSchema, sensorDefinitionSchema } from './customDefinitionSchemas.js';
import { defaultNotificationsSchema } from './notificationSchemas.js';
import { policySchema } from './policySchemas.js';
import { ruleSchema } from './ruleSchema.js';
import type { Schema } from './schemaShapes.js';
import { defaultSchedulesSchema } from './settingsFileSchemas.js';
import { settingsSchema } from './settingsSchema.js';
import { tableSchema } from './tableSchema.js';

export interface SchemaFile {
  kind: DocumentKind;
  file: string;
  schema: Schema;
}

export function buildSchemas(catalog: CheckCatalog): SchemaFile[] {
  const build: Record<DocumentKind, (file: string) => Schema> = {
    source: (file) => connectionSchema(file),
    table: (file) => tableSchema(file, catalog),
    rule: (file) => ruleSchema(file),
    sensor: (file) => sensorDefinitionSchema(file),
    provider_sensor: (file) => providerSensorSchema(file),
    check: (file) => checkDefinitionSchema(file),
    dictionary: (file) => dictionarySchema(file),
    default_table_checks: (file) => policySchema(file, 'table', catalog),
    default_column_checks: (file) => policySchema(file, 'column', catalog),
    default_schedules: (file) => defaultSchedulesSchema(file),
    default_notifications: (file) => defaultNotificationsSchema(file),
    settings: (file) => settingsSchema(file),
  };
  return (Object.keys(SCHEMA_FILES) as DocumentKind[]).map((kind) => ({ kind, file: SCHEMA_FILES[kind], schema: build[kind](SCHEMA_FILES[kind]) }));
}
