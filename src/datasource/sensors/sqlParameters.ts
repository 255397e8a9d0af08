/**
 * Bound parameters of one sensor query. Every value a sensor uses (thresholds, regexes, lists, the time the
 * run started, even the regexes dqctl itself ships) is bound as `$n` with an explicit type cast and never
 * written into the SQL text, so a value holding quotes or semicolons is data, not SQL. Equal values of the
 * same type share one placeholder, which keeps merged queries short and readable. The placeholder and the type's
 * name are the dialect's (`$n::numeric` on PostgreSQL, `$n::DOUBLE` on DuckDB).
 */
import type { SqlDialect, SqlParameterType } from '../dialects/dialect.js';
import { POSTGRESQL } from '../dialects/postgresql.js';

export type { SqlParameterType } from '../dialects/dialect.js';

export class SqlParameters {
  readonly values: unknown[] = [];
  private readonly byKey = new Map<string, number>();

  constructor(private readonly dialect: SqlDialect = POSTGRESQL) {}

  /** The dialect's placeholder (`$n::type`) for the value; the same placeholder for a value bound before with the same type. */
  bind(value: unknown, type: SqlParameterType): string {
    const key = `${type}\u0000${value instanceof Date ? value.toISOString() : JSON.stringify(value)}`;
    let index = this.byKey.get(key);
    if (index === undefined) {
      this.values.push(value instanceof Date ? (this.dialect.instantValue?.(value) ?? value.toISOString()) : value);
      index = this.values.length;
      this.byKey.set(key, index);
    }
    return this.dialect.placeholder(index, type, this.values[index - 1]);
  }
}
