/**
 * Integrator configuration: one typed defaults object, overridden by environment variables and then
 * by explicit options, validated at boot with every problem reported at once.
 */
import { z } from 'zod';

/** Development-only credentials; refused when `environment` is `production`. */
export const DEVELOPMENT_DEFAULTS = {
  clientId: 'addon-kit-host',
  clientSecret: 'development-integrator-secret',
  secret: 'development-integrator-session-secret-0123456789',
  user: { username: 'demo', password: 'demo-password', name: 'Demo Integrator User' },
} as const;

const registeredClient = z.object({
  /** The client_id the host presents (the add-on config's `integrator_oauth.client_id`). */
  client_id: z.string().min(1),
  /** The client_secret the host presents; compared in constant time, never logged. */
  client_secret: z.string().min(16, 'must be at least 16 characters'),
  /**
   * Exact redirect URIs (RFC 6749 §3.1.2.3: compared as strings, no pattern matching). Empty only in development
   * without `oauthApplicationId`: the host's callback is then learnt per session at completion (see complete.ts).
   */
  redirect_uris: z.array(z.url()),
  /**
   * The add-on this client stands for, as people know it (the consent page names it). Unset, the page says "an
   * add-on" (or the name the host gives the application, when the integrator learnt it at completion).
   */
  name: z.string().min(1).optional(),
  /**
   * The platform the add-on runs in (the host's name), as the consent page names it; default: the host part of the
   * redirect URI the authorization request names.
   */
  host_name: z.string().min(1).optional(),
  /** Scopes this client may request; empty means every scope the server knows. */
  scopes: z.array(z.string()).default([]),
});

const seededUser = z.object({
  username: z.string().min(1),
  password: z.string().min(8, 'must be at least 8 characters'),
  name: z.string().min(1),
});

/** The validated shape of the configuration; each key documents itself. */
export const integratorConfigSchema = z
  .object({
    /** This service's name: every page's top bar and title, and the consent page ("your … account"). */
    serviceName: z.string().trim().min(1).max(80),
    /** `development` allows the built-in demo credentials; `production` refuses them. */
    environment: z.enum(['development', 'production']),
    /** TCP port (0 picks a free one). */
    port: z.number().int().min(0).max(65535),
    /** Interface to bind. */
    bindAddress: z.string().min(1),
    /** Public base URL of this integrator, no trailing slash. */
    baseUrl: z.url().transform((u) => u.replace(/\/+$/, '')),
    /** Public base URL of the host platform, no trailing slash. */
    hostBaseUrl: z.url().transform((u) => u.replace(/\/+$/, '')),
    /**
     * Integer id (not client_id) of the add-on's OAuth application on the host. Optional in development: the
     * completion URL `/addon/complete/{id}` names the application, and the host's callback for that id is then
     * accepted at authorize in the same browser session (complete.ts).
     */
    oauthApplicationId: z.number().int().positive().optional(),
    /** PGlite data directory parent (`memory://` for none); the database lives in `<dataDir>/integrator`. */
    dataDir: z.string().min(1),
    /** `postgres://…` to use PostgreSQL instead of PGlite. */
    databaseUrl: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
    /** PostgreSQL schema holding the integrator's tables (created when missing). */
    databaseSchema: z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier'),
    /** Seals the login cookie and keys refresh-token rotation; at least 32 characters. */
    secret: z.string().min(32, 'must be at least 32 characters'),
    /** Name of this integrator's session cookie (distinct from the host's). */
    sessionCookieName: z.string().regex(/^[A-Za-z0-9_-]+$/),
    /** OAuth clients allowed to use the authorization server; the host is one. */
    clients: z.array(registeredClient).min(1),
    /** Scopes this server knows, with the text the consent page shows. */
    scopes: z.record(
      z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be an RFC 6749 §3.3 scope token'),
      z.string(),
    ),
    /** Users created at start when missing (existing passwords are never overwritten). */
    users: z.array(seededUser),
    /** Access token lifetime, seconds. */
    accessTokenTtlSeconds: z.number().int().positive(),
    /** Refresh token lifetime, seconds. */
    refreshTokenTtlSeconds: z.number().int().positive(),
    /** Authorization code lifetime, seconds (RFC 6749 §4.1.2 recommends at most 10 minutes). */
    codeTtlSeconds: z.number().int().positive().max(600),
    /** Seconds after a rotation during which the previous refresh token returns the same new pair once. */
    refreshGraceSeconds: z.number().int().min(0).max(300),
    /** Step 2: exchange the host's code at the host's token endpoint before redirecting to `advance`. */
    exchangeHostCode: z.boolean(),
    /** The integrator's own credentials of the host OAuth application (needed when exchanging). */
    hostClient: z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1) }).optional(),
    /** The host's token endpoint; defaults to `{hostBaseUrl}/oauth/token`. */
    hostTokenUrl: z.url().optional(),
    /** pino log level. */
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** Largest accepted request body, bytes. */
    maxBodyBytes: z.number().int().positive(),
  })
  .superRefine((c, ctx) => {
    if (c.exchangeHostCode && !c.hostClient) {
      ctx.addIssue({ code: 'custom', path: ['hostClient'], message: 'is required when exchangeHostCode is true' });
    }
    if (c.environment === 'production' && c.oauthApplicationId === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['oauthApplicationId'],
        message: 'is required in production (INTEGRATOR_OAUTH_APPLICATION_ID)',
      });
    c.clients.forEach((client, i) => {
      if (client.redirect_uris.length === 0 && c.environment === 'production')
        ctx.addIssue({
          code: 'custom',
          path: ['clients', i, 'redirect_uris'],
          message: 'must not be empty in production',
        });
    });
    if (c.environment === 'production') {
      if (c.secret === DEVELOPMENT_DEFAULTS.secret)
        ctx.addIssue({ code: 'custom', path: ['secret'], message: 'the development default is refused in production' });
      c.clients.forEach((client, i) => {
        if (client.client_secret === DEVELOPMENT_DEFAULTS.clientSecret) {
          ctx.addIssue({
            code: 'custom',
            path: ['clients', i, 'client_secret'],
            message: 'the development default is refused in production',
          });
        }
      });
      c.users.forEach((user, i) => {
        if (user.password === DEVELOPMENT_DEFAULTS.user.password) {
          ctx.addIssue({
            code: 'custom',
            path: ['users', i, 'password'],
            message: 'the development default is refused in production',
          });
        }
      });
    }
    const known = new Set(Object.keys(c.scopes));
    c.clients.forEach((client, i) =>
      client.scopes.forEach((s, j) => {
        if (!known.has(s))
          ctx.addIssue({ code: 'custom', path: ['clients', i, 'scopes', j], message: `unknown scope ${s}` });
      }),
    );
  });

