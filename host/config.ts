/**
 * Host configuration: one typed defaults object, overridden by environment variables and then by
 * explicit options (CLI flags, tests), validated at boot with every problem reported at once.
 */
import { z } from 'zod';
import { isLoopbackUrl } from './http/loopback-url.ts';

const encryptionKey = z.object({
  /** Stored beside every ciphertext so keys can rotate. */
  id: z.string().min(1).max(32),
  /** 32 bytes, base64 or base64url. */
  key: z.string().refine((k) => Buffer.from(k, 'base64').length === 32, 'must be 32 bytes, base64-encoded'),
});

export const hostConfigSchema = z.object({
  /** TCP port of the host. */
  port: z.number().int().min(0).max(65535),
  /** Interface the host binds to. */
  bindAddress: z.string().min(1),
  /** The platform's name people see: the pages' header and titles, and what integrators call the host. */
  platformName: z.string().trim().min(1).max(80),
  /** Public base URL of the host: links, issuer, redirects. No trailing slash. */
  baseUrl: z.url().transform((u) => u.replace(/\/+$/, '')),
  /** PGlite data directory (`memory://` for none). Also holds generated development secrets. */
  dataDir: z.string().min(1),
  /** `postgres://…` to use PostgreSQL instead of the embedded PGlite. */
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  /** PostgreSQL schema to use (isolates several hosts or test runs on one server). */
  databaseSchema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
    .optional(),
  /** PostgreSQL: prepare statements that run again and again once per connection (`off` behind a pooler that cannot). */
  databasePrepare: z.enum(['on', 'off']),
  /** pino log level. */
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  /** `auto`: readable lines on a terminal outside NODE_ENV=production, JSON lines otherwise; or `json`, `pretty`. */
  logFormat: z.enum(['auto', 'json', 'pretty']),
  /** Secret sealing the session cookies (iron-session); at least 32 characters. */
  sessionSecret: z.string().min(32, 'must be at least 32 characters'),
  /**
   * Earlier session secrets, still accepted when reading cookies but never used to seal one: rotating the secret
   * signs nobody out (docs/operating.md, "Rotating the session secret"). Each at least 32 characters.
   */
  previousSessionSecrets: z.array(z.string().min(32, 'must be at least 32 characters')),
  /** AES-256-GCM keys for secrets that must be recovered; the first one encrypts, all decrypt. */
  encryptionKeys: z.array(encryptionKey).min(1),
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: z.number().int().positive(),
  /** Add-on tokens are refreshed this many seconds before they expire. */
  addonRefreshLeadSeconds: z.number().int().min(0),
  /** Seconds between background sweeps refreshing add-on tokens nobody is using; 0 disables the sweeper. */
  addonSweepIntervalSeconds: z.number().int().min(0),
  /**
   * Seconds between passes of the List scheduler, which runs the auto-refresh Lists that are due (several host
   * processes may run it on one database: each due List is run once); 0 disables it in this process.
   */
  listRefreshIntervalSeconds: z.number().int().min(0),
  /**
   * Seconds between passes vacuuming and analyzing the embedded database's tables that need it (PGlite has no
   * autovacuum; db/embedded-maintenance.ts); 0 disables them. PostgreSQL servers run their own autovacuum.
   */
  embeddedMaintenanceIntervalSeconds: z.number().int().min(0),
  /**
   * Milliseconds between the webhook delivery worker's claims when nothing wakes it (host/webhooks); a commit that
   * records events wakes it at once. 0 runs no worker in this process (another process delivers).
   */
  webhookPollIntervalMs: z.number().int().min(0),
  /** Milliseconds one webhook delivery attempt may take, from connecting to the end of the response body. */
  webhookTimeoutMs: z.number().int().positive(),
  /** Multiplies every wait of the webhook retry schedule (30 s doubling); below 1 compresses it, for tests. */
  webhookRetryScale: z.number().positive(),
  /** Webhook delivery attempts in flight at once in this process. */
  webhookConcurrency: z.number().int().positive(),
  /** Days a finished webhook event (delivered, failed, skipped, ignored) and its deliveries are kept. */
  webhookRetentionDays: z.number().positive(),
  /** Seconds a token request to an integrator may take. */
  addonTokenTimeoutSeconds: z.number().int().positive(),
  /** Milliseconds a proxied add-on call may wait for the upstream's response head. */
  addonFetchTimeoutMs: z.number().int().positive(),
  /** Largest response body the add-on fetch proxy streams back, in bytes. */
  addonMaxResponseBytes: z.number().int().positive(),
  /** Largest proxied request body kept in memory so a call refused with 401 can be retried once, in bytes. */
  addonReplayBytes: z.number().int().min(0),
  /**
   * May add-ons of the development environment reach private and loopback addresses (their integrator
   * API and token endpoint)? An operator setting, never the tenant's: default true only when the host's
   * own base URL is on this machine (a development host), false for any deployed host.
   */
  addonAllowPrivateAddresses: z.boolean().optional(),
  /** Largest add-on bundle accepted by `addon push`, in bytes. */
  addonMaxBundleBytes: z.number().int().positive(),
  /** TCP port of the add-on sandbox listener that `start` opens beside the host; default: the host's port + 1 (0 with port 0). */
  sandboxPort: z.number().int().min(0).max(65535).optional(),
  /**
   * Public origin of the add-on sandbox (a second origin serving the sandbox frame and add-on scripts, so add-on
   * code never runs on the host's origin); default `http://localhost:<sandbox port>`. No trailing slash.
   */
  sandboxUrl: z
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /**
   * The API rate limit per authenticated user and application (and per client address for requests
   * without credentials): `<requests>/<seconds>`, or `off` (benchmarks, load tests; sign-in and client
   * authentication throttling stay on).
   */
  rateLimit: z.union([
    z.literal('off'),
    z
      .string()
      .regex(/^[1-9]\d{0,6}\/[1-9]\d{0,5}$/, 'must be <requests>/<seconds> (e.g. 100/20) or off')
      .transform((v) => {
        const [points, seconds] = v.split('/').map(Number) as [number, number];
        return { points, seconds };
      }),
    z.object({ points: z.number().int().positive(), seconds: z.number().int().positive() }),
  ]),
  /** `redis://…`: rate-limit counters in Redis instead of the database (shared by every host process using it). */
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /**
   * Express `trust proxy`: which proxies' X-Forwarded-For names the client address (rate limits, sign-in
   * throttling). `false` (default): the TCP peer is the client. E.g. `loopback`, `1` (hops), a list of addresses.
   */
  trustProxy: z.union([z.boolean(), z.number().int().min(0), z.string().min(1)]),
  /**
   * Seconds a host keeps serving after SIGTERM while `/health` answers 503 `draining`, so a load balancer's health
   * check takes it out of rotation before it stops taking connections; default 5, or 0 when the base URL is on this
   * machine (a development host has no balancer to wait for).
   */
  drainSeconds: z.number().int().min(0).max(300).optional(),
  /**
   * Bearer token that opens `GET /metrics` on the host's own port (at least 32 characters); without it (and without
   * `metricsPort`) the host collects no metrics and `/metrics` is a 404.
   */
  metricsToken: z.string().min(32, 'must be at least 32 characters').optional(),
  /** TCP port of a separate listener serving `/metrics` without a token, on the bind address (0: a free port). */
  metricsPort: z.number().int().min(0).max(65535).optional(),
  /**
   * OpenTelemetry OTLP/HTTP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, e.g. `http://collector:4318`): the host exports
   * its spans to `<endpoint>/v1/traces`. Unset: no span leaves the process (trace ids still reach the logs).
   */
  otlpEndpoint: z.url().optional(),
  /** Directory of the built add-on SDK browser bundles (`host.js`, `sandbox-bootstrap.js`) the host serves; default `<dataDir>/addon-sdk`. */
  addonSdkDir: z.string().min(1).optional(),
});

