/**
 * An environment of an add-on config with its integrator moved to another base URL: the OAuth endpoints, the
 * completion URL, the API base and the lifecycle `webhook_url` keep their paths on the new origin. `start` moves the sample add-on onto the
 * template integrator it started; `addon-kit addon push|dev|doctor --integrator URL` point a development version at
 * another integrator (a scaffolded one) without editing the config.
 */
import type { AddonConfig, Environment } from './config.ts';

/** `url` with its origin (and any base path) replaced by `base`; path and query kept. */
export function moveOnto(url: string, base: string): string {
  const root = base.replace(/\/+$/, '');
  const { pathname, search } = new URL(url);
  return `${root}${pathname === '/' ? '' : pathname}${search}`;
}

/** The config with `environment`'s integrator URLs moved onto `base` (other environments untouched). */
export function withIntegratorAt(config: AddonConfig, environment: Environment, base: string): AddonConfig {
  const settings = config.environments[environment];
  if (!settings) return config;
  const oauth = settings.integrator_oauth;
  return {
    ...config,
    environments: {
      ...config.environments,
      [environment]: {
        ...settings,
        integrator_oauth: {
          ...oauth,
          authorize_url: moveOnto(oauth.authorize_url, base),
          token_url: moveOnto(oauth.token_url, base),
          redirect_url: moveOnto(oauth.redirect_url, base),
        },
        integrator_api: { ...settings.integrator_api, base_url: moveOnto(settings.integrator_api.base_url, base) },
        ...(settings.webhook_url ? { webhook_url: moveOnto(settings.webhook_url, base) } : {}),
      },
    },
  };
}
