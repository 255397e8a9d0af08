import { DqError } from '../model/index.js';

/**
 * Paging of the API's lists as DQOps pages its table lists: `page` (the first is 1) and `limit` (rows per page,
 * 100 when only `page` is given). Paging is off when neither is given, so a client that passes nothing gets the
 * whole list, as it always did. A page past the end is empty. A page or limit below 1 is refused (400; DQOps
 * answers 406 with an empty body there).
 */
export interface PagingRequest {
  page?: number;
  limit?: number;
}

export interface Paging {
  page: number;
  limit: number;
}

export const DEFAULT_PAGE_LIMIT = 100;

/** The paging a request asks for, or undefined when it asks for the whole list. */
export function pagingOf(request: PagingRequest): Paging | undefined {
  if (request.page === undefined && request.limit === undefined) return undefined;
  for (const [name, value] of [['page', request.page], ['limit', request.limit]] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new DqError('INVALID_ARGUMENT', `${name} must be a whole number of at least 1, not ${JSON.stringify(value)}`);
    }
  }
  return { page: request.page ?? 1, limit: request.limit ?? DEFAULT_PAGE_LIMIT };
}

/** The rows of one page (all of them without paging). */
export function pageOf<T>(rows: readonly T[], paging: Paging | undefined): T[] {
  if (!paging) return [...rows];
  const start = (paging.page - 1) * paging.limit;
  return rows.slice(start, start + paging.limit);
}

