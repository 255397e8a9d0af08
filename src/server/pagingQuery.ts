/**
 * The querystring properties of a paged list (app/listPaging.ts): fastify turns them into numbers and refuses
 * (400) what is not a whole number of at least 1.
 */
export const PAGING_QUERY = {
  page: { type: 'integer', minimum: 1, description: 'page number, the first is 1; with neither page nor limit the whole list is answered' },
  limit: { type: 'integer', minimum: 1, description: 'rows per page (100 when only page is given)' },
} as const;
