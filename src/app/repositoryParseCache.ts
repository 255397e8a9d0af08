import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { loadRepository, loadRepositoryFindings, type LoadOptions, type RepositoryFindings } from '../manifest/loadRepository.js';
import type { DesiredState } from '../manifest/desiredState.js';
import { ParseCache } from '../manifest/parseCache.js';
import { dqctlCacheFolder } from '../model/index.js';
import type { RepositorySource } from '../manifest/repositorySource.js';
import { garbageReleaser } from './releaseGarbage.js';

/**
 * Where `dqctl validate`, `plan` and `apply` keep what they parsed of a repository folder between runs (the
 * persisted parse cache, src/manifest/persistedParseCache.ts): one file per folder and environment under
 * DQCTL_CACHE_DIR, else $XDG_CACHE_HOME/dqctl, else ~/.cache/dqctl. DQCTL_PARSE_CACHE=off turns it off. Only
 * folders: a git revision is read from its blobs, and is loaded without it.
 */
export function parseCacheFile(folder: string, environment: string | null | undefined, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.DQCTL_PARSE_CACHE === 'off') return null;
  const base = dqctlCacheFolder(env);
  const id = createHash('sha256').update(`${resolve(folder)}\n${environment ?? ''}`).digest('hex').slice(0, 32);
  return join(base, `parse-${id}.json`);
}

/**
 * loadRepository through the folder's persisted parse cache. The cache only saves work: a cache that cannot be
 * written (a read-only home) is left as it is, and the load's answer is the same with or without it.
 */
export async function loadRepositoryCached(
  repository: string | RepositorySource,
  options: Omit<LoadOptions, 'cache'> & { source?: RepositorySource } = {},
): Promise<DesiredState> {
  return withParseCache(repository, options, loadRepository);
}

/** loadRepositoryFindings (what `validate` needs) through the folder's persisted parse cache, as loadRepositoryCached. */
export async function loadRepositoryFindingsCached(
  repository: string | RepositorySource,
  options: Omit<LoadOptions, 'cache'> & { source?: RepositorySource } = {},
): Promise<RepositoryFindings> {
  return withParseCache(repository, options, loadRepositoryFindings);
}

async function withParseCache<T>(
  repository: string | RepositorySource,
  options: Omit<LoadOptions, 'cache'> & { source?: RepositorySource },
  load: (source: string | RepositorySource, options: LoadOptions) => Promise<T>,
): Promise<T> {
  // `source`: the folder's files as already read (repositoryInputs.ts); the cache file is still the folder's
  const { source, ...loadOptions } = options;
  const file = typeof repository === 'string' ? parseCacheFile(repository, options.environment) : null;
  if (!file) return load(source ?? repository, loadOptions);
  const cache = await ParseCache.persisted(file);
  // a load that parses many files writes their shards as it goes: the garbage is collected as the heap grows
  const answer = await load(source ?? repository, { ...loadOptions, cache, collectGarbage: garbageReleaser() });
  await cache.save().catch(() => undefined);
  return answer;
}
