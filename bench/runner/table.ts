/** The one table `npm run bench` prints: figure, A, B, ratio (median over rounds, min–max), goal, met. */
import { median, ratios, spread } from './rounds.ts';

/** One line of the table. */
export interface FigureRow {
  figure: string;
  a: string;
  b: string;
  /** Median ratio with its spread, or a dash for figures that are not A/B. */
  ratio: string;
  goal: string;
  /** undefined: the figure could not be measured in this run. */
  met: boolean | undefined;
}

/** A goal on the ratio (A ÷ B) or on A itself. */
export interface Goal {
  on: 'ratio' | 'a';
  op: '>=' | '<=';
  value: number;
  /** How the goal is printed, e.g. `≥ 0.8` or `≤ 15 s`. */
  text: string;
}

/** The header of the table (also what the smoke test checks). */
export const TABLE_COLUMNS = ['figure', 'A', 'B', 'ratio (median, min–max)', 'goal', 'met'] as const;

/** Formats a ratio with three significant digits. */
export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100
    ? value.toFixed(0)
    : value >= 10
      ? value.toFixed(1)
      : value >= 1
        ? value.toFixed(2)
        : value.toPrecision(2);
}

function meets(goal: Goal, value: number): boolean {
  return goal.op === '>=' ? value >= goal.value : value <= goal.value;
}

/** A row from per-round samples of A and B: the ratio of each round, its median and spread. */
export function compareRow(input: {
  figure: string;
  a: readonly number[];
  b: readonly number[];
  format: (median: number) => string;
  formatB?: (median: number) => string;
  goal: Goal;
}): FigureRow {
  const perRound = ratios(input.a, input.b);
  const ratio = median(perRound);
  const [low, high] = spread(perRound);
  const a = median(input.a);
  return {
    figure: input.figure,
    a: input.format(a),
    b: (input.formatB ?? input.format)(median(input.b)),
    ratio:
      perRound.length > 1 ? `${formatRatio(ratio)} (${formatRatio(low)}–${formatRatio(high)})` : formatRatio(ratio),
    goal: input.goal.text,
    met: meets(input.goal, input.goal.on === 'ratio' ? ratio : a),
  };
}

/** A ratio printed to read a goal's figure by (a floor, another baseline), without a goal of its own. */
export function printedRow(input: {
  figure: string;
  a: readonly number[];
  b: readonly number[];
  format: (median: number) => string;
}): FigureRow {
  return { ...compareRow({ ...input, goal: { on: 'ratio', op: '>=', value: 0, text: '(printed)' } }), met: undefined };
}

/** A row for a figure that is a value against a budget (no rounds of a baseline). */
export function valueRow(input: {
  figure: string;
  a: string;
  b: string;
  ratio?: string;
  value: number;
  goal: Goal;
}): FigureRow {
  return {
    figure: input.figure,
    a: input.a,
    b: input.b,
    ratio: input.ratio ?? '—',
    goal: input.goal.text,
    met: meets(input.goal, input.value),
  };
}

/** A row for a figure that failed to run: the reason stands in A. */
export function failedRow(figure: string, reason: string, goal: string): FigureRow {
  return { figure, a: `failed: ${reason}`, b: '—', ratio: '—', goal, met: undefined };
}

/** Renders the rows as a Markdown table (readable in a terminal, pasted verbatim into bench/README.md). */
export function renderTable(rows: readonly FigureRow[]): string {
  const cells = rows.map((r) => [
    r.figure,
    r.a,
    r.b,
    r.ratio,
    r.goal,
    r.met === undefined ? '—' : r.met ? 'yes' : 'no',
  ]);
  const widths = TABLE_COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: readonly string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(TABLE_COLUMNS), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
