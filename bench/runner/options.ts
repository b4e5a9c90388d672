/** The options of `npm run bench`: which figures, how many rounds of what length, which database. */
import { parseArgs } from 'node:util';

/** The figures of issue 16. */
export const FIGURES = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7', 'P8', 'P9', 'P10'] as const;
export type FigureId = (typeof FIGURES)[number];

/** What one run of the harness measures and how. */
export interface BenchOptions {
  /** Figures to run, in the order of FIGURES. */
  only: FigureId[];
  /** Interleaved A/B rounds per figure. */
  rounds: number;
  /** Seconds of load per round (P1–P3). */
  seconds: number;
  /** Seconds of load before the rounds, per target (not measured). */
  warmupSeconds: number;
  /** Concurrent connections of the load generator. */
  connections: number;
  /** `pglite` (embedded; the default without DATABASE_URL) or `postgres` (DATABASE_URL, --database-url). */
  database: 'pglite' | 'postgres';
  /** The PostgreSQL server; each benchmark makes a throw-away database on it. */
  databaseUrl: string | undefined;
  /** People in the P4 organization. */
  listPeople: number;
  /** Handshakes in Chromium (P6). */
  handshakes: number;
  /** The smoke-test mode: one short round, small data. */
  quick: boolean;
}

/** A mistake on the command line (printed as one line, exit code 2). */
export class BenchUsageError extends Error {}

export const BENCH_USAGE =
  'usage: npm run bench -- [--only P1,P3] [--rounds 7] [--seconds 5] [--connections 10] [--database pglite|postgres] ' +
  '[--database-url postgres://…] [--quick]';

function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new BenchUsageError(`--${name} must be a positive number, got ${JSON.stringify(value)}`);
  return n;
}

/** Parses the arguments; everything has a default, so no argument at all runs every figure. */
export function parseBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        only: { type: 'string' },
        rounds: { type: 'string' },
        seconds: { type: 'string' },
        connections: { type: 'string' },
        database: { type: 'string' },
        'database-url': { type: 'string' },
        quick: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new BenchUsageError((error as Error).message);
  }
  const { values } = parsed;
  const quick = values.quick ?? false;
  const only =
    values.only === undefined
      ? [...FIGURES]
      : values.only
          .split(',')
          .map((f) => f.trim().toUpperCase())
          .filter(Boolean);
  const unknown = only.filter((f) => !(FIGURES as readonly string[]).includes(f));
  if (unknown.length > 0 || only.length === 0)
    throw new BenchUsageError(`--only takes a comma list of ${FIGURES.join(', ')}; got ${JSON.stringify(values.only)}`);
  const databaseUrl = values['database-url'] ?? (env.DATABASE_URL || undefined);
  const database = values.database ?? (databaseUrl ? 'postgres' : 'pglite');
  if (database !== 'pglite' && database !== 'postgres')
    throw new BenchUsageError(`--database is pglite or postgres, got ${JSON.stringify(database)}`);
  if (database === 'postgres' && !databaseUrl)
    throw new BenchUsageError('--database postgres needs DATABASE_URL or --database-url');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new BenchUsageError('--database-url must be a postgres:// URL');
  return {
    only: FIGURES.filter((f) => only.includes(f)),
    rounds: Math.round(positive(values.rounds, 'rounds', quick ? 1 : 7)),
    seconds: positive(values.seconds, 'seconds', quick ? 1 : 5),
    warmupSeconds: quick ? 0.5 : 2,
    connections: Math.round(positive(values.connections, 'connections', 10)),
    database,
    databaseUrl: database === 'postgres' ? databaseUrl : undefined,
    listPeople: quick ? 1_000 : 10_000,
    handshakes: quick ? 1 : 5,
    quick,
  };
}
