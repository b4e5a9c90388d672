/**
 * The requests Planning Center's official JavaScript client (@planningcenter/api-client 3.1.0,
 * planningcenter/js-api-client: `src/client.js`, `requestHelpers.js`, `transformRequestData.js`,
 * `transformResponse.js`) makes from a browser, written from its source, not copied. It sends
 * `X-PCO-API-Version` when a version is configured, `X-CSRF-Token`, `Content-Type:
 * application/json;charset=UTF-8` on every request (and the JSON of its `data` argument as the body,
 * which XMLHttpRequest drops for GET); `per_page=100` unless told; query keys like `fields[Note]`
 * percent-encoded by urijs; with `walk: true` it follows `links.next` (re-parsing its query) and
 * concatenates `data` and `included` of every page; a non-2xx answer rejects with the parsed body.
 * The browser adds User-Agent, Accept and (on writes) Origin.
 */
import { wireRequest } from './wire-http.ts';

type Json = Record<string, any>;

/** A Chromium User-Agent: the client runs in the browser and cannot set its own. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object';

/** urijs `URI.encodeQuery`: strict encodeURIComponent, space as `+`. */
const encodeQuery = (s: string) =>
  encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/** urijs `URI.buildQuery`: keys in insertion order, `undefined` values left out. */
function buildQuery(query: Json): string {
  return Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => (v === null ? encodeQuery(k) : `${encodeQuery(k)}=${encodeQuery(String(v))}`))
    .join('&');
}

/** urijs `URI(url).query(true)`: the query string as an object of decoded values. */
function parseQuery(url: string): Json {
  const at = url.indexOf('?');
  const out: Json = {};
  if (at === -1) return out;
  for (const pair of url
    .slice(at + 1)
    .split('&')
    .filter(Boolean)) {
    const eq = pair.indexOf('=');
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, '%20'));
    out[decode(eq === -1 ? pair : pair.slice(0, eq))] = eq === -1 ? null : decode(pair.slice(eq + 1));
  }
  return out;
}

const toSnake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const toCamel = (s: string) => s.replace(/(_[a-z])/g, (m) => m.toUpperCase().replace('_', ''));

/** `keysToCamelCase` / `keysToSnakeCase`: every key of a tree renamed. */
function renameKeys(value: unknown, rename: (k: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, rename));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), renameKeys(v, rename)]));
}

/** `fields[Type]`, `where[attr]` from nested objects; arrays joined with commas. */
function flatten(obj: unknown, key: string): Json {
  if (!isObject(obj)) return { [key]: obj };
  const out: Json = {};
  for (const [attr, value] of Object.entries(obj)) {
    if (Array.isArray(value)) out[`${key}[${attr}]`] = value.join(',');
    else if (isObject(value)) Object.assign(out, flatten(value, `${key}[${attr}]`));
    else out[`${key}[${attr}]`] = value;
  }
  return out;
}

/** `transformRequestData`: the query object of a GET (per_page 100 unless given). */
export function transformRequestData({ fields, where, config, include, walk: _walk, ...rest }: Json): Json {
  return {
    ...flatten(fields, 'fields'),
    ...flatten(where, 'where'),
    ...flatten(config, 'config'),
    ...(renameKeys({ perPage: 100, ...rest }, toSnake) as Json),
    include: Array.isArray(include) ? include.join(',') : include,
  };
}

const transformId = (id: string) => (String(parseInt(id, 10)) === id ? parseInt(id, 10) : id);

/** `transformRecord`: flat attributes, `<rel>_id`/`<rel>_type` keys and the included records they name. */
function transformRecord(record: Json, included: Json[] | undefined): Json {
  const { id, attributes, links, relationships, type } = record;
  const out: Json = { id: transformId(id), type, links };
  for (const [name, rel] of Object.entries((relationships ?? {}) as Json)) {
    if (Array.isArray(rel.data)) {
      // pluralize reduced to the English -s our relationship names need.
      out[`${name.replace(/s$/, '')}_ids`] = rel.data.map((r: Json) => transformId(r.id));
    } else {
      out[`${name}_id`] = rel.data?.id ? transformId(rel.data.id) : null;
      out[`${name}_type`] = rel.data?.type ?? null;
    }
  }
  for (const [k, v] of Object.entries((attributes ?? {}) as Json)) {
    out[k === 'length' ? `${type[0].toLowerCase()}${type.slice(1)}Length` : k] = v;
  }
  for (const [name, rel] of Object.entries((relationships ?? {}) as Json)) {
    if (Array.isArray(rel.data)) {
      const found = rel.data.map((r: Json) => (included ?? []).find((i) => i.id === r.id && i.type === r.type));
      out[name] = found.filter(Boolean).map((r: Json) => transformRecord(r, included));
    } else if (rel.data?.id && rel.data?.type) {
      const found = (included ?? []).find((i) => i.id === rel.data.id && i.type === rel.data.type);
      out[name] = found ? transformRecord(found, included) : null;
    }
  }
  return out;
}

/** `transformResponse`: `{data, meta}` with records flattened and keys camelCased. */
export function transformResponse(response: Json | undefined): Json | undefined {
  if (!response || Object.keys(response).length === 0) return response;
  const { data, included, meta } = response;
  const records = Array.isArray(data) ? data.map((d) => transformRecord(d, included)) : transformRecord(data, included);
  return renameKeys({ data: records, meta }, toCamel) as Json;
}

