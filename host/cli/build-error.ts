/**
 * A failed add-on build as a person reads it: for each error, `file:line:column: message` and the lines of source
 * around it with a caret under the column — what `npm run build` shows and `addon dev` prints while it keeps
 * watching. Vite (rolldown) reports each error with its module id and 0-based column.
 */
import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

interface ReportedError {
  message?: string;
  id?: string;
  loc?: { file?: string; line: number; column: number };
}

/** The source lines around `line` (1-based), numbered, with a caret under `column` (0-based). */
export function codeFrame(source: string, line: number, column: number): string[] {
  const lines = source.split(/\r?\n/);
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const frame: string[] = [];
  for (let n = first; n <= last; n++) {
    frame.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1] ?? ''}`);
    if (n === line) frame.push(`  ${' '.repeat(width)} | ${' '.repeat(column)}^`);
  }
  return frame;
}

/** The message's first line without colours or the plugin's bracketed name. */
function headline(message: string | undefined): string {
  const first = stripVTControlCharacters(message ?? 'build failed')
    .split('\n')[0]!
    .trim();
  return first.replace(/^\[[^\]]+\]\s*/, '') || 'build failed';
}

/**
 * Where an error is: its module and 0-based position. Rolldown gives the position (`loc`) and names the module only
 * in its message's frame header (`[ path:line:column ]`, the path relative to the working directory).
 */
function locate(e: ReportedError, cwd: string): { file: string; line: number; column: number } | undefined {
  const header = /\[ ([^\]]+?):(\d+):(\d+) \]/.exec(stripVTControlCharacters(e.message ?? ''));
  const file = e.loc?.file ?? e.id ?? (header ? resolve(cwd, header[1]!) : undefined);
  if (!file) return undefined;
  if (e.loc) return { file, line: e.loc.line, column: e.loc.column };
  return header ? { file, line: Number(header[2]), column: Number(header[3]) - 1 } : undefined;
}

/** The lines describing a build failure (file, line, column, message and code frame of each error). */
export async function formatBuildError(error: unknown, cwd: string = process.cwd()): Promise<string[]> {
  const reported = (error as { errors?: ReportedError[] }).errors;
  const errors: ReportedError[] = Array.isArray(reported) && reported.length ? reported : [error as ReportedError];
  const lines: string[] = [];
  for (const e of errors) {
    const at = locate(e, cwd);
    if (!at) {
      lines.push(headline(e.message));
      continue;
    }
    lines.push(`${relative(cwd, at.file) || at.file}:${at.line}:${at.column + 1}: ${headline(e.message)}`);
    const source = await readFile(at.file, 'utf8').catch(() => undefined);
    if (source !== undefined) lines.push(...codeFrame(source, at.line, at.column));
  }
  return lines;
}
