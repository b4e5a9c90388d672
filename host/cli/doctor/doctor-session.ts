/**
 * One doctor run: the HTTP client (cookies kept per origin, no automatic redirects, a time limit), token
 * requests authenticated the way the host authenticates, and the rows recorded so far.
 */
import { randomBytes } from 'node:crypto';
import { CookieJar } from './cookie-jar.ts';
import {
  CheckFailed,
  DOCTOR_CHECKS,
  type DoctorCheck,
  type DoctorCheckId,
  type DoctorStatus,
} from './doctor-checks.ts';
import type { DoctorOptions } from './doctor-options.ts';

/** What a check function returns: a pass by default, or the status it decided, with a value for later checks. */
export interface CheckOutcome<T> {
  detail: string;
  status?: DoctorStatus;
  fix?: string;
  value?: T;
}

/** Client credentials of a token request. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** A response whose body was read: the parsed JSON object (when it was one) and the raw text. */
export interface ReadResponse {
  res: Response;
  text: string;
  json: Record<string, unknown> | undefined;
}

/** A random value for codes, states and tokens the doctor makes up. */
export const made = (prefix: string): string => `${prefix}-${randomBytes(8).toString('hex')}`;

export class DoctorSession {
  private readonly jar = new CookieJar();
  private readonly rows = new Map<DoctorCheckId, DoctorCheck>();
  readonly timeoutMs: number;

  constructor(readonly options: DoctorOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** fetch with the cookie jar, no automatic redirects and the time limit. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
    this.jar.store(url, res);
    return res;
  }

  /** Follows same-origin GET redirects (e.g. to a login page); stops at a page or a redirect to another origin. */
  async follow(url: string): Promise<{ res: Response; url: string }> {
    let current = url;
    for (let i = 0; i < 5; i++) {
      const res = await this.request(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url: current };
      const next = new URL(location, current);
      if (next.origin !== new URL(current).origin || next.toString().startsWith(this.options.redirectUri))
        return { res, url: current };
      await res.body?.cancel();
      current = next.toString();
    }
    throw new CheckFailed('too many redirects', 'The authorize page redirects in a loop; check its login redirect.');
  }

  /** POSTs a form. */
  postForm(url: string, fields: URLSearchParams): Promise<Response> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
    });
  }

  /**
   * POSTs to token_url as the host does: client_id and client_secret in the form body (client_secret_post,
   * RFC 6749 §2.3.1), unless `basic` asks for HTTP Basic (used only to explain a refusal).
   */
  async postToken(
    params: Record<string, string>,
    credentials: Partial<ClientCredentials> = {},
    basic = false,
  ): Promise<ReadResponse> {
    const clientId = credentials.clientId ?? this.options.clientId;
    const clientSecret = credentials.clientSecret ?? this.options.clientSecret;
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const body = new URLSearchParams(params);
    if (basic) {
      const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      body.set('client_id', clientId);
      body.set('client_secret', clientSecret);
    }
    return read(await this.request(this.options.tokenUrl, { method: 'POST', headers, body }));
  }

  /** Runs one check and records its row; a thrown CheckFailed or network error is a failure. */
  async run<T>(id: DoctorCheckId, fn: () => Promise<CheckOutcome<T>>): Promise<T | undefined> {
    try {
      const outcome = await fn();
      const status = outcome.status ?? 'pass';
      this.rows.set(id, {
        id,
        status,
        detail: outcome.detail,
        ...(status !== 'pass' && outcome.fix ? { fix: outcome.fix } : {}),
      });
      return outcome.value;
    } catch (error) {
      if (error instanceof CheckFailed)
        this.rows.set(id, { id, status: 'fail', detail: error.message, fix: error.fix });
      else if (isNetworkError(error)) {
        const fix = 'Start the integrator and check the URL in the add-on config.';
        this.rows.set(id, { id, status: 'fail', detail: describeNetworkError(error), fix });
      } else {
        const detail = `unreadable answer (${error instanceof Error ? error.message : 'unknown error'})`;
        this.rows.set(id, {
          id,
          status: 'fail',
          detail,
          fix: 'Answer as RFC 6749 describes: valid URLs in Location, JSON token responses.',
        });
      }
      return undefined;
    }
  }

  /** Records a check that could not run. */
  skip(id: DoctorCheckId, detail: string, fix: string): undefined {
    this.rows.set(id, { id, status: 'skip', detail, fix });
    return undefined;
  }

  /** The rows in the table's order. */
  results(): DoctorCheck[] {
    return (Object.keys(DOCTOR_CHECKS) as DoctorCheckId[]).flatMap((id) => this.rows.get(id) ?? []);
  }
}

/** Reads a response's body as text and, when it is a JSON object, parsed. */
export async function read(res: Response): Promise<ReadResponse> {
  const text = await res.text();
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { res, text, json };
}

/** Fields whose values are secrets: never printed. */
const TOKEN_FIELD = /^(access_?token|refresh_?token|id_?token|token)$/i;

/** A short quote of a body for the table, token values replaced by `…`. */
export function quote(r: ReadResponse): string {
  const hideTokens = (key: string, value: unknown) =>
    TOKEN_FIELD.test(key) && typeof value === 'string' ? '…' : value;
  const text = r.json ? JSON.stringify(r.json, hideTokens) : r.text.replace(/\s+/g, ' ').trim();
  return text.length > 120 ? `${text.slice(0, 117)}...` : text || '(empty body)';
}

/** A failed connection or a timeout (fetch's TypeError with a cause, or the time limit's abort). */
function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'TimeoutError' ||
    (error instanceof TypeError && (error as Error & { cause?: unknown }).cause !== undefined)
  );
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    if (error.name === 'TimeoutError') return 'timed out';
    return cause?.code ? `cannot connect (${cause.code})` : error.message;
  }
  return 'unknown error';
}
