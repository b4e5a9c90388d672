/**
 * `addon.config.json`: the add-on's OAuth application, host scopes, UI extensions and, per
 * environment, the integrator's OAuth endpoints and API allow-list. `${VAR}` placeholders are filled
 * from the environment; every problem (missing variable or invalid value) is reported at once, each
 * with its JSON path.
 */
import { z } from 'zod';
import { SCOPES } from '../auth/require-scope.ts';

/** The three environments an add-on version can be registered in. */
export const ENVIRONMENTS = ['development', 'beta', 'production'] as const;
/** development, beta or production. */
export type Environment = (typeof ENVIRONMENTS)[number];

/** Methods an integrator_api allow-list entry (and a proxied call) may use. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A positive integer id; a whole-string `${VAR}` placeholder may supply it as digits. */
const integerId = z.union(
  [
    z.number().int().positive(),
    z
      .string()
      .regex(/^[1-9][0-9]{0,17}$/)
      .transform(Number),
  ],
  { error: 'must be a positive integer' },
);
const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const insertionPoint = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/,
    'must be a dotted insertion point name such as people.list.send_message',
  );
/** `/api/messages/:id`: literal segments and `:name` parameters; no query, no wildcards, no dot segments. */
const pathTemplate = z
  .string()
  .regex(
    /^(\/([A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]*))+\/?$|^\/$/,
    'must be a path template such as /api/messages/:id',
  )
  .refine(
    (path) => !path.split('/').some((segment) => segment === '.' || segment === '..'),
    'must not contain a . or .. segment',
  );
/** `https://cdn.example.com`: scheme, host and port only, written as the URL parser serialises an origin. */
const origin = z
  .string()
  .refine(isOrigin, 'must be an origin such as https://cdn.example.com (scheme, host and port only)');

const uiExtension = z.strictObject({
  title: z.string().min(1).max(100),
  icon_url: url,
  /** Module path of the extension's entry inside the built bundle. */
  entry: z.string().min(1),
});

const environmentSchema = z.strictObject({
  integrator_oauth: z.strictObject({
    authorize_url: url,
    token_url: url,
    redirect_url: url,
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be an RFC 6749 scope token')),
  }),
  integrator_api: z.strictObject({
    base_url: url,
    /** Matched exactly against the path as the add-on sent it, in one canonical form (integrator-policy.ts). */
    allow: z.array(z.strictObject({ method: z.enum(HTTP_METHODS), path: pathTemplate })).min(1),
  }),
  ui_extensions: z.array(insertionPoint),
  organization_ids: z.array(integerId),
  /**
   * Origins the add-on's UI may show images from and link to (`Image` src, `Link` href); nothing else is
   * rendered, and the host page's CSP img-src lists only these. Empty (the default): no images, no links.
   */
  ui_origins: z.array(origin).max(20).default([]),
  /**
   * Where the host sends this environment's add-on lifecycle events (a person completed the handshake, revoked it,
   * was excluded by the organization's access_mode, must authorize again), signed with the integrator's
   * `client_secret` (host/addons/lifecycle/README.md). Absent: none are sent.
   */
  webhook_url: url.optional(),
});

/** The zod schema of `addon.config.json` after placeholders are filled. */
export const addonConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /** The integer id of the add-on's OAuth application in the host (not its client_id). */
  oauth_application_id: integerId,
  scopes: z.array(z.enum(SCOPES)).min(1),
  ui_extensions: z.record(insertionPoint, uiExtension),
  environments: z
    .strictObject({
      development: environmentSchema.optional(),
      beta: environmentSchema.optional(),
      production: environmentSchema.optional(),
    })
    .refine((e) => ENVIRONMENTS.some((name) => e[name]), 'must define at least one of development, beta, production'),
});

/** A validated add-on config. */
export type AddonConfig = z.infer<typeof addonConfigSchema>;
/** One environment's section of the config. */
export type AddonEnvironmentConfig = z.infer<typeof environmentSchema>;

