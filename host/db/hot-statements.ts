/**
 * Names for the statements a process runs again and again, so PostgreSQL parses and plans each of them once per
 * connection (a named prepared statement) instead of on every call. Planning is most of the server's work for
 * the host's short statements (the add-on proxy's one read per call: about 0.4 ms planning against 0.06 ms
 * executing), and it runs on the same cores as the host.
 *
 * A text is named once it has run `hotAfter` times, and at most `maxNamed` texts are ever named, so statements
 * built from data (a List's rules) are not held by every connection for ever. pg keeps the per-connection
 * bookkeeping: a connection prepares a name the first time it runs it.
 */

/** Options of {@link createHotStatements}. */
export interface HotStatementsOptions {
  /** Runs of one text before it is named. */
  hotAfter?: number;
  /** Texts named at most (each is prepared on every connection that runs it). */
  maxNamed?: number;
  /** Texts whose runs are counted at most (the least recently seen is forgotten first). */
  maxCounted?: number;
}

/** Which statement texts run under a name. */
export interface HotStatements {
  /** The text's name once it is hot, undefined before (and for every text past `maxNamed`). */
  nameOf(sql: string): string | undefined;
}

export function createHotStatements(options: HotStatementsOptions = {}): HotStatements {
  const hotAfter = options.hotAfter ?? 3;
  const maxNamed = options.maxNamed ?? 500;
  const maxCounted = options.maxCounted ?? 5000;
  const named = new Map<string, string>();
  const counted = new Map<string, number>();
  return {
    nameOf(sql) {
      const name = named.get(sql);
      if (name !== undefined || named.size >= maxNamed) return name;
      const runs = (counted.get(sql) ?? 0) + 1;
      counted.delete(sql);
      if (runs < hotAfter) {
        counted.set(sql, runs);
        if (counted.size > maxCounted) counted.delete(counted.keys().next().value!);
        return undefined;
      }
      const fresh = `addon_kit_${named.size + 1}`;
      named.set(sql, fresh);
      return fresh;
    },
  };
}
