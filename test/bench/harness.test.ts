/**
 * The benchmark harness (`npm run bench`): its options, statistics and table, and one quick run end to end.
 * Figures are never asserted.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BenchUsageError, FIGURES, parseBenchOptions } from '../../bench/runner/options.ts';
import { interleave, median, spread } from '../../bench/runner/rounds.ts';
import { TSX_EXEC_ARGV } from '../../bench/runner/processes.ts';
import { compareRow, renderTable, TABLE_COLUMNS } from '../../bench/runner/table.ts';

const RUN = fileURLToPath(new URL('../../bench/run.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX_EXEC_ARGV, RUN, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The cells of a Markdown table line. */
const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());

describe('parseBenchOptions()', () => {
  it('runs every figure with 7 rounds of 5 s on 10 connections on PGlite when given no argument [defaults]', () => {
    expect(parseBenchOptions([], {})).toEqual({
      only: [...FIGURES],
      rounds: 7,
      seconds: 5,
      warmupSeconds: 2,
      connections: 10,
      database: 'pglite',
      databaseUrl: undefined,
      listPeople: 10_000,
      handshakes: 5,
      quick: false,
    });
  });

  it('selects figures in the table order, case-insensitively, and takes rounds, length and connections [--only]', () => {
    const options = parseBenchOptions(
      ['--only', 'p3,P1', '--rounds', '3', '--seconds', '2.5', '--connections', '4'],
      {},
    );
    expect(options).toMatchObject({ only: ['P1', 'P3'], rounds: 3, seconds: 2.5, connections: 4 });
  });

  it('uses PostgreSQL when DATABASE_URL is set or the flag asks for it, PGlite when told so [--database]', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/test';
    expect(parseBenchOptions([], { DATABASE_URL: url })).toMatchObject({ database: 'postgres', databaseUrl: url });
    expect(parseBenchOptions(['--database', 'pglite'], { DATABASE_URL: url })).toMatchObject({
      database: 'pglite',
      databaseUrl: undefined,
    });
    expect(parseBenchOptions(['--database-url', url], {})).toMatchObject({ database: 'postgres', databaseUrl: url });
  });

  it('shortens everything for a smoke test [--quick]', () => {
    expect(parseBenchOptions(['--quick'], {})).toMatchObject({
      rounds: 1,
      seconds: 1,
      warmupSeconds: 0.5,
      listPeople: 1_000,
      handshakes: 1,
      quick: true,
    });
  });

  it('refuses an unknown figure, a non-positive number, PostgreSQL without a URL and an unknown flag [usage]', () => {
    expect(() => parseBenchOptions(['--only', 'P99'], {})).toThrow(
      new BenchUsageError('--only takes a comma list of P1, P2, P3, P4, P5, P6, P7, P8, P9, P10; got "P99"'),
    );
    expect(() => parseBenchOptions(['--rounds', '0'], {})).toThrow(
      new BenchUsageError('--rounds must be a positive number, got "0"'),
    );
    expect(() => parseBenchOptions(['--database', 'postgres'], {})).toThrow(
      new BenchUsageError('--database postgres needs DATABASE_URL or --database-url'),
    );
    expect(() => parseBenchOptions(['--runs', '3'], {})).toThrow(BenchUsageError);
  });
});

describe('median() and spread()', () => {
  it('takes the middle value, or the mean of the middle two [odd, even]', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(spread([4, 1, 3, 2])).toEqual([1, 4]);
  });
});

describe('interleave()', () => {
  it('runs the steps in order on even rounds and reversed on odd rounds, collecting results per step', async () => {
    const calls: string[] = [];
    const step = (name: string) => () => {
      calls.push(name);
      return Promise.resolve(`${name}${calls.length}`);
    };
    const results = await interleave('test', 3, [step('a'), step('b')], () => '');
    expect(calls).toEqual(['a', 'b', 'b', 'a', 'a', 'b']);
    expect(results).toEqual([
      ['a1', 'a4', 'a5'],
      ['b2', 'b3', 'b6'],
    ]);
  });
});

describe('compareRow()', () => {
  it('gives the median of the per-round ratios with their range, and judges the goal on it', () => {
    const row = compareRow({
      figure: 'X',
      a: [10, 30, 20],
      b: [100, 100, 50],
      format: (v) => `${v}`,
      goal: { on: 'ratio', op: '>=', value: 0.25, text: '≥ 0.25' },
    });
    expect(row).toEqual({ figure: 'X', a: '20', b: '100', ratio: '0.30 (0.10–0.40)', goal: '≥ 0.25', met: true });
  });

  it('judges a goal on A itself [on: a]', () => {
    const row = compareRow({
      figure: 'Y',
      a: [16_000],
      b: [2_000],
      format: (v) => `${v} ms`,
      goal: { on: 'a', op: '<=', value: 15_000, text: '≤ 15 s' },
    });
    expect(row).toMatchObject({ ratio: '8.00', met: false });
  });
});

describe('renderTable()', () => {
  it('prints the header, a separator and one line per row with six cells', () => {
    const lines = renderTable([
      { figure: 'P5 x', a: '1 kB', b: '2 kB', ratio: '0.50', goal: '≤ 2 kB', met: true },
      { figure: 'P1 y', a: 'failed: z', b: '—', ratio: '—', goal: '≥ 0.8', met: undefined },
    ]).split('\n');
    expect(lines.map(cells)).toEqual([
      [...TABLE_COLUMNS],
      expect.any(Array),
      ['P5 x', '1 kB', '2 kB', '0.50', '≤ 2 kB', 'yes'],
      ['P1 y', 'failed: z', '—', '—', '≥ 0.8', '—'],
    ]);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });
});

describe('npm run bench', () => {
  it('prints one table on stdout and its progress on stderr [--quick --only P5]', { timeout: 120_000 }, async () => {
    const { code, stdout, stderr } = await runBench(['--quick', '--only', 'P5']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.map(cells).map((c) => c.length)).toEqual([6, 6, 6, 6]);
    expect(cells(lines[0]!)).toEqual([...TABLE_COLUMNS]);
    expect(lines.slice(2).map((l) => cells(l)[0]!.slice(0, 2))).toEqual(['P5', 'P5']);
    expect(lines.slice(2).map((l) => ['yes', 'no'].includes(cells(l)[5]!))).toEqual([true, true]);
    expect(stderr).toMatch(/^bench: P5 on pglite; 1 round\(s\) of 1 s, 10 connections; \d+ cores/m);
    expect(stderr).toMatch(/^P5 done in \d+ s$/m);
  });

  it('prints one line and exits with 2 for a bad argument [usage]', async () => {
    const { code, stdout, stderr } = await runBench(['--only', 'P99']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(
      'bench: --only takes a comma list of P1, P2, P3, P4, P5, P6, P7, P8, P9, P10; got "P99"',
    );
  });
});
