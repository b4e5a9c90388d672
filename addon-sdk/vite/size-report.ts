/** Gzip size of a built bundle against its budget: one measure for add-ons and for the SDK's own bundles. */
import { gzipSync } from 'node:zlib';

/**
 * Default gzip budget of an add-on bundle, SDK included (the worker SDK with its UI runtime is ≈ 11 kB of it):
 * the host page loads the whole script before the add-on can answer. Also the worker SDK bundle's own budget.
 */
export const ADDON_BUDGET_BYTES = 25 * 1024;

/** One bundle's measured size. */
export interface SizeReport {
  /** The bundle's file (a name or a path, as the caller gave it). */
  file: string;
  bytes: number;
  /** Gzip level 9, the size a browser downloads from a compressing server. */
  gzip: number;
  /** Gzip budget in bytes, when there is one. */
  budget?: number;
  /** Within the budget (always true without one). */
  ok: boolean;
}

/** Measures `content` (the bundle's bytes) against `budget`. */
export function measureSize(file: string, content: string | Uint8Array, budget?: number): SizeReport {
  const bytes = typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
  const gzip = gzipSync(content, { level: 9 }).byteLength;
  return { file, bytes, gzip, ...(budget === undefined ? {} : { budget }), ok: budget === undefined || gzip <= budget };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;

/**
 * One line: `addon.js  32.5 kB  gzip 12.0 kB / budget 25.0 kB ok` (the file name padded to `width`).
 *
 * @example
 * ```ts
 * import { buildAddon, formatSizeReport } from '@addon-kit/sdk/vite';
 *
 * console.log(formatSizeReport(await buildAddon({ entry: 'src/index.tsx' })));
 * ```
 */
export function formatSizeReport(report: SizeReport, width = 0): string {
  const budget = report.budget === undefined ? '' : ` / budget ${kb(report.budget)} ${report.ok ? 'ok' : 'OVER'}`;
  return `${report.file.padEnd(width)} ${kb(report.bytes).padStart(9)}  gzip ${kb(report.gzip).padStart(8)}${budget}`;
}
