import type { LiveObjects } from '../inspect/liveObjects.js';
import { isJsonObject, parseTableKey, type JsonObject } from '../model/index.js';

/**
 * DQOps's `find_similar_tables`: the tables (of every connection) whose column names are most like the given
 * table's, by the share of column names both have (Jaccard index of the two name sets, in percent), most similar
 * first; `difference` counts the names only one of them has. Tables without columns are never similar.
 */
export interface SimilarTable {
  connection_name: string;
  schema_name: string;
  table_name: string;
  similarity_pct: number;
  difference: number;
}

export async function similarTables(objects: LiveObjects, tableName: string, limit: number): Promise<SimilarTable[]> {
  const tables = await objects.list('table');
  const columnsOf = (spec: JsonObject) => new Set(isJsonObject(spec.columns) ? Object.keys(spec.columns) : []);
  const target = tables.find((t) => t.name === tableName);
  const mine = target ? columnsOf(target.spec) : new Set<string>();
  if (mine.size === 0) return [];
  const found: SimilarTable[] = [];
  for (const other of tables) {
    if (other.name === tableName) continue;
    const theirs = columnsOf(other.spec);
    if (theirs.size === 0) continue;
    const shared = [...mine].filter((c) => theirs.has(c)).length;
    if (shared === 0) continue;
    const union = mine.size + theirs.size - shared;
    const identity = parseTableKey(other.name);
    if (!identity) continue;
    found.push({
      connection_name: identity.connection,
      schema_name: identity.schema,
      table_name: identity.table,
      similarity_pct: Math.round((shared / union) * 100),
      difference: union - shared,
    });
  }
  found.sort((a, b) => b.similarity_pct - a.similarity_pct || a.difference - b.difference || (a.table_name < b.table_name ? -1 : 1));
  return found.slice(0, limit);
}
