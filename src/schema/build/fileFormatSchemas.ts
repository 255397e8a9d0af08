/**
 * DuckDB in DQOps's words: a connection's `duckdb` block (read mode, the format of its files, the folders that
 * are its schemas, remote storage credentials) and the file format settings a connection or a table gives
 * (`csv`, `json`, `parquet` with DuckDB's reader options; a table's `file_paths`). Every key DQOps's
 * DuckdbParametersSpec and FileFormatSpec accept is listed, so a typo is reported where it is written; avro,
 * iceberg and delta_lake settings are kept as objects (dqctl reads csv, json and parquet files).
 */
import { arrayOf, bool, closedObject, enumOf, freeObject, int, ref, str, stringMap, type Schema } from './schemaShapes.js';

export const DUCKDB_FILES_FORMAT_TYPES = ['csv', 'json', 'parquet', 'avro', 'iceberg', 'delta_lake'] as const;
const COMPRESSION = ['none', 'auto', 'gzip', 'zstd', 'snappy', 'lz4'];

const formatKept = (format: string): Schema => freeObject(`Kept for DQOps: ${format} settings (dqctl reads csv, json and parquet files).`);

/** The format settings shared by a connection's duckdb block and a table's file_format. */
function formatBlocks(): Record<string, Schema> {
  return {
    csv: ref('duckdb_csv_format'),
    json: ref('duckdb_json_format'),
    parquet: ref('duckdb_parquet_format'),
    avro: formatKept('Avro'),
    iceberg: formatKept('Iceberg'),
    delta_lake: formatKept('Delta Lake'),
  };
}

const compressionOptions = (): Record<string, Schema> => ({
  compression: enumOf(COMPRESSION, 'Compression of the files; by default detected from the extension (t.csv.gz is gzip).'),
  no_compression_extension: bool('True when the file names do not end with the compression extension.'),
  file_extension: str('A file name extension other than the format\'s (.csv, .json, .parquet).'),
});

export function fileFormatDefs(): Record<string, Schema> {
  return {
    duckdb_parameters: closedObject(
      {
        read_mode: enumOf(['in_memory', 'files'], 'in_memory: an in-memory DuckDB database (default); files: read the files of `directories`.'),
        files_format_type: enumOf(DUCKDB_FILES_FORMAT_TYPES, 'The format of the files (csv, json, parquet; avro, iceberg and delta_lake are not read by dqctl).'),
        database: str('Kept for DQOps: the name of the in-memory database.'),
        enable_optimizer: bool('Kept for DQOps: use the statistics of Parquet files in the query optimizer.'),
        properties: stringMap('Extra DuckDB settings (SET name = value when the database opens).'),
        ...formatBlocks(),
        directories: stringMap('Schema name → the folder (absolute path, or s3://, gs://, az:// URL) whose files or subfolders are its tables.'),
        storage_type: enumOf(['local', 's3', 'azure', 'gcs'], 'Where the files are (local by default; remote storage needs DuckDB\'s httpfs extension).'),
        aws_authentication_mode: enumOf(['iam', 'default_credentials'], 'Kept for DQOps: how S3 credentials are found.'),
        aws_default_authentication_chain: str('Kept for DQOps: the AWS credential chain.'),
        azure_authentication_mode: enumOf(['connection_string', 'credential_chain', 'service_principal', 'default_credentials'], 'Kept for DQOps: how Azure credentials are found.'),
        user: str('Remote storage user (access key); may be a ${ENV_VAR} reference.'),
        password: str('Remote storage password (secret key); use a ${ENV_VAR} or ${credential://...} reference.'),
        region: str('Remote storage region.'),
        profile: str('Kept for DQOps: the AWS profile.'),
        tenant_id: str('Kept for DQOps: Azure tenant id.'),
        client_id: str('Kept for DQOps: Azure client id.'),
        client_secret: str('Kept for DQOps: Azure client secret; use a reference.'),
        account_name: str('Kept for DQOps: Azure storage account name.'),
      },
      { description: 'Connection settings for DuckDB: an in-memory database, or folders of CSV, JSON or Parquet files.' },
    ),
    duckdb_csv_format: closedObject(
      {
        all_varchar: bool('Read every column as VARCHAR (no type detection).'),
        allow_quoted_nulls: bool('A quoted value may be NULL.'),
        auto_detect: bool('Detect the CSV settings (default true).'),
        ...compressionOptions(),
        dateformat: str('The format of dates (strptime).'),
        decimal_separator: str('The decimal separator of numbers.'),
        delim: str('The column separator.'),
        escape: str('The character before a quote inside a quoted value.'),
        filename: bool('Add a column with the file name.'),
        header: bool('The first line holds the column names.'),
        hive_partitioning: bool('Read the folder as hive partitions (key=value folders become columns).'),
        ignore_errors: bool('Skip rows that cannot be parsed instead of failing.'),
        new_line: enumOf(['cr', 'lf', 'crlf'], 'The line break.'),
        quote: str('The quote character.'),
        sample_size: int('Rows read to detect the settings.'),
        skip: int('Lines to skip at the top of each file.', { minimum: 0 }),
        timestampformat: str('The format of timestamps (strptime).'),
      },
      { description: 'CSV files (DuckDB read_csv options).' },
    ),
    duckdb_json_format: closedObject(
      {
        auto_detect: bool('Detect key names and value types (default true).'),
        ...compressionOptions(),
        convert_strings_to_integers: bool('Read texts holding integers as numbers.'),
        dateformat: str('The format of dates (strptime).'),
        filename: bool('Add a column with the file name.'),
        format: enumOf(['auto', 'unstructured', 'newline_delimited', 'array'], 'How records are laid out in the file.'),
        hive_partitioning: bool('Read the folder as hive partitions.'),
        ignore_errors: bool('Skip records that cannot be parsed (newline_delimited only).'),
        maximum_depth: int('Nesting depth of type detection (-1: all).'),
        maximum_object_size: int('The largest JSON object, in bytes.'),
        records: enumOf(['auto', 'true', 'false'], 'Whether the values are records (objects) whose keys are columns.'),
        sample_size: int('Records read to detect the types.'),
        timestampformat: str('The format of timestamps (strptime).'),
      },
      { description: 'JSON files (DuckDB read_json options).' },
    ),
    duckdb_parquet_format: closedObject(
      {
        binary_as_string: bool('Read binary columns as text (legacy writers; default true).'),
        filename: bool('Add a column with the file name.'),
        file_row_number: bool('Add the file_row_number column.'),
        hive_partitioning: bool('Read the folder as hive partitions.'),
        union_by_name: bool('Unify the columns of files with different schemas by name.'),
        ...compressionOptions(),
      },
      { description: 'Parquet files (DuckDB read_parquet options).' },
    ),
    file_format: closedObject(
      {
        ...formatBlocks(),
        file_paths: arrayOf(str(), 'The files (or glob patterns) the table reads; absolute, or relative to the schema\'s folder.'),
      },
      { description: 'The files of a table on a DuckDB connection and how to read them (settings given here replace the connection\'s).' },
    ),
  };
}
