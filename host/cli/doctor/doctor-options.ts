/** What the doctor needs to know, read from the add-on config by the CLI. */
import type { Environment } from '../../addons/index.ts';

/** An allow-listed integrator API route, as in the add-on config's `integrator_api.allow`. */
export interface ApiRoute {
  method: string;
  path: string;
}

/** The doctor's inputs. */
export interface DoctorOptions {
  /** The config environment: outside `development` every URL must be https. */
  environment: Environment;
  /** `integrator_oauth.authorize_url`. */
  authorizeUrl: string;
  /** `integrator_oauth.token_url`. */
  tokenUrl: string;
  /** `integrator_oauth.redirect_url`: the integrator's completion endpoint (step 2). */
  completionUrl: string;
  /** `integrator_api.base_url`. */
  apiBaseUrl: string;
  /** `webhook_url`, when the environment declares one (the add-on lifecycle events' receiver). */
  webhookUrl?: string;
  clientId: string;
  clientSecret: string;
  /** The host's step-5 callback, `{host}/addons/authorizations/{oauth_application_id}`. */
  redirectUri: string;
  /** Where step 2 must send the person: `{host}/addons/authorizations/{oauth_application_id}/advance`. */
  advanceUrl: string;
  /** Space-separated scopes to request (default: none, the server's default). */
  scope?: string;
  /** A test user of the integrator: lets the doctor sign in and consent with plain form posts. */
  login?: { username: string; password: string };
  /** `integrator_api.allow`; the read routes (GET, HEAD) without path parameters are called. Default GET /api/messages. */
  apiRoutes?: ApiRoute[];
  /** Per-request time limit, ms (default 10 000). */
  timeoutMs?: number;
}
