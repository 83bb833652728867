// The nearest known name to a mistyped one, for one-line errors that suggest what was meant:
// flags, commands, config keys, the methods a --policy names.

/** Levenshtein distance (small strings: flag and command names). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, substitution));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name nearest to `input`, if it is near enough to be what was meant. */
export function nearest(input: string, known: readonly string[]): string | undefined {
  // A name cut short (`--block` for `--block-time`) is what was meant when only one fits.
  const prefixed = known.filter((k) => input.length >= 3 && k.startsWith(input));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = editDistance(input, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  // A third of the name may be wrong (typos, swapped letters).
  return bestDistance <= Math.max(2, Math.floor(input.length / 3)) ? best : undefined;
}

/** ` (did you mean X?)` or nothing. */
export function didYouMean(input: string, known: readonly string[], prefix = ""): string {
  const n = nearest(input, known);
  return n === undefined ? "" : ` (did you mean ${prefix}${n}?)`;
}
