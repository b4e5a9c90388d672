/** The integrator's pino logger; credentials are redacted wherever they could appear. */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths never written to logs. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.code',
  '*.code_verifier',
  '*.token',
];

/** A logger at `level`, to stdout or `destination`. */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: undefined }, destination as never);
}
