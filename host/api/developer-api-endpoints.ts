/** Every endpoint of the developer-account API, in the order the reference lists them. */
import { connectedApplicationEndpoints } from './connected-applications.ts';
import type { Endpoint } from './endpoint.ts';
import { oauthApplicationEndpoints } from './oauth-applications.ts';
import { organizationEndpoints } from './organization.ts';
import { personalAccessTokenEndpoints } from './personal-access-tokens.ts';

/** The router mounts these and the OpenAPI document describes them: one list, no drift. */
export const developerApiEndpoints: readonly Endpoint[] = [
  ...organizationEndpoints,
  ...connectedApplicationEndpoints,
  ...oauthApplicationEndpoints,
  ...personalAccessTokenEndpoints,
];