/** Resolved, validated configuration. */
export type IntegratorConfig = z.infer<typeof integratorConfigSchema>;
/** One registered OAuth client. */
export type RegisteredClient = IntegratorConfig['clients'][number];

/** What callers may pass: every key optional (clients may omit name/scopes). */
export type IntegratorConfigInput = Partial<z.input<typeof integratorConfigSchema>>;

/** Defaults for a development machine next to `addon-kit start`'s host. */
export const integratorConfigDefaults = {
  serviceName: 'Template Integrator',
  environment: 'development',
  // Beside a host started with its defaults (4000, 4001, and its own template integrator on 4100).
  port: 4200,
  bindAddress: '127.0.0.1',
  baseUrl: 'http://localhost:4200',
  hostBaseUrl: 'http://localhost:4000',
  dataDir: './.addon-kit',
  databaseSchema: 'integrator',
  sessionCookieName: 'integrator_session',
  scopes: { messages: 'Send messages to people on your lists and read the messages you sent' },
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 90 * 24 * 3600,
  codeTtlSeconds: 60,
  refreshGraceSeconds: 30,
  exchangeHostCode: false,
  logLevel: 'info',
  maxBodyBytes: 100_000,
} as const satisfies IntegratorConfigInput;

/** Environment variables read, and the key each sets. Client credentials: see `defaultClients`. */
const ENVIRONMENT: Record<string, { key: keyof IntegratorConfigInput; parse?: (v: string) => unknown }> = {
  INTEGRATOR_SERVICE_NAME: { key: 'serviceName' },
  INTEGRATOR_ENVIRONMENT: { key: 'environment' },
  INTEGRATOR_PORT: { key: 'port', parse: Number },
  INTEGRATOR_BIND_ADDRESS: { key: 'bindAddress' },
  INTEGRATOR_BASE_URL: { key: 'baseUrl' },
  INTEGRATOR_HOST_BASE_URL: { key: 'hostBaseUrl' },
  INTEGRATOR_OAUTH_APPLICATION_ID: { key: 'oauthApplicationId', parse: Number },
  INTEGRATOR_DATA_DIR: { key: 'dataDir' },
  INTEGRATOR_DATABASE_URL: { key: 'databaseUrl' },
  INTEGRATOR_DATABASE_SCHEMA: { key: 'databaseSchema' },
  INTEGRATOR_SECRET: { key: 'secret' },
  INTEGRATOR_ACCESS_TOKEN_TTL: { key: 'accessTokenTtlSeconds', parse: Number },
  INTEGRATOR_REFRESH_GRACE: { key: 'refreshGraceSeconds', parse: Number },
  INTEGRATOR_EXCHANGE_HOST_CODE: { key: 'exchangeHostCode', parse: (v) => v === 'true' || v === '1' },
  INTEGRATOR_LOG_LEVEL: { key: 'logLevel' },
};

