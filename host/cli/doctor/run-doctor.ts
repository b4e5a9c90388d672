/**
 * `addon-kit doctor`: checks a running integrator over HTTP against what the add-on handshake needs,
 * and prints a pass/fail table with the fix for each failure.
 */
import { createHash, randomBytes } from 'node:crypto';

/** What the doctor needs to know, read from the add-on config by the CLI. */
export interface DoctorOptions {
  /** The add-on config's `integrator_oauth.authorize_url`. */
  authorizeUrl: string;
  /** The add-on config's `integrator_oauth.token_url`. */
  tokenUrl: string;
  /** The add-on config's `integrator_api.base_url`. */
  apiBaseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The host's step-5 callback registered with the integrator. */
  redirectUri: string;
  /** Space-separated scopes to request (default: none, the server's default). */
  scope?: string;
  /** A test user of the integrator: lets the doctor sign in and consent with plain form posts. */
  login?: { username: string; password: string };
  /** An API call that must succeed with the issued token (default GET /api/messages). */
  apiCheck?: { method: string; path: string };
  /** Per-request time limit, ms (default 10 000). */
  timeoutMs?: number;
}

/** The outcome of one check. */
export type DoctorStatus = 'pass' | 'fail' | 'skip';

/** One row of the doctor's table. */
export interface DoctorCheck {
  name: string;
  status: DoctorStatus;
  detail: string;
  /** What to change when the check fails or was skipped. */
  fix?: string;
}

/** Keeps cookies per origin the way a browser would for this simple flow. */
class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();
  store(url: string, res: Response): void {
    const jar = this.jars.get(new URL(url).origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/;\s*max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    this.jars.set(new URL(url).origin, jar);
  }
  header(url: string): string | undefined {
    const jar = this.jars.get(new URL(url).origin);
    return jar && jar.size > 0 ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }
}

interface HtmlForm {
  action: string;
  method: string;
  fields: Map<string, string>;
  buttons: { name: string; value: string }[];
  passwordField?: string;
  textField?: string;
}

