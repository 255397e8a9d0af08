/**
 * Numbers for the places policies write checks to (container, category, check name), so that "does this table
 * have that check already" is an array lookup while one table or column is evaluated, instead of a walk of
 * nested objects. Numbered once when the policies are compiled; `reset` starts the next evaluation in O(1)
 * by moving to a new generation. Not re-entrant: one evaluation at a time (evaluations are synchronous).
 */

export interface CheckPlaces {
  /** The number of a place, or -1 when no policy writes there. */
  idOf(slot: number, category: string, checkName: string): number;
  /** Forgets every place taken. */
  reset(): void;
  /** Takes a place; false when it was taken already since the last reset. */
  take(id: number): boolean;
}

/** Numbers places as they are first seen; `places()` then gives the lookup over the numbered places. */
export function numberCheckPlaces(): { number(slot: number, category: string, checkName: string): number; places(): CheckPlaces } {
  const ids = new Map<string, number>();
  return {
    number(slot, category, checkName) {
      const key = placeKey(slot, category, checkName);
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      return id;
    },
    places() {
      const taken = new Int32Array(ids.size);
      let generation = 1;
      return {
        idOf: (slot, category, checkName) => ids.get(placeKey(slot, category, checkName)) ?? -1,
        reset() {
          generation += 1;
          if (generation === 0x7fffffff) {
            taken.fill(0);
            generation = 1;
          }
        },
        take(id) {
          if (taken[id] === generation) return false;
          taken[id] = generation;
          return true;
        },
      };
    },
  };
}

function placeKey(slot: number, category: string, checkName: string): string {
  return `${slot}\u0000${category}\u0000${checkName}`;
}
