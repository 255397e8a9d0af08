import type { IndexedObject, ObjectIndex } from './objectIndex.js';

/**
 * The objects a search of GET /api/objects matches: every word of it (ignoring case) in the object's name or
 * file, in the index's order. A person types a search one character at a time, and an object that matches a text
 * matches every beginning of it too, so the matches of the longest recent search the new text starts with are
 * filtered instead of the whole index: a keystroke costs what the one before it matched, not the store's size.
 * The recent searches live with the index they were made on (a write makes a new index, which starts without).
 */
const RECENT_SEARCHES = 32;
/** Matches kept only while they narrow the index to a quarter or less (a wide match saves no scan, and costs memory). */
const KEPT_SHARE = 0.25;

const recentByIndex = new WeakMap<ObjectIndex, Map<string, readonly IndexedObject[]>>();

export function searchObjects(index: ObjectIndex, search: string): readonly IndexedObject[] {
  const text = search.toLowerCase();
  const words = text.split(/\s+/).filter(Boolean);
  if (words.length === 0) return index.objects;
  let recent = recentByIndex.get(index);
  if (!recent) recentByIndex.set(index, (recent = new Map()));
  const known = recent.get(text);
  if (known) return known;
  let candidates: readonly IndexedObject[] = index.objects;
  for (const [earlier, matches] of recent) if (text.startsWith(earlier) && matches.length < candidates.length) candidates = matches;
  const matches = candidates.filter((o) => words.every((word) => o.text.includes(word)));
  if (matches.length <= index.objects.length * KEPT_SHARE) {
    recent.set(text, matches);
    if (recent.size > RECENT_SEARCHES) recent.delete(recent.keys().next().value!);
  }
  return matches;
}
