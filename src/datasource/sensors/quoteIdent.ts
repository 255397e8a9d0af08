/**
 * SQL identifiers for monitored databases. Every schema, table and column name that reaches sensor SQL goes
 * through quoteIdent, whatever it looks like: quoting is never skipped for "simple" names, so upper case,
 * spaces, dots, quotes and unicode mean exactly the object of that name. PostgreSQL cannot store a NUL
 * character in a name, so a name holding one is refused instead of being truncated silently.
 */
import { DqError } from '../../model/index.js';

export function quoteIdent(name: string): string {
  if (typeof name !== 'string' || name === '') {
    throw new DqError('INVALID_ARGUMENT', 'an SQL identifier (schema, table or column name) is empty');
  }
  if (name.includes('\u0000')) {
    throw new DqError('INVALID_ARGUMENT', `the name ${JSON.stringify(name)} holds a NUL character, which PostgreSQL names cannot hold`);
  }
  return `"${name.replaceAll('"', '""')}"`;
}

/** `"schema"."table"`. */
export function quoteQualified(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}
