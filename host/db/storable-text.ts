/**
 * PostgreSQL text cannot hold U+0000: a NUL byte in a parameter fails the statement (SQLSTATE 22021, or
 * 22P05 inside JSON). Parameters are checked before they are sent, so both back-ends refuse such input
 * the same way, with an error the HTTP layer answers with 400 instead of a server error.
 */

/** A statement parameter holds a NUL character, which no PostgreSQL text value can store. */
export class UnstorableTextError extends Error {
  readonly code = 'unstorable_text';
  constructor() {
    super('a text value holds a NUL character (U+0000), which PostgreSQL cannot store');
  }
}

/** Whether a string holds U+0000. */
export function hasNul(value: string): boolean {
  return value.includes('\u0000');
}

/** Throws UnstorableTextError when a parameter (or a string inside a JSON parameter) holds U+0000. */
export function assertStorableParameters(params: readonly unknown[]): void {
  for (const value of params) {
    if (typeof value === 'string' ? hasNul(value) : isJsonWithNul(value)) throw new UnstorableTextError();
  }
}

function isJsonWithNul(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || value instanceof Date || Buffer.isBuffer(value)) return false;
  // The drivers send objects and arrays as JSON text, where U+0000 becomes the escape `\u0000`.
  return JSON.stringify(value).includes('\\u0000');
}
