/**
 * pino logger; credentials are redacted wherever they could appear, and database errors keep their codes but lose
 * their values. JSON lines for machines; on a developer's terminal, readable lines (`logFormat`).
 */
import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { logFields } from './tracing/index.ts';

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
  // PostgreSQL error fields that quote the statement's values (`Key (email)=(…)`, `portal parameter $1 = '…'`).
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

/**
 * Standard output, written in batches: lines gather until 4 kB or 100 ms, so a busy host makes one write for
 * many request lines instead of one per line (a write is a system call, and they are dear), and an idle one
 * still shows each line within 100 ms. pino flushes what is pending when the process exits.
 */
function batchedStdout() {
  return pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES, periodicFlush: 100 });
}

/**
 * A batch: just under sonic-boom's largest single write (16 kB), so a busy host makes one write for some 60 request
 * lines (at 4 kB it made four times as many, each a system call from the thread pool).
 */
const BATCH_BYTES = 16 * 1024 - 1024;

/** `json` (one JSON object a line), `pretty` (readable lines), or `auto`: pretty on a terminal outside production. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** The format `auto` means for this process: readable on a terminal (unless NODE_ENV=production), else JSON. */
export function resolveLogFormat(
  format: LogFormat,
  stdout: { isTTY?: boolean } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return stdout.isTTY === true && env.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

/** The fields a request line carries (host/http/request-context.ts), said in its message instead. */
const REQUEST_FIELDS = ['requestId', 'traceId', 'spanId', 'method', 'path', 'status', 'ms', 'aborted'];

/**
 * `[12:03:04] INFO: GET /people/v2/lists 200 4 ms` for a request, `[12:03:05] WARN: <message>` and the other fields
 * below it for anything else. Redaction and the error serializer run before, as for JSON.
 */
function prettyStream(destination: NodeJS.WritableStream | undefined, colorize: boolean) {
  return PinoPretty({
    destination: destination ?? 1,
    sync: destination !== undefined,
    colorize,
    translateTime: 'SYS:HH:MM:ss',
    ignore: REQUEST_FIELDS.join(','),
    messageFormat: (log, messageKey) => {
      const message = log[messageKey];
      if (message !== 'request') return typeof message === 'string' ? message : JSON.stringify(message ?? '');
      const ms = typeof log.ms === 'number' ? Math.round(log.ms) : log.ms;
      return `${String(log.method)} ${String(log.path)} ${String(log.status)} ${String(ms)} ms${log.aborted ? ' (aborted)' : ''}`;
    },
  });
}

export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  format: 'json' | 'pretty' = 'json',
): Logger {
  const stream =
    format === 'pretty'
      ? prettyStream(destination, destination === undefined && process.stdout.isTTY === true)
      : (destination ?? batchedStdout());
  const logger = pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor },
      serializers: { err: serializeError },
      base: undefined,
      // Every line written while a request is handled names its trace and request (tracing/trace-context.ts).
      mixin: logFields,
    },
    stream as never,
  );
  // Request lines hold only the fields `logRequest` takes, none of them redacted or serialized: written by a logger
  // of the same stream without those passes (on the busiest route, the add-on proxy, they were a quarter of the line).
  REQUEST_LINES.set(logger, pino({ level: 'info', base: undefined }, stream as never));
  return logger;
}

/** The logger that writes the request lines of each logger `createLogger` made. */
const REQUEST_LINES = new WeakMap<Logger, Logger>();

/** What one request line says (host/http/request-context.ts): the request, its answer, and how long it took. */
export interface RequestLine {
  requestId: string;
  traceId?: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  aborted?: true;
}

/**
 * Writes a request's line (`msg: "request"`) with the ids the mixin gives every line — the same line as
 * `logger.info(line, 'request')` — through the plain logger beside it when `createLogger` made `logger`.
 */
export function logRequest(logger: Logger, line: RequestLine): void {
  if (!logger.isLevelEnabled('info')) return;
  const plain = REQUEST_LINES.get(logger);
  if (plain) plain.info({ ...logFields(), ...line }, 'request');
  else logger.info(line, 'request');
}
