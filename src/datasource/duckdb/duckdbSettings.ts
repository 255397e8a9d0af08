/**
 * A connection's `duckdb` block (DQOps's DuckdbParametersSpec) → what dqctl needs to read its files: the read
 * mode, the files' format, the folder of each schema (`directories`, `${ENV}` references resolved) and the
 * connection-level reader options. Resolved when the data source opens, never earlier.
 */
import { DqError, isJsonObject, type JsonObject } from '../../model/index.js';
import { resolveSecretReferences, type SecretContext } from '../secretReferences.js';

export type FilesFormat = 'csv' | 'json' | 'parquet';
const READABLE_FORMATS: readonly string[] = ['csv', 'json', 'parquet'];

export interface DuckdbSettings {
  readMode: 'in_memory' | 'files';
  /** Undefined when the connection does not say (DQOps then cannot read files either). */
  format: FilesFormat | undefined;
  /** Schema → folder. */
  directories: Record<string, string>;
  storageType: string;
  /** The connection's reader options per format (`csv:`, `json:`, `parquet:`). */
  formatOptions: Partial<Record<FilesFormat, JsonObject>>;
  /** Extra DuckDB settings (`properties`). */
  properties: Record<string, string>;
  secrets: string[];
}

export async function resolveDuckdbSettings(connection: string, spec: JsonObject, secretContext: SecretContext): Promise<DuckdbSettings> {
  const block = spec.duckdb;
  if (!isJsonObject(block)) throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)} has no duckdb settings (read_mode, files_format_type, directories)`, { connection });
  const secrets: string[] = [];
  const resolve = async (value: unknown, where: string): Promise<string> => {
    const resolved = await resolveSecretReferences(String(value), secretContext, `connection ${JSON.stringify(connection)}: duckdb.${where}`);
    secrets.push(...resolved.secrets);
    return resolved.value;
  };
  const format = block.files_format_type;
  if (format !== undefined && format !== null && !READABLE_FORMATS.includes(String(format))) {
    throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)}: dqctl reads csv, json and parquet files, not ${String(format)}`, { connection });
  }
  const directories: Record<string, string> = {};
  if (isJsonObject(block.directories)) {
    for (const [schema, folder] of Object.entries(block.directories)) directories[schema] = await resolve(folder, `directories.${schema}`);
  }
  const formatOptions: Partial<Record<FilesFormat, JsonObject>> = {};
  for (const key of ['csv', 'json', 'parquet'] as const) if (isJsonObject(block[key])) formatOptions[key] = block[key];
  const properties: Record<string, string> = {};
  if (isJsonObject(block.properties)) for (const [key, value] of Object.entries(block.properties)) properties[key] = await resolve(value, `properties.${key}`);
  return {
    readMode: block.read_mode === 'files' ? 'files' : 'in_memory',
    format: format === undefined || format === null ? undefined : (String(format) as FilesFormat),
    directories,
    storageType: typeof block.storage_type === 'string' ? block.storage_type : 'local',
    formatOptions,
    properties,
    secrets,
  };
}
