/**
 * Prepared statements on the embedded PGlite: PGlite parses and plans every statement it is sent —
 * for the host's short statements that is most of their cost (the add-on proxy's read: about 1.9 ms unprepared
 * against 0.11 ms as a prepared one run by the simple protocol). A hot statement (hot-statements.ts) is prepared once with `PREPARE name AS
 * …` — PGlite is one session, so once serves the whole process — and then run as `EXECUTE name(…)`.
 *
 * `EXECUTE` takes no bind parameters, so the values are written as literals: each value is turned into text by
 * the very serializer PGlite would use for that parameter's type (read from `pg_prepared_statements` once), and
 * quoted; PostgreSQL then reads it with the type's input function, exactly as it reads a parameter sent as text.
 * Values that are not text then (bytes) or too long to inline go the ordinary way. Errors carry the
 * statement and its parameters as the ordinary path's do — never the literals.
 */

/** Turns a value into the text form of a parameter type (PGlite's own serializers, by type oid). */
export type Serializers = Record<number | string, ((value: unknown) => unknown) | undefined>;

/** Strings longer than this are sent as bind parameters (the statement goes the ordinary way). */
const MAX_LITERAL_CHARS = 8192;

/** `'…'` with quotes doubled (standard_conforming_strings is on: a backslash is an ordinary character). */
function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * `EXECUTE name(…)` for these values of parameters of these type oids, or undefined when one of them must go
 * as a bind parameter.
 */
export function executeStatement(
  name: string,
  params: readonly unknown[],
  types: readonly number[],
  serializers: Serializers,
): string | undefined {
  if (params.length !== types.length) return undefined;
  const literals: string[] = [];
  for (const [i, value] of params.entries()) {
    if (value === null || value === undefined) {
      literals.push('NULL');
      continue;
    }
    const serialize = serializers[types[i]!];
    const text: unknown = serialize ? serialize(value) : (value as { toString(): string }).toString();
    if (typeof text !== 'string' || text.length > MAX_LITERAL_CHARS) return undefined;
    literals.push(quote(text));
  }
  return literals.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${literals.join(', ')})`;
}

/** The parameter type oids of a prepared statement (`$1`: its name). */
export const PARAMETER_TYPES_SQL = 'SELECT parameter_types::oid[] AS types FROM pg_prepared_statements WHERE name = $1';

/** `PREPARE name AS sql`. */
export function prepareStatement(name: string, sql: string): string {
  return `PREPARE ${name} AS ${sql}`;
}

/** An error of an `EXECUTE` made to look like the ordinary statement's: its text and parameters, no literals. */
export function asOrdinaryError(error: unknown, sql: string, params: readonly unknown[]): unknown {
  if (error && typeof error === 'object' && 'query' in error) Object.assign(error, { query: sql, params });
  return error;
}