export type HostConfig = z.infer<typeof hostConfigSchema>;
export type HostConfigInput = Partial<z.input<typeof hostConfigSchema>>;

/** Defaults for a development machine. Secrets have no default: see `host/secrets.ts`. */
export const hostConfigDefaults = {
  port: 4000,
  bindAddress: '127.0.0.1',
  baseUrl: 'http://localhost:4000',
  platformName: 'addon-kit',
  dataDir: './.addon-kit',
  databasePrepare: 'on',
  logLevel: 'info',
  logFormat: 'auto',
  maxBodyBytes: 1_048_576,
  addonRefreshLeadSeconds: 300,
  addonSweepIntervalSeconds: 60,
  listRefreshIntervalSeconds: 60,
  embeddedMaintenanceIntervalSeconds: 60,
  addonTokenTimeoutSeconds: 10,
  webhookPollIntervalMs: 1000,
  webhookTimeoutMs: 10_000,
  webhookRetryScale: 1,
  webhookConcurrency: 16,
  webhookRetentionDays: 30,
  addonFetchTimeoutMs: 15_000,
  addonMaxResponseBytes: 10_485_760,
  addonReplayBytes: 65_536,
  addonMaxBundleBytes: 5_242_880,
  rateLimit: '100/20',
  trustProxy: false,
  previousSessionSecrets: [],
} as const satisfies HostConfigInput;