const STANDARD_META = [
  'total_count',
  'count',
  'prev',
  'next',
  'can_order_by',
  'can_query_by',
  'can_include',
  'can_filter',
  'parent',
];

/** `concatRecords`: spreads `included` of both pages, so a page without it throws a TypeError. */
function concatRecords(records: Json, more: Json): Json {
  return {
    data: [...records.data, ...more.data],
    included: [...records.included, ...more.included],
    meta: Object.fromEntries(Object.entries(more.meta ?? {}).filter(([k]) => STANDARD_META.includes(k))),
  };
}

/** The client's `new Client({root, version, defaultHeaders})`. */
export class PcoApiClient {
  /** Every request made: method, URL and the headers the client set. */
  readonly requests: { method: string; url: string; headers: [string, string][]; body: string | undefined }[] = [];
  private readonly root: string;

  constructor(
    private readonly options: {
      root: string;
      version?: string;
      defaultHeaders?: Record<string, string>;
      csrfToken?: string;
    },
  ) {
    this.root = options.root.endsWith('/') ? options.root.slice(0, -1) : options.root;
  }

  private apiUrl(url: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
    const apiRoot = `${this.root}${url.startsWith('/') ? '' : '/'}`;
    return url.startsWith(apiRoot) ? url : `${apiRoot}${url}`;
  }

  private buildUrl(url: string, data: Json, includeQuery: boolean): string {
    const at = url.indexOf('?');
    const urlOnly = at === -1 ? url : url.slice(0, at);
    if (!includeQuery) return this.apiUrl(urlOnly);
    // lodash merge: the request data's keys first, the URL's values win.
    const query = { ...transformRequestData(data) };
    for (const [k, v] of Object.entries(parseQuery(url))) if (v !== undefined) query[k] = v;
    const built = buildQuery(query);
    return `${this.apiUrl(urlOnly)}${built ? `?${built}` : ''}`;
  }

  /** `makeRequest`: resolves with the parsed body (undefined when empty), rejects with the parsed error body. */
  private async makeRequest(
    action: string,
    url: string,
    data: Json,
    headers: Record<string, string>,
  ): Promise<Json | undefined> {
    const full = this.buildUrl(url, data, action === 'GET');
    const set: [string, string][] = [];
    if (this.options.version) set.push(['X-PCO-API-Version', this.options.version]);
    set.push(['X-CSRF-Token', this.options.csrfToken ?? 'TEST_TOKEN']);
    set.push(['Content-Type', 'application/json;charset=UTF-8']);
    for (const [k, v] of Object.entries(headers)) set.push([k, v]);
    const browser: [string, string][] = [
      ['User-Agent', BROWSER_USER_AGENT],
      ['Accept', '*/*'],
    ];
    if (action !== 'GET') browser.push(['Origin', new URL(full).origin]);
    // XMLHttpRequest.send(body) ignores the body of a GET.
    const body = action === 'GET' ? undefined : JSON.stringify(data);
    this.requests.push({ method: action, url: full, headers: set, body });
    const res = await wireRequest(action, full, [...browser, ...set], body);
    if (res.status >= 200 && res.status < 300) {
      if (!res.text.trim()) return undefined;
      return JSON.parse(res.text) as Json;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.text);
    } catch {
      throw Object.assign(new Error(`xhr ${res.status}`), { xhr: res });
    }
    throw parsed;
  }

  private headers(args: Json): Record<string, string> {
    return { ...this.options.defaultHeaders, ...(args.headers ?? {}) };
  }

  /** `client.get({url, data})`; `data.walk` follows `links.next` to the end. */
  async get(args: { url: string; data?: Json; headers?: Record<string, string> }): Promise<Json | undefined> {
    const walking = Boolean(args.data?.walk);
    const headers = this.headers(args);
    const walk = async (url: string, data: Json, acc: Json): Promise<Json> => {
      const { links, ...page } = (await this.makeRequest('GET', url, data, headers)) as Json;
      const records = Array.isArray(page.data) && walking ? concatRecords(acc, page) : page;
      return walking && links?.next ? walk(links.next, {}, records) : records;
    };
    return transformResponse(await walk(args.url, args.data ?? {}, { data: [], included: [] }));
  }

  /** `client.post({url, data})`: `data` is the whole JSON body. */
  async post(args: { url: string; data?: Json; headers?: Record<string, string> }): Promise<Json | undefined> {
    return transformResponse(await this.makeRequest('POST', args.url, args.data ?? {}, this.headers(args)));
  }

  /** `client.patch({url, data})`. */
  async patch(args: { url: string; data?: Json; headers?: Record<string, string> }): Promise<Json | undefined> {
    return transformResponse(await this.makeRequest('PATCH', args.url, args.data ?? {}, this.headers(args)));
  }

  /** `client.delete({url})`: the body is `{}`. */
  delete(args: { url: string; data?: Json; headers?: Record<string, string> }): Promise<Json | undefined> {
    return this.makeRequest('DELETE', args.url, args.data ?? {}, this.headers(args));
  }
}