/** Every configuration problem, each with its path. */
export class IntegratorConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: string[]) {
    super(`invalid integrator configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Reads the environment's overrides (empty values are ignored). */
export function configFromEnvironment(env: NodeJS.ProcessEnv): IntegratorConfigInput {
  const out: Record<string, unknown> = {};
  for (const [name, { key, parse }] of Object.entries(ENVIRONMENT)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    out[key] = parse ? parse(raw) : raw;
  }
  const hostClientId = env.INTEGRATOR_HOST_CLIENT_ID;
  const hostClientSecret = env.INTEGRATOR_HOST_CLIENT_SECRET;
  if (hostClientId || hostClientSecret)
    out.hostClient = { clientId: hostClientId ?? '', clientSecret: hostClientSecret ?? '' };
  return out;
}

/**
 * The host as the one registered client, from INTEGRATOR_CLIENT_ID / INTEGRATOR_CLIENT_SECRET
 * (development defaults `addon-kit-host` / `development-integrator-secret`), redirecting to the
 * host's step-5 callback `{hostBaseUrl}/addons/authorizations/{oauthApplicationId}` (none without an id: see
 * `oauthApplicationId`), and named on the consent page
 * by INTEGRATOR_ADDON_NAME (the add-on) and INTEGRATOR_HOST_NAME (the platform).
 */
export function defaultClients(
  hostBaseUrl: string,
  oauthApplicationId: number | undefined,
  env: NodeJS.ProcessEnv,
): z.input<typeof registeredClient>[] {
  const base = hostBaseUrl.replace(/\/+$/, '');
  return [
    {
      client_id: env.INTEGRATOR_CLIENT_ID || DEVELOPMENT_DEFAULTS.clientId,
      client_secret: env.INTEGRATOR_CLIENT_SECRET || DEVELOPMENT_DEFAULTS.clientSecret,
      redirect_uris: oauthApplicationId === undefined ? [] : [`${base}/addons/authorizations/${oauthApplicationId}`],
      ...(env.INTEGRATOR_ADDON_NAME ? { name: env.INTEGRATOR_ADDON_NAME } : {}),
      ...(env.INTEGRATOR_HOST_NAME ? { host_name: env.INTEGRATOR_HOST_NAME } : {}),
    },
  ];
}

/** Defaults ← environment ← overrides, validated; throws IntegratorConfigError listing every problem. */
export function resolveIntegratorConfig(
  overrides: IntegratorConfigInput = {},
  env: NodeJS.ProcessEnv = process.env,
): IntegratorConfig {
  const defined = Object.fromEntries(
    Object.entries(overrides).filter(([, v]) => v !== undefined),
  ) as IntegratorConfigInput;
  const merged: Record<string, unknown> = { ...integratorConfigDefaults, ...configFromEnvironment(env), ...defined };
  const development = merged.environment !== 'production';
  merged.secret ??= development ? DEVELOPMENT_DEFAULTS.secret : undefined;
  merged.users ??= development
    ? [{ ...DEVELOPMENT_DEFAULTS.user, password: env.INTEGRATOR_DEMO_PASSWORD || DEVELOPMENT_DEFAULTS.user.password }]
    : [];
  merged.clients ??= defaultClients(String(merged.hostBaseUrl), merged.oauthApplicationId as number | undefined, env);
  const parsed = integratorConfigSchema.safeParse(merged);
  if (!parsed.success) {
    throw new IntegratorConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`));
  }
  return parsed.data;
}
