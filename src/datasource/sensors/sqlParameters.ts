/**
 * Bound parameters of one sensor query. Every value a sensor uses (thresholds, regexes, lists, the time the
 * run started, even the regexes dqctl itself ships) is bound as `$n` with an explicit type cast and never
 * written into the SQL text, so a value holding quotes or semicolons is data, not SQL. Equal values of the
 * same type share one placeholder, which keeps merged queries short and readable.
 */
export type SqlParameterType =
  | 'text'
  | 'text[]'
  | 'numeric'
  | 'numeric[]'
  | 'double precision'
  | 'integer'
  | 'bigint'
  | 'boolean'
  | 'date'
  | 'timestamptz';

export class SqlParameters {
  readonly values: unknown[] = [];
  private readonly byKey = new Map<string, number>();

  /** `$n::type` for the value; the same placeholder for a value bound before with the same type. */
  bind(value: unknown, type: SqlParameterType): string {
    const key = `${type}\u0000${value instanceof Date ? value.toISOString() : JSON.stringify(value)}`;
    let index = this.byKey.get(key);
    if (index === undefined) {
      this.values.push(value instanceof Date ? value.toISOString() : value);
      index = this.values.length;
      this.byKey.set(key, index);
    }
    return `$${index}::${type}`;
  }
}
