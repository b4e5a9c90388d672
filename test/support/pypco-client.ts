/**
 * The requests pypco 1.2.0 (billdeitrick/pypco, `pypco/pco.py`, on python-requests) makes, written from
 * its source, not copied: `User-Agent: pypco`, requests' default `Accept-Encoding`/`Accept`/`Connection`,
 * HTTP Basic (application id + secret) or Bearer; query parameters encoded like `urlencode` (quote_plus);
 * JSON bodies as `json.dumps` writes them; `raise_for_status()` turned into `PCORequestException` with
 * the body text; `iterate()` paging by `offset`/`per_page` until `links` has no `next`, reading `meta`,
 * `links` and — whenever a record has a relationship with data — `included` without checking for them.
 */
import { wireRequest, type WireResponse } from './wire-http.ts';

type Json = Record<string, any>;
/** Keyword arguments passed on as query parameters. */
type Params = Record<string, string | number>;

/** Python's KeyError, raised where pypco indexes a dict with `[...]`. */
export class KeyError extends Error {}

/** pypco's `PCORequestException`: the status, requests' HTTPError message and the response body text. */
export class PCORequestException extends Error {
  constructor(
    readonly status_code: number,
    override readonly message: string,
    readonly response_body: string,
  ) {
    super(message);
  }
}

/** `d[key]` as Python evaluates it: a missing key raises KeyError. */
function key(d: Json, name: string): any {
  if (d === null || typeof d !== 'object' || !(name in d)) throw new KeyError(`'${name}'`);
  return d[name];
}

/** urllib's quote_plus: only letters, digits and `_.-~` stay; a space becomes `+`. */
function quotePlus(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** `json.dumps(value)` with its defaults: `", "` and `": "` separators, non-ASCII escaped. */
export function jsonDumps(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonDumps).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${jsonDumps(k)}: ${jsonDumps(v)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A `pypco.PCO` object: `get`, `post`, `patch`, `delete`, `iterate` and `template`. */
export class Pypco {
  /** Every request made, in order (method and URL). */
  readonly requests: { method: string; url: string }[] = [];
  private readonly authHeader: string;

  constructor(
    private readonly options: { api_base: string; application_id?: string; secret?: string; token?: string },
  ) {
    this.authHeader = options.token
      ? `Bearer ${options.token}`
      : `Basic ${Buffer.from(`${options.application_id}:${options.secret}`).toString('base64')}`;
  }

  private async request(method: string, url: string, payload: unknown, params: Params): Promise<WireResponse> {
    // _do_url_managed_request: prefix api_base, then collapse repeated slashes (not after a colon).
    let full = url.startsWith(this.options.api_base) ? url : `${this.options.api_base}${url}`;
    full = full.replace(/(?<!:)\/{2,}/g, '/');
    const query = Object.entries(params)
      .map(([k, v]) => `${quotePlus(k)}=${quotePlus(String(v))}`)
      .join('&');
    if (query) full += full.includes('?') ? `&${query}` : `?${query}`;
    const headers: [string, string][] = [
      ['User-Agent', 'pypco'],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept', '*/*'],
      ['Connection', 'keep-alive'],
      ['Authorization', this.authHeader],
    ];
    // requests sends `json=None` as no body at all; anything else as JSON with this content type.
    const body = payload === undefined || payload === null ? undefined : jsonDumps(payload);
    if (body !== undefined) headers.push(['Content-Type', 'application/json']);
    this.requests.push({ method, url: full });
    const response = await wireRequest(method, full, headers, body);
    if (response.status >= 400) {
      const kind = response.status < 500 ? 'Client Error' : 'Server Error';
      const message = `${response.status} ${kind}: ${response.reason} for url: ${full}`;
      throw new PCORequestException(response.status, message, response.text);
    }
    return response;
  }

  private async requestJson(method: string, url: string, payload: unknown, params: Params): Promise<Json | null> {
    const response = await this.request(method, url, payload, params);
    return response.status === 204 ? null : (JSON.parse(response.text) as Json);
  }

  get(url: string, params: Params = {}): Promise<Json | null> {
    return this.requestJson('GET', url, undefined, params);
  }

  post(url: string, payload?: Json, params: Record<string, string> = {}): Promise<Json | null> {
    return this.requestJson('POST', url, payload, params);
  }

  patch(url: string, payload?: Json, params: Record<string, string> = {}): Promise<Json | null> {
    return this.requestJson('PATCH', url, payload, params);
  }

  delete(url: string, params: Record<string, string> = {}): Promise<WireResponse> {
    return this.request('DELETE', url, undefined, params);
  }

  /** `PCO.iterate()`: one `{data, included, meta}` record per resource, over every page. */
  async *iterate(url: string, options: { offset?: number; per_page?: number } & Params = {}): AsyncGenerator<Json> {
    const { offset: start = 0, per_page: perPage = 25, ...params } = options;
    let offset = start;
    for (;;) {
      const response = await this.get(url, { offset, per_page: perPage, ...params });
      if (response === null) return;
      for (const cur of key(response, 'data') as Json[]) {
        const record: Json = { data: cur, included: [], meta: {} };
        const meta = key(response, 'meta');
        if ('can_include' in meta) record.meta.can_include = meta.can_include;
        if ('parent' in meta) record.meta.parent = meta.parent;
        if ('relationships' in cur) {
          for (const name of Object.keys(cur.relationships)) {
            const relationships = key(key(cur.relationships, name), 'data');
            if (relationships === null) continue;
            for (const related of Array.isArray(relationships) ? relationships : [relationships]) {
              for (const include of key(response, 'included') as Json[]) {
                if (include.type === related.type && include.id === related.id) record.included.push(include);
              }
            }
          }
        }
        yield record;
      }
      offset += perPage;
      if (!('next' in key(response, 'links'))) break;
    }
  }

  /** `PCO.template()`: the body of a create or update. */
  static template(objectType: string, attributes: Json = {}): Json {
    return { data: { type: objectType, attributes } };
  }
}
