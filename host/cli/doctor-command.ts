/**
 * `addon-kit doctor --env E`: checks a running integrator against what the handshake needs, using
 * the add-on config's URLs and credentials, and prints a pass/fail table with the fix for each failure.
 */
import { resolve } from 'node:path';
import { DEVELOPMENT_DEFAULTS } from '@addon-kit/integrator-template';
import { runDoctor } from './doctor/run-doctor.ts';
import { loadProjectConfig } from './addon-application.ts';
import { ConfigFileError, environment, printConfigFileError } from './addon-config-file.ts';
import { hostUrl } from './host-url.ts';
import { parse, UsageError } from './args.ts';
import { DOCTOR_FORM } from './command-specs.ts';
import type { CommandIo } from './io.ts';

export async function doctorCommand(
  argv: string[],
  io: CommandIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const { values } = parse(argv, DOCTOR_FORM.options);
  const target = environment(values.env, '--env');
  if ((values.username === undefined) !== (values.password === undefined))
    throw new UsageError('--username and --password go together');
  const configPath = resolve(values.config ?? 'addon.config.json');
  const host = hostUrl(values.host, env);
  let config;
  try {
    // The application id as `addon dev` remembered it for this host, unless ADDON_OAUTH_APPLICATION_ID is set.
    config = await loadProjectConfig({ host, configPath, target, env, integrator: values.integrator });
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    printConfigFileError(io, error);
    return 1;
  }
  const settings = config.environments[target];
  if (!settings) throw new UsageError(`${configPath} has no ${target} environment`);
  // In development the template integrator's demo user signs in; elsewhere only with explicit flags.
  const login =
    values.username !== undefined
      ? { username: values.username, password: values.password! }
      : target === 'development'
        ? {
            username: DEVELOPMENT_DEFAULTS.user.username,
            password: env.INTEGRATOR_DEMO_PASSWORD || DEVELOPMENT_DEFAULTS.user.password,
          }
        : undefined;
  const json = values.json === true;
  // In JSON mode stdout carries the report only.
  (json ? io.err : io.out)(
    `addon-kit doctor: checking the ${target} integrator at ${new URL(settings.integrator_oauth.token_url).origin}`,
  );
  const redirectUri = `${host}/addons/authorizations/${config.oauth_application_id}`;
  return runDoctor(
    {
      environment: target,
      authorizeUrl: settings.integrator_oauth.authorize_url,
      tokenUrl: settings.integrator_oauth.token_url,
      completionUrl: settings.integrator_oauth.redirect_url,
      apiBaseUrl: settings.integrator_api.base_url,
      ...(settings.webhook_url ? { webhookUrl: settings.webhook_url } : {}),
      clientId: settings.integrator_oauth.client_id,
      clientSecret: settings.integrator_oauth.client_secret,
      redirectUri,
      advanceUrl: `${redirectUri}/advance`,
      scope: settings.integrator_oauth.scopes.join(' '),
      apiRoutes: settings.integrator_api.allow.map((a) => ({ method: a.method, path: a.path })),
      ...(login ? { login } : {}),
    },
    { write: (s: string) => io.out(s.replace(/\n$/, '')) },
    json ? 'json' : 'table',
  );
}