/** Environment variables read, and the key each sets. */
export const ENVIRONMENT: Record<string, { key: keyof HostConfigInput; parse?: (v: string) => unknown }> = {
  ADDON_KIT_PORT: { key: 'port', parse: Number },
  ADDON_KIT_BIND_ADDRESS: { key: 'bindAddress' },
  ADDON_KIT_BASE_URL: { key: 'baseUrl' },
  ADDON_KIT_PLATFORM_NAME: { key: 'platformName' },
  ADDON_KIT_DATA_DIR: { key: 'dataDir' },
  DATABASE_URL: { key: 'databaseUrl' },
  ADDON_KIT_DATABASE_SCHEMA: { key: 'databaseSchema' },
  ADDON_KIT_DATABASE_PREPARE: { key: 'databasePrepare' },
  ADDON_KIT_LOG_LEVEL: { key: 'logLevel' },
  ADDON_KIT_LOG_FORMAT: { key: 'logFormat' },
  ADDON_KIT_SESSION_SECRET: { key: 'sessionSecret' },
  ADDON_KIT_PREVIOUS_SESSION_SECRETS: { key: 'previousSessionSecrets', parse: parseSecretList },
  ADDON_KIT_ENCRYPTION_KEYS: { key: 'encryptionKeys', parse: parseKeyList },
  ADDON_KIT_MAX_BODY_BYTES: { key: 'maxBodyBytes', parse: Number },
  ADDON_KIT_ADDON_REFRESH_LEAD_SECONDS: { key: 'addonRefreshLeadSeconds', parse: Number },
  ADDON_KIT_ADDON_SWEEP_INTERVAL_SECONDS: { key: 'addonSweepIntervalSeconds', parse: Number },
  ADDON_KIT_LIST_REFRESH_INTERVAL_SECONDS: { key: 'listRefreshIntervalSeconds', parse: Number },
  ADDON_KIT_EMBEDDED_MAINTENANCE_INTERVAL_SECONDS: { key: 'embeddedMaintenanceIntervalSeconds', parse: Number },
  ADDON_KIT_WEBHOOK_POLL_INTERVAL_MS: { key: 'webhookPollIntervalMs', parse: Number },
  ADDON_KIT_WEBHOOK_TIMEOUT_MS: { key: 'webhookTimeoutMs', parse: Number },
  ADDON_KIT_WEBHOOK_RETRY_SCALE: { key: 'webhookRetryScale', parse: Number },
  ADDON_KIT_WEBHOOK_CONCURRENCY: { key: 'webhookConcurrency', parse: Number },
  ADDON_KIT_WEBHOOK_RETENTION_DAYS: { key: 'webhookRetentionDays', parse: Number },
  ADDON_KIT_ADDON_ALLOW_PRIVATE_ADDRESSES: {
    key: 'addonAllowPrivateAddresses',
    parse: (v) => (v === 'true' ? true : v === 'false' ? false : v),
  },
  ADDON_KIT_SANDBOX_PORT: { key: 'sandboxPort', parse: Number },
  ADDON_KIT_SANDBOX_URL: { key: 'sandboxUrl' },
  ADDON_KIT_RATE_LIMIT: { key: 'rateLimit' },
  ADDON_KIT_REDIS_URL: { key: 'redisUrl' },
  ADDON_KIT_TRUST_PROXY: { key: 'trustProxy', parse: parseTrustProxy },
  ADDON_KIT_DRAIN_SECONDS: { key: 'drainSeconds', parse: Number },
  ADDON_KIT_METRICS_TOKEN: { key: 'metricsToken' },
  ADDON_KIT_METRICS_PORT: { key: 'metricsPort', parse: Number },
  OTEL_EXPORTER_OTLP_ENDPOINT: { key: 'otlpEndpoint' },
};

