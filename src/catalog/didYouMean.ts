/**
 * Suggests what a misspelled name was meant to be. Used for unknown keys, check names, categories and rule
 * parameters. Returns the closest 1-3 candidates, or none when nothing is close enough to be a plausible typo:
 * a wrong suggestion is worse than no suggestion.
 */

export interface DidYouMeanOptions {
  /** At most this many suggestions (default 3). */
  limit?: number;
}

/** Closest candidates to `name`, best first; [] when none is close. Case-insensitive; `name` itself is never suggested. */
export function didYouMean(name: string, candidates: Iterable<string>, options: DidYouMeanOptions = {}): string[] {
  const limit = options.limit ?? 3;
  const wanted = name.toLowerCase();
  const scored: { candidate: string; score: number }[] = [];
  const seen = new Set<string>();
  for (const candidate of candidates) {
    if (candidate === name || seen.has(candidate)) continue;
    seen.add(candidate);
    const score = closeness(wanted, candidate.toLowerCase());
    if (score !== undefined) scored.push({ candidate, score });
  }
  if (scored.length === 0) return [];
  scored.sort((a, b) => a.score - b.score || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0));
  const best = scored[0].score;
  return scored.filter((s) => s.score === best).slice(0, limit).map((s) => s.candidate);
}

/** A distance-like score (lower is closer), or undefined when the two are too far apart to be a typo. */
function closeness(wanted: string, candidate: string): number | undefined {
  if (wanted === candidate) return 0;
  const distance = editDistance(wanted, candidate);
  const allowed = Math.max(1, Math.floor(Math.max(wanted.length, candidate.length) / 4));
  // Replacing every letter of a short name is no typo.
  if (distance <= allowed && distance < Math.min(wanted.length, candidate.length)) return distance;
  // A name written without its prefix or suffix (`row_count` for `daily_row_count`) is close too, but ranks
  // after real typos.
  if (wanted.length >= 4 && (candidate.endsWith(`_${wanted}`) || candidate.startsWith(`${wanted}_`))) return allowed + 1;
  return undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions cost 1. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2] + 1);
      current[j] = value;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}
