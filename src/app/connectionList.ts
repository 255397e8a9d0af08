import { connectionModel } from './connectionModels.js';
import { matchesSearchPattern } from './searchPattern.js';
import { pageOf, type Paging } from './listPaging.js';
import type { LiveObjects } from './services.js';
import type { Capabilities, JsonObject, LiveObject } from '../model/index.js';

/**
 * GET /api/connections: every connection sorted by name, as DQOps lists them. DQOps's own route takes no filter
 * or paging; dqctl also takes `filter` (a connection name pattern, DQOps's rules of searchPattern.ts) and
 * `page`/`limit` (listPaging.ts). A client that passes none of them gets DQOps's answer.
 */
export async function listConnections(objects: LiveObjects, request: { filter?: string; paging?: Paging }, capabilitiesOf: (live: LiveObject) => Capabilities): Promise<JsonObject[]> {
  const matching = (await objects.list('source'))
    .filter((live) => !request.filter || matchesSearchPattern(live.name, request.filter))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return pageOf(matching, request.paging).map((live) => connectionModel(live, capabilitiesOf(live)));
}
