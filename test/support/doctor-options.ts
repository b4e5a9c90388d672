/** The doctor's options for a template integrator, as `addon-kit doctor --env development` builds them from the sample config. */
import type { DoctorOptions } from '#host/cli/doctor/run-doctor.ts';
import { APP_ID, CLIENT_ID, CLIENT_SECRET, HOST_BASE_URL, REDIRECT_URI, USER } from '#integrator/test/support.ts';

/** The doctor's options for the template integrator at `url`, as the CLI builds them from the sample config. */
export function optionsFor(url: string, overrides: Partial<DoctorOptions> = {}): DoctorOptions {
  return {
    environment: 'development',
    authorizeUrl: `${url}/oauth/authorize`,
    tokenUrl: `${url}/oauth/token`,
    completionUrl: `${url}/addon/complete`,
    apiBaseUrl: url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: REDIRECT_URI,
    advanceUrl: `${HOST_BASE_URL}/addons/authorizations/${APP_ID}/advance`,
    scope: 'messages',
    login: { username: USER.username, password: USER.password },
    apiRoutes: [
      { method: 'GET', path: '/api/messages' },
      { method: 'POST', path: '/api/messages' },
    ],
    ...overrides,
  };
}
