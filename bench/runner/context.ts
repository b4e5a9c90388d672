/** What every benchmark gets from the harness. */
import type { BenchOptions } from './options.ts';
import type { FigureRow } from './table.ts';

export interface BenchContext {
  options: BenchOptions;
  /** ADDON_KIT_SESSION_SECRET and ADDON_KIT_ENCRYPTION_KEYS for the host processes of this run. */
  secrets: Record<string, string>;
}

/** One benchmark file's entry: measures its figure and returns its rows of the table. */
export type Benchmark = (context: BenchContext) => Promise<FigureRow[]>;

/** `PGlite` / `PostgreSQL`, for figure names. */
export function databaseName(options: BenchOptions): string {
  return options.database === 'postgres' ? 'PostgreSQL' : 'PGlite';
}
