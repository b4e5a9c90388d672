import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { AddonConfigError, parseAddonConfig, parseAddonConfigText } from '#host/addons/config.ts';
import { withIntegratorAt } from '#host/addons/integrator-urls.ts';

const env = {
  INTEGRATOR_CLIENT_ID: 'sample-client',
  INTEGRATOR_CLIENT_SECRET: 's3cret',
  ADDON_OAUTH_APPLICATION_ID: '12',
};

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof AddonConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected an AddonConfigError');
}

function validConfig() {
  return {
    oauth_application_id: 7,
    scopes: ['people'],
    ui_extensions: {
      'people.list.send_message': { title: 'Send', icon_url: 'https://cdn.example/i.svg', entry: 'send' },
    },
    environments: {
      development: {
        integrator_oauth: {
          authorize_url: 'http://localhost:4100/oauth/authorize',
          token_url: 'http://localhost:4100/oauth/token',
          redirect_url: 'http://localhost:4100/oauth/complete',
          client_id: '${INTEGRATOR_CLIENT_ID}',
          client_secret: '${INTEGRATOR_CLIENT_SECRET}',
          scopes: ['messages'],
        },
        integrator_api: { base_url: 'http://localhost:4100', allow: [{ method: 'GET', path: '/api/messages/:id' }] },
        ui_extensions: ['people.list.send_message'],
        organization_ids: [],
      },
    },
  };
}

