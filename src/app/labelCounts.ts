import { isJsonObject, type JsonValue } from '../model/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';

/**
 * The labels in use, counted as DQOps's label lists count them (`get_all_labels_for_connections | tables |
 * columns`): each label with how many connections, tables or columns carry it. `nested_labels_count` counts
 * the labels below a label in DQOps's hierarchy (`a/b` is below `a`); labels are sorted by name.
 */
export interface LabelCount {
  label: string;
  labels_count: number;
  nested_labels_count: number;
}

export type LabelHolder = 'connections' | 'tables' | 'columns';

export interface LabelFilter {
  /** Only labels starting with this text (DQOps's `prefix`). */
  prefix?: string;
  /** Only labels containing this text, case-insensitive (DQOps's `filter`). */
  contains?: string;
}

export async function labelCounts(objects: LiveObjects, holder: LabelHolder, filter: LabelFilter = {}): Promise<LabelCount[]> {
  const counts = new Map<string, number>();
  const count = (labels: JsonValue | undefined) => {
    if (!Array.isArray(labels)) return;
    for (const label of new Set(labels.filter((l): l is string => typeof l === 'string'))) counts.set(label, (counts.get(label) ?? 0) + 1);
  };
  if (holder === 'connections') for (const source of await objects.list('source')) count(source.spec.labels);
  else {
    for (const table of await objects.list('table')) {
      if (holder === 'tables') count(table.spec.labels);
      else if (isJsonObject(table.spec.columns)) for (const column of Object.values(table.spec.columns)) if (isJsonObject(column)) count(column.labels);
    }
  }
  const needle = filter.contains?.toLowerCase();
  const labels = [...counts.keys()]
    .filter((l) => (filter.prefix === undefined || l.startsWith(filter.prefix)) && (needle === undefined || l.toLowerCase().includes(needle)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return labels.map((label) => ({
    label,
    labels_count: counts.get(label)!,
    nested_labels_count: [...counts.keys()].filter((other) => other.startsWith(`${label}/`)).length,
  }));
}
