import type { FastifyInstance } from 'fastify';
import { DqError } from '../../model/index.js';

/**
 * The groups of DQOps's API that have no counterpart in dqctl answer 501 with the error body and a reason, so a
 * program written against DQOps learns at once what is missing instead of a bare "route not found". dqctl keeps
 * its configuration in git and its users in tokens; it has no dashboards, data domains, cloud synchronization,
 * log shipping, rule mining or shared credentials.
 */
const NOT_SERVED: Array<{ prefixes: string[]; reason: string }> = [
  { prefixes: ['/users', '/mypassword'], reason: 'dqctl has no user accounts: callers are named by the tokens file of dqctl serve (--tokens)' },
  { prefixes: ['/dashboards'], reason: 'dqctl has no dashboards' },
  { prefixes: ['/domains'], reason: 'dqctl has no data domains: one server serves one store' },
  { prefixes: ['/datacatalog'], reason: 'dqctl does not synchronize with data catalogs' },
  { prefixes: ['/environment'], reason: 'dqctl has no DQOps Cloud environment, API keys or user profile' },
  { prefixes: ['/credential', '/credentials'], reason: 'dqctl keeps no shared credentials: connections use ${ENV} and ${credential://file} references' },
  { prefixes: ['/jobs/synchronize'], reason: 'dqctl does not synchronize with DQOps Cloud: its configuration comes from git' },
  { prefixes: ['/search'], reason: 'dqctl has no search; list tables and columns with the tables and columns operations' },
  { prefixes: ['/logs'], reason: 'dqctl does not take log entries from clients' },
];

/** Rule mining lives under the paths of tables. */
const NESTED: Array<{ paths: string[]; reason: string }> = [
  {
    paths: ['profiling', 'monitoring/:timeScale', 'partitioned/:timeScale'].flatMap((container) =>
      ['propose', 'applyproposal'].map((action) => `/connections/:connectionName/schemas/:schemaName/tables/:tableName/${container}/${action}`),
    ),
    reason: 'dqctl does not propose checks from profiles (rule mining)',
  },
];

export async function notServedRoutes(api: FastifyInstance): Promise<void> {
  const answer = (reason: string) => async () => {
    throw new DqError('NOT_IMPLEMENTED', `not served by dqctl: ${reason}`);
  };
  for (const { prefixes, reason } of NOT_SERVED) {
    for (const prefix of prefixes) {
      api.all(prefix, { schema: { hide: true } }, answer(reason));
      api.all(`${prefix}/*`, { schema: { hide: true } }, answer(reason));
    }
  }
  for (const { paths, reason } of NESTED) for (const path of paths) api.all(path, { schema: { hide: true } }, answer(reason));
}