describe('parseAddonConfig()', () => {
  it('fills ${VAR} placeholders from the environment', () => {
    const config = parseAddonConfig(validConfig(), { env });
    expect(config.environments.development!.integrator_oauth.client_id).toBe('sample-client');
    expect(config.environments.development!.integrator_oauth.client_secret).toBe('s3cret');
    expect(config.oauth_application_id).toBe(7);
  });

  it('reports every problem at once, each with its path [missing variables and invalid values]', () => {
    const raw = validConfig();
    (raw as Record<string, unknown>).oauth_application_id = 'abc';
    raw.scopes = ['people', 'nonsense'];
    raw.environments.development.integrator_api.allow = [{ method: 'FETCH', path: 'api/x' }];
    raw.environments.development.ui_extensions = ['people.profile.custom_tab'];
    expect(problemsOf(() => parseAddonConfig(raw, { env: {} }))).toEqual([
      'environments.development.integrator_oauth.client_id: environment variable INTEGRATOR_CLIENT_ID is not set',
      'environments.development.integrator_oauth.client_secret: environment variable INTEGRATOR_CLIENT_SECRET is not set',
      'oauth_application_id: must be a positive integer',
      'scopes.1: Invalid option: expected one of "api"|"calendar"|"check_ins"|"giving"|"groups"|"home"|"people"|"publishing"|"registrations"|"services"|"webhooks"|"openid"',
      'environments.development.integrator_api.allow.0.method: Invalid option: expected one of "GET"|"HEAD"|"POST"|"PUT"|"PATCH"|"DELETE"',
      'environments.development.integrator_api.allow.0.path: must be a path template such as /api/messages/:id',
      'environments.development.ui_extensions.0: people.profile.custom_tab is not declared under ui_extensions',
    ]);
  });

  it('requires https outside development and an empty organization_ids in development [environment rules]', () => {
    const raw = validConfig();
    raw.environments.development.organization_ids = [3] as never;
    (raw.environments as Record<string, unknown>).beta = {
      ...structuredClone(raw.environments.development),
      organization_ids: [3],
    };
    // An upper-case scheme is still plain HTTP.
    const beta = (raw.environments as Record<string, { integrator_api: { base_url: string } }>).beta!;
    beta.integrator_api.base_url = beta.integrator_api.base_url.replace(/^http:/, 'HTTP:');
    const problems = problemsOf(() => parseAddonConfig(raw, { env }));
    expect(problems).toEqual([
      'environments.development.organization_ids: must be empty: development is visible to the owning organization only',
      'environments.beta.integrator_oauth.authorize_url: must be an https URL outside development',
      'environments.beta.integrator_oauth.token_url: must be an https URL outside development',
      'environments.beta.integrator_oauth.redirect_url: must be an https URL outside development',
      'environments.beta.integrator_api.base_url: must be an https URL outside development',
    ]);
  });

  it('accepts declared ui_origins, http ones in development only, and defaults them to none [ui_origins]', () => {
    const raw = validConfig();
    expect(parseAddonConfig(raw, { env }).environments.development!.ui_origins).toEqual([]);
    (raw.environments.development as Record<string, unknown>).ui_origins = [
      'https://cdn.example',
      'http://localhost:4000',
      'https://img.example:8443',
    ];
    expect(parseAddonConfig(raw, { env }).environments.development!.ui_origins).toEqual([
      'https://cdn.example',
      'http://localhost:4000',
      'https://img.example:8443',
    ]);
  });

  it('reports every ui_origins entry that is not an origin, or not https outside development [ui_origins]', () => {
    const raw = validConfig();
    const origins = [
      'https://cdn.example/',
      'https://cdn.example/img',
      'HTTPS://CDN.EXAMPLE',
      'https://*.example',
      'ftp://cdn.example',
      'cdn.example',
      'https://u@cdn.example',
      'https://[::1]',
      'http://cdn.example',
    ];
    (raw.environments.development as Record<string, unknown>).ui_origins = origins;
    (raw.environments as Record<string, unknown>).production = {
      ...structuredClone(raw.environments.development),
      integrator_oauth: {
        ...raw.environments.development.integrator_oauth,
        authorize_url: 'https://i.example/a',
        token_url: 'https://i.example/t',
        redirect_url: 'https://i.example/c',
      },
      integrator_api: { base_url: 'https://i.example', allow: [{ method: 'GET', path: '/api' }] },
    };
    const notOrigin = 'must be an origin such as https://cdn.example.com (scheme, host and port only)';
    const bad = origins.slice(0, -1).map((_, i) => i);
    expect(problemsOf(() => parseAddonConfig(raw, { env }))).toEqual([
      ...bad.map((i) => `environments.development.ui_origins.${i}: ${notOrigin}`),
      ...bad.map((i) => `environments.production.ui_origins.${i}: ${notOrigin}`),
      'environments.production.ui_origins.8: must be an https URL outside development',
    ]);
  });

  it('accepts an optional webhook_url, https only outside development, and moves it with the integrator [webhook_url]', () => {
    const raw = validConfig();
    expect(parseAddonConfig(raw, { env }).environments.development!.webhook_url).toBeUndefined();
    (raw.environments.development as Record<string, unknown>).webhook_url = 'http://localhost:4100/webhooks/addon-kit';
    const config = parseAddonConfig(raw, { env });
    expect(config.environments.development!.webhook_url).toBe('http://localhost:4100/webhooks/addon-kit');
    expect(withIntegratorAt(config, 'development', 'http://127.0.0.1:4200').environments.development!.webhook_url).toBe(
      'http://127.0.0.1:4200/webhooks/addon-kit',
    );

    const beta = structuredClone(raw.environments.development) as Record<string, unknown>;
    for (const key of ['integrator_oauth', 'integrator_api'] as const) {
      beta[key] = JSON.parse(JSON.stringify(beta[key]).replaceAll('http://', 'https://')) as unknown;
    }
    (raw.environments as Record<string, unknown>).beta = beta;
    expect(problemsOf(() => parseAddonConfig(raw, { env }))).toEqual([
      'environments.beta.webhook_url: must be an https URL outside development',
    ]);
    beta.webhook_url = 'https://integrator.example/webhooks/addon-kit';
    expect(parseAddonConfig(raw, { env }).environments.beta!.webhook_url).toBe(
      'https://integrator.example/webhooks/addon-kit',
    );
    for (const bad of ['not a url', 'ftp://integrator.example/hooks', 42]) {
      beta.webhook_url = bad;
      expect(problemsOf(() => parseAddonConfig(raw, { env }))).toEqual([
        'environments.beta.webhook_url: must be an http(s) URL',
      ]);
    }
  });

  it('refuses . and .. segments in integrator_api path templates [templates]', () => {
    const raw = validConfig();
    raw.environments.development.integrator_api.allow = [
      { method: 'GET', path: '/api/../admin' },
      { method: 'GET', path: '/api/./x' },
      { method: 'GET', path: '/api/.well-known/x' },
    ];
    expect(problemsOf(() => parseAddonConfig(raw, { env }))).toEqual([
      'environments.development.integrator_api.allow.0.path: must not contain a . or .. segment',
      'environments.development.integrator_api.allow.1.path: must not contain a . or .. segment',
    ]);
  });

  it("keeps only the selected environment and ignores the others' variables [only]", () => {
    const raw = validConfig();
    (raw.environments as Record<string, unknown>).production = {
      ...structuredClone(raw.environments.development),
      integrator_oauth: { ...raw.environments.development.integrator_oauth, client_secret: '${PROD_SECRET}' },
    };
    const config = parseAddonConfig(raw, { env, only: 'development' });
    expect(Object.keys(config.environments)).toEqual(['development']);
    expect(problemsOf(() => parseAddonConfig(raw, { env, only: 'beta' }))).toEqual([
      'environments.beta: is not defined',
      'environments: must define at least one of development, beta, production',
    ]);
  });

  it('refuses unknown members [strict]', () => {
    const raw = { ...validConfig(), extra: true };
    expect(problemsOf(() => parseAddonConfig(raw, { env }))).toEqual(['(config): Unrecognized key: "extra"']);
  });

  it('reports a JSON syntax error as one problem [text]', () => {
    expect(problemsOf(() => parseAddonConfigText('{"oauth_application_id": ', { env }))[0]).toMatch(
      /^\(file\): not valid JSON: /,
    );
  });
});

describe('addon.config.json', () => {
  it('is a valid config once the development variables are set [sample]', async () => {
    const text = await readFile(new URL('../../../addon.config.json', import.meta.url), 'utf8');
    const config = parseAddonConfigText(text, { env });
    expect(config.oauth_application_id).toBe(12);
    expect(config.environments.development!.integrator_api.allow).toContainEqual({
      method: 'POST',
      path: '/api/messages',
    });
    expect(config.environments.development!.ui_origins).toEqual([]);
    expect(config.environments.development!.webhook_url).toBe('http://localhost:4100/webhooks/addon-kit');
  });

  it('names the missing variables [no environment]', async () => {
    const text = await readFile(new URL('../../../addon.config.json', import.meta.url), 'utf8');
    expect(problemsOf(() => parseAddonConfigText(text, { env: {} })).slice(0, 3)).toEqual([
      'oauth_application_id: environment variable ADDON_OAUTH_APPLICATION_ID is not set',
      'environments.development.integrator_oauth.client_id: environment variable INTEGRATOR_CLIENT_ID is not set',
      'environments.development.integrator_oauth.client_secret: environment variable INTEGRATOR_CLIENT_SECRET is not set',
    ]);
  });
});
