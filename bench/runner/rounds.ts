/** Interleaved rounds and their statistics: the ratio of each round, then the median over rounds with its spread. */

/** The median (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Smallest and largest value. */
export function spread(values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

/** Writes one progress line to stderr (the table goes to stdout). */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Runs `rounds` rounds of every step; odd rounds run the steps in reverse order, so drift on a shared
 * machine (another process starting, the CPU warming) falls on A and B alike. Returns results[step][round].
 */
export async function interleave<T>(
  label: string,
  rounds: number,
  steps: readonly (() => Promise<T>)[],
  describe: (results: readonly T[]) => string,
): Promise<T[][]> {
  const results: T[][] = steps.map(() => []);
  for (let round = 0; round < rounds; round++) {
    const order = steps.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    const thisRound: T[] = [];
    for (const i of order) thisRound[i] = await steps[i]!();
    thisRound.forEach((value, i) => results[i]!.push(value));
    progress(`${label} round ${round + 1}/${rounds}: ${describe(thisRound)}`);
  }
  return results;
}

/** Per-round ratios a[i] / b[i]. */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
  return a.map((value, i) => value / b[i]!);
}
