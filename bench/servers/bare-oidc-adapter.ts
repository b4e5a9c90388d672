/**
 * The plainest durable adapter for oidc-provider, for P2's floor (bare-oidc.ts): every model in one table of the
 * bench database, each adapter call one prepared statement on `pg` (a pool of 10) or PGlite — no batching, no
 * cache, no encryption at rest. What a host that keeps its tokens in a database does at the least.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

const TABLE = `CREATE TABLE IF NOT EXISTS bench_oidc_models (
  model text NOT NULL, id text NOT NULL, payload jsonb NOT NULL, grant_id text,
  expires_at timestamptz, consumed_at timestamptz, PRIMARY KEY (model, id))`;
const GRANT_INDEX = 'CREATE INDEX IF NOT EXISTS bench_oidc_models_grant_idx ON bench_oidc_models (grant_id)';

/** The adapter's statements, by name (prepared once per connection). */
const STATEMENTS = {
  upsert: `INSERT INTO bench_oidc_models (model, id, payload, grant_id, expires_at)
    VALUES ($1, $2, $3::jsonb, $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() + make_interval(secs => $5::int) END)
    ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, expires_at = EXCLUDED.expires_at`,
  find: `SELECT payload, consumed_at FROM bench_oidc_models
    WHERE model = $1 AND id = $2 AND (expires_at IS NULL OR expires_at > now())`,
  findBy: `SELECT payload, consumed_at FROM bench_oidc_models
    WHERE model = $1 AND payload ->> $2 = $3 AND (expires_at IS NULL OR expires_at > now())`,
  consume: 'UPDATE bench_oidc_models SET consumed_at = now() WHERE model = $1 AND id = $2',
  destroy: 'DELETE FROM bench_oidc_models WHERE model = $1 AND id = $2',
  revoke: 'DELETE FROM bench_oidc_models WHERE grant_id = $1',
} as const;

type Name = keyof typeof STATEMENTS;
interface Row {
  payload: AdapterPayload;
  consumed_at: Date | null;
}
type Run = (name: Name, params: unknown[]) => Promise<Row[]>;

/** The models of one provider in one database: its adapter class and how to close the database. */
export interface ModelStore {
  adapter: new (model: string) => Adapter;
  close(): Promise<void>;
}

async function openRun(where: {
  dataDir?: string;
  databaseUrl?: string;
}): Promise<{ run: Run; close: () => Promise<void> }> {
  if (where.databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: where.databaseUrl, max: 10 });
    await pool.query(TABLE);
    await pool.query(GRANT_INDEX);
    return {
      run: async (name, params) =>
        (await pool.query<Row>({ name: `bare_${name}`, text: STATEMENTS[name], values: params })).rows,
      close: () => pool.end(),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = new PGlite({ dataDir: where.dataDir! });
  await pglite.waitReady;
  await pglite.exec(`${TABLE}; ${GRANT_INDEX}`);
  // PGlite runs in this process: its extended-protocol query with parameters is what it has for bind values.
  return {
    run: async (name, params) => (await pglite.query<Row>(STATEMENTS[name], params)).rows,
    close: () => pglite.close(),
  };
}

const payloadOf = (rows: Row[]): AdapterPayload | undefined => {
  const row = rows[0];
  if (!row) return undefined;
  return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload;
};

/** Opens the database, creates the models' table when missing, and returns the adapter class over it. */
export async function openModelStore(where: { dataDir?: string; databaseUrl?: string }): Promise<ModelStore> {
  const { run, close } = await openRun(where);
  class SqlAdapter implements Adapter {
    constructor(private readonly model: string) {}
    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await run('upsert', [this.model, id, JSON.stringify(payload), payload.grantId ?? null, expiresIn || null]);
    }
    async find(id: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await run('find', [this.model, id]));
    }
    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await run('findBy', [this.model, 'uid', uid]));
    }
    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await run('findBy', [this.model, 'userCode', userCode]));
    }
    async consume(id: string): Promise<void> {
      await run('consume', [this.model, id]);
    }
    async destroy(id: string): Promise<void> {
      await run('destroy', [this.model, id]);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      await run('revoke', [grantId]);
    }
  }
  return { adapter: SqlAdapter, close };
}
