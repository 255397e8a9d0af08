import { errorCount, type DesiredState } from '../manifest/desiredState.js';
import { GitSource } from '../manifest/gitSource.js';
import { loadRepository } from '../manifest/loadRepository.js';
import { ParseCache } from '../manifest/parseCache.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import { ValidationFailed } from './validationFailed.js';

/** One side of a pull request: where its files are read from (a git ref, no checkout) and the ref as given. */
export interface RevisionSide {
  source: RepositorySource;
  ref: string;
}

/** The files of one git ref of the repository in `repository` (optionally below `path`), read without a checkout. */
export function gitRevisionSource(repository: string, ref: string, path?: string): RepositorySource {
  return new GitSource({ repository, ref, path });
}

/** Both sides read from refs of the git repository in `repository` (optionally below `path`), no checkout. */
export function gitRevisionSides(repository: string, refs: { base: string; head: string; path?: string }): { base: RevisionSide; head: RevisionSide } {
  const side = (ref: string): RevisionSide => ({ source: gitRevisionSource(repository, ref, refs.path), ref });
  return { base: side(refs.base), head: side(refs.head) };
}

/**
 * The two revisions a pull request compares (`dqctl diff`, `dqctl preview`), loaded with one parse cache (and
 * one `--env`) so the head re-parses only the files whose blob differs from the base's. An invalid head is refused (its
 * diagnostics are the answer, `nothing` says what was not done); an invalid base is used by its valid files,
 * with a warning whose end (`baseConsequence`) says what that means for the command.
 */
export async function loadRevisionPair(
  sides: { base: RevisionSide; head: RevisionSide; environment?: string | null },
  wording: { nothing: string; baseConsequence: string },
): Promise<{ base: DesiredState; head: DesiredState; warnings: string[] }> {
  const cache = new ParseCache();
  // both with the same environment (`--env`): the change is seen in that environment's values
  const environment = sides.environment ?? null;
  const base = await loadRepository(sides.base.source, { cache, environment });
  const head = await loadRepository(sides.head.source, { cache, environment });
  const headErrors = errorCount(head);
  if (headErrors > 0) {
    const error = new ValidationFailed(head);
    error.message = `the head ${sides.head.ref} has ${headErrors} validation error${headErrors === 1 ? '' : 's'}; ${wording.nothing}`;
    throw error;
  }
  const warnings: string[] = [];
  const baseErrors = errorCount(base);
  if (baseErrors > 0) {
    warnings.push(`the base ${sides.base.ref} has ${baseErrors} validation error${baseErrors === 1 ? '' : 's'}; ${wording.baseConsequence}`);
  }
  return { base, head, warnings };
}
