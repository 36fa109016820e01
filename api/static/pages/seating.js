// The planner's split of the players present into tables (nj_ledger.seating.table_sizes), for the pages that
// show or propose tables before the server plans them.

/** Tables as even as the count allows, straying least from the preferred size, then more tables; null when the
 * count cannot be seated. split(20, 3, 4, 8) → [4, 4, 4, 4, 4]. */
export function split(count, smallest = 3, preferred = 4, largest = 8) {
  let best = null;
  let bestKey = null;
  for (let tables = 1; tables <= Math.floor(count / smallest); tables += 1) {
    const base = Math.floor(count / tables);
    const extra = count % tables;
    const sizes = [...Array(tables)].map((_, i) => base + (i < extra ? 1 : 0));
    if (sizes[sizes.length - 1] < smallest || sizes[0] > largest) continue;
    const key = [sizes.reduce((sum, size) => sum + Math.abs(size - preferred), 0), -tables];
    if (bestKey === null || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
      best = sizes;
      bestKey = key;
    }
  }
  return best;
}
