/** The OAuth scopes the host grants, and how the consent page names them. */
import { SCOPES, type Scope } from '../auth/require-scope.ts';

export { SCOPES, type Scope };

/**
 * Scopes of the host itself, beyond the spec's: `addons` lets the addon-kit CLI register and develop the add-ons of
 * the signed-in organization administrator's organization (`/addons/v1`). Only the platform's own clients may ask
 * for them (client-adapter.ts lists each client's allowed scopes).
 */
export const HOST_SCOPES = ['addons'] as const;
/** A scope of the host only. */
export type HostScope = (typeof HOST_SCOPES)[number];
/** The scope the add-on registry accepts an OAuth access token with. */
export const ADDONS_SCOPE: HostScope = 'addons';
/** Every scope the OAuth server knows: the spec's and the host's own. */
export const PROVIDER_SCOPES: readonly string[] = [...SCOPES, ...HOST_SCOPES];

/** What each scope lets an application do, in words, for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<Scope | HostScope, string> = {
  addons: 'Register and develop the add-ons of your organization (as an organization administrator)',
  api: 'Read your organization’s developer account: connected applications, OAuth applications and personal access tokens',
  calendar: 'Use Calendar on your behalf',
  check_ins: 'Use Check-Ins on your behalf',
  giving: 'Use Giving on your behalf',
  groups: 'Use Groups on your behalf',
  home: 'Use Home on your behalf',
  people: 'Read and change People records you have access to: profiles, lists and notes',
  publishing: 'Use Publishing on your behalf',
  registrations: 'Use Registrations on your behalf',
  services: 'Use Services on your behalf',
  webhooks: 'Subscribe to changes of the People records you may see, delivered to a URL you choose',
  openid: 'Know who you are: your name, e-mail address and organization',
};

/** True for a scope of the spec's list. */
export function isKnownScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** True for any scope the OAuth server knows (the spec's and the host's own). */
export function isProviderScope(value: string): value is Scope | HostScope {
  return PROVIDER_SCOPES.includes(value);
}
