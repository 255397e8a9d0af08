/**
 * The FROM item of a DuckDB table over files, as DQOps reads it: the table's `file_format.file_paths` when
 * given, else the schema's folder (`directories`) joined with the table name: the file itself when the name
 * ends with the format's extension (`orders.csv`), else every file of that extension in the folder of that
 * name (`orders/*.csv`, `orders/** /*.csv` with hive partitioning). The reader is read_csv, read_json or
 * read_parquet with the table's format options, or the connection's when the table has none. Paths and options
 * are string literals of the dialect (a table function takes no bound values); option names are a fixed list.
 */
import { isAbsolute, join } from 'node:path';
import { DqError, isJsonObject, type JsonObject, type JsonValue } from '../../model/index.js';
import { DUCKDB } from '../dialects/duckdb.js';
import type { DuckdbSettings, FilesFormat } from './duckdbSettings.js';

/** Reader options per format: the YAML key is DuckDB's parameter name; `text` ones are string literals. */
const OPTIONS: Record<FilesFormat, Record<string, 'text' | 'value'>> = {
  csv: {
    all_varchar: 'value', allow_quoted_nulls: 'value', auto_detect: 'value', compression: 'text', dateformat: 'text', decimal_separator: 'text',
    delim: 'text', escape: 'text', filename: 'value', header: 'value', hive_partitioning: 'value', ignore_errors: 'value', new_line: 'text',
    quote: 'text', sample_size: 'value', skip: 'value', timestampformat: 'text',
  },
  json: {
    auto_detect: 'value', compression: 'text', convert_strings_to_integers: 'value', dateformat: 'text', filename: 'value', format: 'text',
    hive_partitioning: 'value', ignore_errors: 'value', maximum_depth: 'value', maximum_object_size: 'value', records: 'text',
    sample_size: 'value', timestampformat: 'text',
  },
  parquet: { binary_as_string: 'value', filename: 'value', file_row_number: 'value', hive_partitioning: 'value', union_by_name: 'value', compression: 'text' },
};
const READERS: Record<FilesFormat, string> = { csv: 'read_csv', json: 'read_json', parquet: 'read_parquet' };
const COMPRESSION_EXTENSIONS: Record<string, string> = { gzip: '.gz', zstd: '.zst', snappy: '.snappy', lz4: '.lz4' };
const NEW_LINES: Record<string, string> = { cr: '\\r', lf: '\\n', crlf: '\\r\\n' };

/** True for a path DuckDB reads over the network (httpfs). */
export function isRemotePath(path: string): boolean {
  return /^(s3|s3a|gs|gcs|az|azure|abfss|r2|https?):\/\//i.test(path);
}

function optionValue(value: JsonValue, kind: 'text' | 'value'): string | undefined {
  if (value === null || typeof value === 'object') return undefined;
  if (kind === 'text') return DUCKDB.literal(String(value));
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export interface FileTable {
  relation: string;
  paths: string[];
}

export function fileRelation(connection: string, settings: DuckdbSettings, schema: string, table: string, tableSpec?: JsonObject): FileTable {
  const format = settings.format;
  if (format === undefined) throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)}: duckdb.files_format_type is not set, so dqctl does not know how to read the files`, { connection });
  const fileFormat = isJsonObject(tableSpec?.file_format) ? tableSpec.file_format : undefined;
  const options = isJsonObject(fileFormat?.[format]) ? (fileFormat[format] as JsonObject) : (settings.formatOptions[format] ?? {});
  const folder = settings.directories[schema];
  const listed = Array.isArray(fileFormat?.file_paths) ? fileFormat.file_paths.filter((p): p is string => typeof p === 'string' && p !== '') : [];
  let paths: string[];
  if (listed.length > 0) {
    paths = listed.map((path) => (isAbsolute(path) || isRemotePath(path) || folder === undefined ? path : joinPath(folder, path)));
  } else {
    if (folder === undefined) {
      throw new DqError('INVALID_ARGUMENT', `connection ${JSON.stringify(connection)}: the schema ${JSON.stringify(schema)} has no folder in duckdb.directories and the table ${JSON.stringify(table)} lists no file_paths`, { connection });
    }
    const compression = typeof options.compression === 'string' && options.no_compression_extension !== true ? (COMPRESSION_EXTENSIONS[options.compression] ?? '') : '';
    const extension = typeof options.file_extension === 'string' && options.file_extension !== '' ? options.file_extension : `.${format}${compression}`;
    const base = isAbsolute(table) || isRemotePath(table) ? table : joinPath(folder, table);
    paths = [base.toLowerCase().endsWith(extension.toLowerCase()) ? base : joinPath(base, options.hive_partitioning === true ? `**/*${extension}` : `*${extension}`)];
  }
  const args = [paths.length === 1 ? DUCKDB.literal(paths[0]!) : `[${paths.map((p) => DUCKDB.literal(p)).join(', ')}]`];
  for (const [key, kind] of Object.entries(OPTIONS[format])) {
    if (!(key in options)) continue;
    const raw = options[key]!;
    const value = key === 'new_line' && typeof raw === 'string' ? DUCKDB.literal(NEW_LINES[raw] ?? raw) : optionValue(raw, kind);
    if (value !== undefined) args.push(`${key} = ${value}`);
  }
  return { relation: `${READERS[format]}(${args.join(', ')})`, paths };
}

function joinPath(folder: string, name: string): string {
  return isRemotePath(folder) ? `${folder.replace(/\/+$/, '')}/${name}` : join(folder, name);
}
