import { DqError } from '../model/index.js';

/**
 * An incident named on the command line by its id or a unique prefix of it, as git names a commit: the whole
 * id always wins; a prefix that several incidents share is refused (AMBIGUOUS_ID) listing them, never guessed.
 */
export interface IncidentCandidate {
  id: string;
  connection: string;
  schema: string;
  table: string;
  status: string;
}

/** How many of the matches an ambiguous prefix lists. */
const LISTED = 10;

export function resolveIncidentId<T extends IncidentCandidate>(given: string, candidates: readonly T[], where = ''): T {
  const wanted = given.trim().toLowerCase();
  if (wanted === '') throw new DqError('INVALID_ARGUMENT', 'an incident id (or the start of one) is required');
  const exact = candidates.find((c) => c.id.toLowerCase() === wanted);
  if (exact) return exact;
  const matches = candidates.filter((c) => c.id.toLowerCase().startsWith(wanted));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new DqError('NOT_FOUND', `incident ${JSON.stringify(given)} not found${where}`);
  const listed = matches.slice(0, LISTED).map((c) => `  ${c.id}  ${c.connection}/${c.schema}.${c.table}  ${c.status}`);
  if (matches.length > LISTED) listed.push(`  … and ${matches.length - LISTED} more`);
  throw new DqError('AMBIGUOUS_ID', `incident id ${JSON.stringify(given)} is ambiguous: ${matches.length} incidents start with it; give more characters:\n${listed.join('\n')}`, {
    matches: matches.map((c) => c.id),
  });
}
