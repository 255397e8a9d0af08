import { byCodePoint, columnListModel, columnsOf } from './tableModels.js';
import { matchesSearchPattern } from './searchPattern.js';
import { pageOf, type Paging } from './listPaging.js';
import type { Capabilities, JsonObject, LiveObject, TableIdentity } from '../model/index.js';

/**
 * GET …/tables/{t}/columns: a table's columns sorted by name, disabled ones included (DQOps lists them there).
 * DQOps's own route takes no filter or paging; dqctl also takes `filter` (a column name pattern, DQOps's rules of
 * searchPattern.ts) and `page`/`limit` (listPaging.ts), so a table of thousands of columns can be read in pages.
 * A client that passes none of them gets DQOps's answer.
 */
export function listColumns(live: LiveObject, path: TableIdentity, request: { filter?: string; paging?: Paging }, capabilities: Capabilities): JsonObject[] {
  const matching = Object.entries(columnsOf(live.spec))
    .filter(([name]) => !request.filter || matchesSearchPattern(name, request.filter))
    .sort(([a], [b]) => byCodePoint(a, b));
  return pageOf(matching, request.paging).map(([name, spec]) => columnListModel(path, name, spec, capabilities));
}