const attr = (tag: string, name: string): string | undefined => {
  const m = tag.match(new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i'));
  const raw = m ? (m[1] ?? m[2] ?? m[3] ?? '') : undefined;
  return raw?.replace(/&quot;/g, '"').replace(/&#39;|&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
};

/** The first form of a page: its action, hidden fields, submit buttons and login inputs. */
function parseForm(html: string, pageUrl: string): HtmlForm | undefined {
  const open = html.match(/<form\b[^>]*>/i);
  if (!open) return undefined;
  const end = html.indexOf('</form>', open.index!);
  const inner = html.slice(open.index!, end < 0 ? undefined : end);
  const form: HtmlForm = {
    action: new URL(attr(open[0], 'action') ?? pageUrl, pageUrl).toString(),
    method: (attr(open[0], 'method') ?? 'get').toLowerCase(),
    fields: new Map(),
    buttons: [],
  };
  for (const [tag] of inner.matchAll(/<(?:input|button)\b[^>]*>/gi)) {
    const name = attr(tag, 'name');
    const type = (attr(tag, 'type') ?? (tag.toLowerCase().startsWith('<button') ? 'submit' : 'text')).toLowerCase();
    if (!name) continue;
    if (type === 'submit') form.buttons.push({ name, value: attr(tag, 'value') ?? '' });
    else if (type === 'password') form.passwordField ??= name;
    else if (type === 'text' || type === 'email') form.textField ??= name;
    else if (type === 'hidden') form.fields.set(name, attr(tag, 'value') ?? '');
  }
  return form;
}

/** A failed check's reason, carried up to the table. */
class CheckFailed extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

/**
 * Runs the checks against a running integrator, writes the table to `out`, and returns the exit
 * code: 0 when nothing failed, 1 otherwise.
 */
export async function runDoctor(options: DoctorOptions, out: { write(text: string): unknown }): Promise<number> {
  const checks = await collectChecks(options);
  out.write(formatTable(checks));
  return checks.some((c) => c.status === 'fail') ? 1 : 0;
}

/** Runs the checks and returns their results (no output). */
export async function collectChecks(options: DoctorOptions): Promise<DoctorCheck[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const jar = new CookieJar();
  const request = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    jar.store(url, res);
    return res;
  };
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  const postToken = (params: Record<string, string>, authorization = basic) =>
    request(options.tokenUrl, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(params),
    });
  const readJson = async (res: Response): Promise<Record<string, unknown> | undefined> => {
    try {
      const body: unknown = await res.json();
      return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };

  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const authorizeRequest = new URL(options.authorizeUrl);
  authorizeRequest.searchParams.set('response_type', 'code');
  authorizeRequest.searchParams.set('client_id', options.clientId);
  authorizeRequest.searchParams.set('redirect_uri', options.redirectUri);
  authorizeRequest.searchParams.set('state', state);
  authorizeRequest.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
  authorizeRequest.searchParams.set('code_challenge_method', 'S256');
  if (options.scope) authorizeRequest.searchParams.set('scope', options.scope);

  const checks: DoctorCheck[] = [];
  const run = async <T>(name: string, fn: () => Promise<{ detail: string; value?: T }>): Promise<T | undefined> => {
    try {
      const { detail, value } = await fn();
      checks.push({ name, status: 'pass', detail });
      return value;
    } catch (error) {
      if (error instanceof CheckFailed) checks.push({ name, status: 'fail', detail: error.message, fix: error.fix });
      else checks.push({ name, status: 'fail', detail: describeNetworkError(error), fix: 'Start the integrator and check the URL in the add-on config.' });
      return undefined;
    }
  };
  const skip = (name: string, detail: string, fix: string) => checks.push({ name, status: 'skip', detail, fix });

  /** Follows same-origin redirects of GETs until a page or a redirect to the client. */
  const follow = async (url: string): Promise<{ res: Response; url: string }> => {
    let current = url;
    for (let i = 0; i < 5; i++) {
      const res = await request(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      const next = new URL(location, current).toString();
      if (next.startsWith(options.redirectUri)) return { res, url: current };
      current = next;
    }
    throw new CheckFailed('too many redirects', 'The authorize page redirects in a loop; check its login redirect.');
  };

  const authorizePage = await run('authorize page reachable', async () => {
    const { res, url } = await follow(authorizeRequest.toString());
    const location = res.headers.get('location');
    if (location && location.startsWith(options.redirectUri)) {
      const error = new URL(location).searchParams.get('error');
      throw new CheckFailed(`redirected back with error=${error}`, 'Register the client_id, redirect URI and scopes of the add-on config with the integrator.');
    }
    if (res.status !== 200 || !(res.headers.get('content-type') ?? '').includes('text/html')) {
      throw new CheckFailed(`GET answered ${res.status} ${res.headers.get('content-type') ?? ''}`.trim(), fixForAuthorizeStatus(res.status));
    }
    const html = await res.text();
    return { detail: `${res.status} HTML page at ${new URL(url).pathname}`, value: { html, url } };
  });

  await run('token endpoint refuses a bad code', async () => {
    const res = await postToken({ grant_type: 'authorization_code', code: `doctor-${randomBytes(8).toString('hex')}`, redirect_uri: options.redirectUri, code_verifier: verifier });
    const body = await readJson(res);
    if (res.status === 401 && body?.error === 'invalid_client') {
      throw new CheckFailed('401 invalid_client for the configured credentials', 'The client_id/client_secret of the add-on config are not registered with the integrator.');
    }
    if (res.status !== 400 || body?.error !== 'invalid_grant') {
      throw new CheckFailed(`answered ${res.status} ${JSON.stringify(body ?? null)}`, 'An unknown code must get 400 {"error":"invalid_grant"} (RFC 6749 §5.2).');
    }
    return { detail: '400 invalid_grant' };
  });

  await run('token endpoint refuses bad client credentials', async () => {
    const wrong = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(`${options.clientSecret}-wrong`)}`).toString('base64')}`;
    const res = await postToken({ grant_type: 'authorization_code', code: 'doctor-bad-credentials', redirect_uri: options.redirectUri, code_verifier: verifier }, wrong);
    const body = await readJson(res);
    if (res.status !== 401 || body?.error !== 'invalid_client') {
      throw new CheckFailed(`answered ${res.status} ${JSON.stringify(body ?? null)}`, 'A wrong client secret must get 401 {"error":"invalid_client"} (RFC 6749 §5.2).');
    }
    if (!/^Basic\b/i.test(res.headers.get('www-authenticate') ?? '')) {
      throw new CheckFailed('401 without WWW-Authenticate: Basic', 'A 401 for Basic client authentication must carry WWW-Authenticate (RFC 6749 §5.2).');
    }
    return { detail: '401 invalid_client with WWW-Authenticate' };
  });

  let tokens: { access_token: string; refresh_token?: string } | undefined;
  if (!authorizePage) {
    skip('issues tokens', 'the authorize page was not reachable', 'Fix the authorize page first.');
  } else if (!options.login) {
    skip('issues tokens', 'no test login given', 'Give the doctor a test user of the integrator to sign in with.');
  } else {
    const login = options.login;
    tokens = await run('issues tokens', async () => {
      let page = authorizePage;
      let form = parseForm(page.html, page.url);
      if (form?.passwordField) {
        const fields = new URLSearchParams([...form.fields]);
        fields.set(form.textField ?? 'username', login.username);
        fields.set(form.passwordField, login.password);
        const res = await request(form.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields });
        const location = res.headers.get('location');
        if (res.status < 300 || res.status >= 400 || !location) {
          throw new CheckFailed(`login answered ${res.status}`, 'Check the test user name and password given to the doctor.');
        }
        const next = await follow(new URL(location, form.action).toString());
        if (next.res.status !== 200) throw new CheckFailed(`after login the authorize page answered ${next.res.status}`, 'After login, return the user to the authorize request.');
        page = { html: await next.res.text(), url: next.url };
        form = parseForm(page.html, page.url);
      }
      const allow = form?.buttons.find((b) => /^(allow|approve|accept|yes)$/i.test(b.value)) ?? form?.buttons[0];
      if (!form || form.method !== 'post' || !allow) {
        throw new CheckFailed('no consent form found', 'The authorize page must show a form that POSTs the decision back.');
      }
      const fields = new URLSearchParams([...form.fields]);
      fields.set(allow.name, allow.value);
      const res = await request(form.action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields });
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location || !location.startsWith(options.redirectUri)) {
        throw new CheckFailed(`consent answered ${res.status} ${location ?? ''}`.trim(), 'POST /oauth/authorize must redirect to the exact redirect_uri with code and state.');
      }
      const back = new URL(location);
      if (back.searchParams.get('state') !== state) throw new CheckFailed('state was not returned unchanged', 'Return the state parameter exactly as received (RFC 6749 §4.1.2).');
      const code = back.searchParams.get('code');
      if (!code) throw new CheckFailed(`no code: error=${back.searchParams.get('error')}`, 'POST /oauth/authorize must redirect with a code.');
      const tokenRes = await postToken({ grant_type: 'authorization_code', code, redirect_uri: options.redirectUri, code_verifier: verifier });
      const body = await readJson(tokenRes);
      if (tokenRes.status !== 200 || typeof body?.access_token !== 'string') {
        throw new CheckFailed(`code exchange answered ${tokenRes.status} ${JSON.stringify(body ?? null)}`, 'The token endpoint must exchange a fresh code (with PKCE S256) for an access_token.');
      }
      if (String(body.token_type).toLowerCase() !== 'bearer') throw new CheckFailed(`token_type ${String(body.token_type)}`, 'Return token_type "Bearer" (RFC 6750).');
      const refresh = typeof body.refresh_token === 'string' ? body.refresh_token : undefined;
      return {
        detail: `access_token${refresh ? ' + refresh_token' : ''}${typeof body.expires_in === 'number' ? `, expires_in ${body.expires_in}` : ''}`,
        value: { access_token: body.access_token, ...(refresh ? { refresh_token: refresh } : {}) },
      };
    });
  }

  let accessToken = tokens?.access_token;
  if (!tokens) skip('refresh works', 'no tokens were issued', 'Fix token issuance first.');
  else if (!tokens.refresh_token) skip('refresh works', 'no refresh_token issued (optional)', 'Issue refresh tokens if access tokens expire.');
  else {
    const refreshToken = tokens.refresh_token;
    const refreshed = await run('refresh works', async () => {
      const res = await postToken({ grant_type: 'refresh_token', refresh_token: refreshToken });
      const body = await readJson(res);
      if (res.status !== 200 || typeof body?.access_token !== 'string') {
        throw new CheckFailed(`answered ${res.status} ${JSON.stringify(body ?? null)}`, 'grant_type=refresh_token must return a new access_token (RFC 6749 §6).');
      }
      return { detail: `new access_token${typeof body.refresh_token === 'string' && body.refresh_token !== refreshToken ? ', refresh_token rotated' : ''}`, value: body.access_token };
    });
    if (refreshed) accessToken = refreshed;
  }

  if (!accessToken) skip('API accepts the token', 'no access token', 'Fix token issuance first.');
  else {
    const token = accessToken;
    await run('API accepts the token', async () => {
      const check = options.apiCheck ?? { method: 'GET', path: '/api/messages' };
      const url = new URL(check.path, options.apiBaseUrl.replace(/\/?$/, '/')).toString();
      const res = await request(url, { method: check.method, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
      if (res.status < 200 || res.status >= 300) {
        throw new CheckFailed(`${check.method} ${check.path} answered ${res.status}`, 'The API must accept access tokens from the integrator’s own token endpoint.');
      }
      return { detail: `${check.method} ${check.path} ${res.status}` };
    });
  }
  return checks;
}

function fixForAuthorizeStatus(status: number): string {
  if (status === 404) return 'authorize_url in the add-on config does not point at the integrator’s authorize page.';
  if (status === 400) return 'The integrator refused the request: register the client_id and the exact redirect URI.';
  return 'GET authorize_url must answer with an HTML login or consent page.';
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    if (error.name === 'TimeoutError') return 'timed out';
    return cause?.code ? `cannot connect (${cause.code})` : error.message;
  }
  return 'unknown error';
}

/** The checks as a plain-text table: check, result, detail, fix. */
export function formatTable(checks: DoctorCheck[]): string {
  const rows = [['Check', 'Result', 'Detail', 'Fix'], ...checks.map((c) => [c.name, c.status.toUpperCase(), c.detail, c.status === 'pass' ? '' : (c.fix ?? '')])];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ').trimEnd();
  const failed = checks.filter((c) => c.status === 'fail').length;
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  ') + '  ---', ...rows.slice(1).map(line), '', failed === 0 ? 'All checks passed.' : `${failed} check(s) failed.`, ''].join('\n');
}
