/** The OAuth scopes the host grants, and how the consent page names them. */
import { SCOPES, type Scope } from '../auth/require-scope.ts';

export { SCOPES, type Scope };

/** What each scope lets an application do, in words, for the consent page. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
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
  openid: 'Know who you are: your name, e-mail address and organization',
};

/** True for a scope of the spec's list. */
export function isKnownScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
