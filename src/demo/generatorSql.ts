/**
 * The few expressions of the demo data's SQL that PostgreSQL and DuckDB write differently. The statements of
 * demoData.ts are otherwise the same text on both, so the demo databases and the demo files hold the same rows
 * from the same seed. PostgreSQL's forms are exactly what the generator has always run.
 */
export interface GeneratorSql {
  /** An interval of `expr` seconds (a double). */
  seconds(expr: string): string;
  /** An interval of `expr` days (an integer). */
  days(expr: string): string;
  /** A FROM item: the integers of `generate_series(args)` as the column `name`. */
  series(args: string, name: string): string;
  /** A UUID from 32 hexadecimal digits (an md5). */
  uuid(hexDigits: string): string;
  /** An IP address from its text (DuckDB without the inet extension keeps the text). */
  inet(text: string): string;
  /** An integer in lower-case hexadecimal digits. */
  hex(expr: string): string;
  /** The SHA-256 of a text's UTF-8 bytes, in lower-case hexadecimal digits. */
  sha256Hex(text: string): string;
}

export const POSTGRES_GENERATOR: GeneratorSql = {
  seconds: (expr) => `make_interval(secs => ${expr})`,
  days: (expr) => `make_interval(days => ${expr})`,
  series: (args, name) => `generate_series(${args}) as ${name}`,
  uuid: (hexDigits) => `${hexDigits}::uuid`,
  inet: (text) => `${text}::inet`,
  hex: (expr) => `to_hex(${expr})`,
  sha256Hex: (text) => `encode(sha256(convert_to(${text}, 'UTF8')), 'hex')`,
};

export const DUCKDB_GENERATOR: GeneratorSql = {
  // microseconds, as PostgreSQL's make_interval keeps them
  seconds: (expr) => `to_microseconds(cast(round((${expr}) * 1000000) as bigint))`,
  days: (expr) => `to_days(cast(${expr} as integer))`,
  // DuckDB names a bare alias's column after the function: the column is named explicitly
  series: (args, name) => `generate_series(${args}) as ${name}_series(${name})`,
  uuid: (hexDigits) => `cast(${hexDigits} as uuid)`,
  inet: (text) => text,
  hex: (expr) => `lower(hex(${expr}))`,
  sha256Hex: (text) => `sha256(${text})`,
};
