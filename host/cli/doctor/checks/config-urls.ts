/**
 * config.urls: every URL of the environment's config parses, its host name resolves, and it uses https
 * outside development (the host refuses plain http there).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { CheckFailed } from '../doctor-checks.ts';
import type { DoctorSession } from '../doctor-session.ts';

export async function checkConfigUrls(session: DoctorSession): Promise<void> {
  const { options } = session;
  const urls: [string, string][] = [
    ['integrator_oauth.authorize_url', options.authorizeUrl],
    ['integrator_oauth.token_url', options.tokenUrl],
    ['integrator_oauth.redirect_url', options.completionUrl],
    ['integrator_api.base_url', options.apiBaseUrl],
    ...(options.webhookUrl !== undefined ? [['webhook_url', options.webhookUrl] as [string, string]] : []),
  ];
  await session.run('config.urls', async () => {
    const problems: string[] = [];
    const resolved = new Map<string, Promise<string | undefined>>();
    for (const [name, value] of urls) {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        problems.push(`${name} is not a URL`);
        continue;
      }
      if (options.environment !== 'development' && url.protocol !== 'https:')
        problems.push(`${name} uses ${url.protocol.slice(0, -1)}`);
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (!resolved.has(host)) resolved.set(host, isIP(host) ? Promise.resolve(undefined) : resolves(host));
      const failure = await resolved.get(host);
      if (failure) problems.push(`${name}: ${host} does not resolve (${failure})`);
    }
    if (problems.length > 0) {
      throw new CheckFailed(
        problems.join('; '),
        `Use https URLs outside development whose host names resolve (${options.environment} config).`,
      );
    }
    return {
      detail: `${urls.length} URLs resolve${options.environment === 'development' ? ' (http allowed in development)' : ', all https'}`,
    };
  });
}

/** Undefined when `host` resolves; the error code otherwise. */
async function resolves(host: string): Promise<string | undefined> {
  try {
    await lookup(host);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code ?? 'lookup failed';
  }
}
