import { DqError } from '../../model/index.js';

/**
 * The query of DQOps's results endpoints as it arrives: each parameter in its snake_case or camelCase spelling
 * (DQOps's clients send either). The use cases read it through queryParam, so the rule lives in one place.
 */
export type ResultsQuery = Record<string, unknown>;

/** A query parameter in either spelling; an empty value counts as absent; two different values are a 400. */
export function queryParam<T>(query: ResultsQuery, snake: string, camel: string | null = null): T | undefined {
  const values = [query[snake], camel ? query[camel] : undefined].filter((v) => v !== undefined && v !== '');
  if (values.length === 2 && values[0] !== values[1]) {
    throw new DqError('INVALID_ARGUMENT', `the query parameters ${snake} and ${camel} disagree; send one of them`);
  }
  return values[0] as T | undefined;
}

/** `YYYY-MM` or `YYYY-MM-DD` → the first instant of its month (UTC), or of the month after it (`end`). */
export function monthBound(value: string, what: string, end: boolean): string {
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(value);
  const year = match ? Number(match[1]) : NaN;
  const month = match ? Number(match[2]) : NaN;
  const day = match?.[3] === undefined ? 1 : Number(match[3]);
  const valid =
    match !== null && month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (!valid) throw new DqError('INVALID_ARGUMENT', `${what} must be a month as YYYY-MM or a date as YYYY-MM-DD, not ${JSON.stringify(value)}`);
  return new Date(Date.UTC(year, month - 1 + (end ? 1 : 0), 1)).toISOString();
}

export function monthRange(query: ResultsQuery): { from?: string; to?: string } {
  const start = queryParam<string>(query, 'month_start', 'monthStart');
  const end = queryParam<string>(query, 'month_end', 'monthEnd');
  const from = start === undefined ? undefined : monthBound(start, 'month_start', false);
  const to = end === undefined ? undefined : monthBound(end, 'month_end', true);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new DqError('INVALID_ARGUMENT', `month_start ${start} is after month_end ${end}`);
  }
  return { from, to };
}
