import { loadRepositoryFindingsCached } from './repositoryParseCache.js';
import type { Diagnostic, ProgressReporter } from '../model/index.js';

/**
 * `dqctl validate`: every finding of a repository folder at once (the schema of each file, then the checks
 * that span files), with the texts of the files that have findings, for snippets. Nothing is refused here:
 * the findings are the answer.
 */
export interface RepositoryValidation {
  diagnostics: Diagnostic[];
  /** File texts of the files that have diagnostics. */
  texts: Map<string, string>;
  /** Objects of the files without errors. */
  objectCount: number;
}

export async function validateRepository(folder: string, options: { progress?: ProgressReporter; environment?: string | null } = {}): Promise<RepositoryValidation> {
  return loadRepositoryFindingsCached(folder, options);
}