/** Thrown with every problem found, each as `path: message`. */
export class AddonConfigError extends Error {
  readonly code = 'invalid_addon_config';
  constructor(readonly problems: string[]) {
    super(`invalid add-on config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Where placeholders come from, and which environment to keep. */
export interface LoadAddonConfigOptions {
  /** Variables for `${VAR}` placeholders (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Keep, fill and validate this environment only (the others are dropped from the result): a
   * developer pushing to development need not hold the production secrets.
   */
  only?: Environment;
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Parses, fills placeholders and validates a config; throws AddonConfigError listing every problem. */
export function parseAddonConfig(raw: unknown, options: LoadAddonConfigOptions = {}): AddonConfig {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const fill = (value: unknown, path: (string | number)[]): unknown => {
    if (typeof value === 'string') {
      return value.replace(PLACEHOLDER, (whole, name: string) => {
        const found = env[name];
        if (found === undefined || found === '') {
          problems.push(`${formatPath(path)}: environment variable ${name} is not set`);
          return whole;
        }
        return found;
      });
    }
    if (Array.isArray(value)) return value.map((v, i) => fill(v, [...path, i]));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, [...path, k])]));
    }
    return value;
  };
  if (options.only && !hasEnvironment(raw, options.only)) problems.push(`environments.${options.only}: is not defined`);
  const filled = fill(options.only ? onlyEnvironment(raw, options.only) : raw, []);
  const parsed = addonConfigSchema.safeParse(filled);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${formatPath(issue.path)}: ${issue.message}`);
  }
  // Checked on the raw value so they are reported together with the schema's problems.
  problems.push(...crossFieldProblems(filled));
  if (problems.length > 0 || !parsed.success) throw new AddonConfigError(problems);
  return parsed.data;
}

/** Parses JSON text as a config (a JSON syntax error is one problem). */
export function parseAddonConfigText(text: string, options: LoadAddonConfigOptions = {}): AddonConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AddonConfigError([`(file): not valid JSON: ${(error as Error).message}`]);
  }
  return parseAddonConfig(raw, options);
}

/** Rules spanning several fields; tolerant of a malformed value (the schema reports that). */
function crossFieldProblems(raw: unknown): string[] {
  const problems: string[] = [];
  const config = (raw ?? {}) as { ui_extensions?: unknown; environments?: unknown };
  const declared =
    config.ui_extensions && typeof config.ui_extensions === 'object'
      ? (config.ui_extensions as Record<string, unknown>)
      : {};
  const environments =
    config.environments && typeof config.environments === 'object'
      ? (config.environments as Record<string, unknown>)
      : {};
  for (const name of ENVIRONMENTS) {
    const env = environments[name] as
      | {
          ui_extensions?: unknown;
          organization_ids?: unknown;
          ui_origins?: unknown;
          integrator_oauth?: Record<string, unknown>;
          integrator_api?: Record<string, unknown>;
          webhook_url?: unknown;
        }
      | undefined;
    if (!env || typeof env !== 'object') continue;
    const at = `environments.${name}`;
    if (Array.isArray(env.ui_extensions)) {
      env.ui_extensions.forEach((point, i) => {
        if (typeof point === 'string' && !(point in declared))
          problems.push(`${at}.ui_extensions.${i}: ${point} is not declared under ui_extensions`);
      });
    }
    if (name === 'development' && Array.isArray(env.organization_ids) && env.organization_ids.length > 0) {
      problems.push(`${at}.organization_ids: must be empty: development is visible to the owning organization only`);
    }
    // Outside development every URL the host talks to or sends a browser to is HTTPS.
    if (name !== 'development') {
      const urls: [string, unknown][] = [
        ['integrator_oauth.authorize_url', env.integrator_oauth?.authorize_url],
        ['integrator_oauth.token_url', env.integrator_oauth?.token_url],
        ['integrator_oauth.redirect_url', env.integrator_oauth?.redirect_url],
        ['integrator_api.base_url', env.integrator_api?.base_url],
        ['webhook_url', env.webhook_url],
      ];
      if (Array.isArray(env.ui_origins)) env.ui_origins.forEach((value, i) => urls.push([`ui_origins.${i}`, value]));
      for (const [path, value] of urls) {
        if (typeof value === 'string' && protocolOf(value) === 'http:')
          problems.push(`${at}.${path}: must be an https URL outside development`);
      }
    }
  }
  return problems;
}

/**
 * True for an http(s) origin exactly as the URL parser serialises it (`https://cdn.example.com`, no path or
 * slash), with a plain host name or IPv4 address: no `*`, which a CSP source would read as a wildcard.
 */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.origin === value &&
      /^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(url.hostname)
    );
  } catch {
    return false;
  }
}

/** The URL's scheme as the URL parser normalises it (`HTTP://` is `http:`); undefined when unparsable. */
function protocolOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

function hasEnvironment(raw: unknown, name: Environment): boolean {
  const environments = (raw as { environments?: unknown } | null)?.environments;
  return (
    !!environments && typeof environments === 'object' && (environments as Record<string, unknown>)[name] !== undefined
  );
}

function onlyEnvironment(raw: unknown, only: Environment): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const config = raw as Record<string, unknown>;
  const environments = config.environments;
  if (!environments || typeof environments !== 'object' || Array.isArray(environments)) return raw;
  const selected = (environments as Record<string, unknown>)[only];
  return { ...config, environments: selected === undefined ? {} : { [only]: selected } };
}

function formatPath(path: readonly (string | number | symbol)[]): string {
  return path.length === 0 ? '(config)' : path.map(String).join('.');
}
