/**
 * The integrator's pino logger; credentials are redacted wherever they could appear, and database errors keep
 * their codes but lose their values — the same rules as the host's logger (host/logger.ts). The template is
 * copied into an integrator's own repository and depends on nothing of the host, so the rules are written here
 * too, each side with its own test (test/host/logger.test.ts, integrator-template/test/logger.test.ts).
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths never written to logs (a `code` that is an error code, not an OAuth code, is kept: see `censor`). */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code',
  '*.code_verifier',
  '*.token',
  // PostgreSQL error fields that quote the statement's values (`Key (username)=(…)`, `portal parameter $1 = '…'`).
  'err.detail',
  'err.where',
  'err.params',
  'err.parameters',
];

/**
 * Error codes are not secrets: SQLSTATEs (`23505`), Node's (`ECONNRESET`, `ERR_…`, `HPE_…`). An OAuth
 * code is a long random string with lower-case letters, so it never looks like one.
 */
const ERROR_CODE = /^[0-9A-Z_]{2,40}$/;

function censor(value: unknown, path: string[]): unknown {
  if (path.at(-1) === 'code' && typeof value === 'string' && ERROR_CODE.test(value)) return value;
  return '[redacted]';
}

/** pino's error serializer, with the quoted values of a database error's message hidden. */
function serializeError(error: Error): Record<string, unknown> {
  const out = pino.stdSerializers.err(error) as unknown as Record<string, unknown>;
  const e = error as { code?: unknown; severity?: unknown };
  // A PostgreSQL error (SQLSTATE + severity) quotes values in its message: `invalid input syntax for type bigint: "…"`.
  if (
    typeof e.code === 'string' &&
    /^[0-9A-Z]{5}$/.test(e.code) &&
    e.severity !== undefined &&
    typeof out.message === 'string'
  ) {
    out.message = out.message.replace(/"[^"]*"|'[^']*'/g, '"…"');
    if (typeof out.stack === 'string') out.stack = out.stack.replace(/"[^"]*"|'[^']*'/g, '"…"');
  }
  return out;
}

/** A logger at `level`, to stdout or `destination`. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor }, serializers: { err: serializeError }, base: undefined },
    destination as never,
  );
}