/** `true`/`false`, a hop count, or Express's names and address lists as they are. */
function parseTrustProxy(value: string): unknown {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** `secret1,secret2` → [secret1, secret2] (spaces around the commas ignored, empty entries dropped). */
function parseSecretList(value: string): string[] {
  return value
    .split(',')
    .map((secret) => secret.trim())
    .filter((secret) => secret !== '');
}

/** `id:base64key,id2:base64key2` → [{id, key}, …]. */
function parseKeyList(value: string): unknown {
  return value
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      return { id: pair.slice(0, at), key: pair.slice(at + 1) };
    });
}

export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Reads the environment's overrides (empty values are ignored). */
export function configFromEnvironment(env: NodeJS.ProcessEnv = process.env): HostConfigInput {
  const out: Record<string, unknown> = {};
  for (const [name, { key, parse }] of Object.entries(ENVIRONMENT)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    out[key] = parse ? parse(raw) : raw;
  }
  return out;
}

/** Defaults ← environment ← overrides, validated; throws ConfigError listing every problem. */
export function resolveHostConfig(overrides: HostConfigInput = {}, env: NodeJS.ProcessEnv = process.env): HostConfig {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  const merged = { ...hostConfigDefaults, ...configFromEnvironment(env), ...defined };
  const parsed = hostConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`));
  }
  return parsed.data;
}

/** Whether development add-ons may reach private and loopback addresses (see `addonAllowPrivateAddresses`). */
export function allowsPrivateAddresses(config: Pick<HostConfig, 'addonAllowPrivateAddresses' | 'baseUrl'>): boolean {
  if (config.addonAllowPrivateAddresses !== undefined) return config.addonAllowPrivateAddresses;
  return isLoopbackUrl(config.baseUrl);
}

/** Seconds to keep serving after SIGTERM with `/health` draining (see `drainSeconds`). */
export function drainDelaySeconds(config: Pick<HostConfig, 'drainSeconds' | 'baseUrl'>): number {
  if (config.drainSeconds !== undefined) return config.drainSeconds;
  return isLoopbackUrl(config.baseUrl) ? 0 : 5;
}

/** Whether the host collects metrics: only when the operator exposes them (a metrics token or port). */
export function metricsExposed(config: Pick<HostConfig, 'metricsToken' | 'metricsPort'>): boolean {
  return config.metricsToken !== undefined || config.metricsPort !== undefined;
}
