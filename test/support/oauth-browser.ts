/**
 * A minimal browser for driving server-rendered pages over real HTTP: a cookie jar (name, path,
 * expiry), manual redirects, and form helpers that read the hidden fields of a page.
 */
export interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expires?: number;
}

/** Cookies per path, as a browser keeps them for one origin. */
export class CookieJar {
  readonly cookies = new Map<string, StoredCookie>();

  /** Stores every Set-Cookie of a response. */
  store(response: Response, requestPath: string): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';').map((p) => p.trim());
      const eq = pair.indexOf('=');
      const cookie: StoredCookie = {
        name: pair.slice(0, eq),
        value: pair.slice(eq + 1),
        path: defaultPath(requestPath),
      };
      for (const attribute of attributes) {
        const [key = '', value = ''] = attribute.split('=');
        const k = key.toLowerCase();
        if (k === 'path') cookie.path = value;
        if (k === 'max-age') cookie.expires = Date.now() + Number(value) * 1000;
        if (k === 'expires' && cookie.expires === undefined) cookie.expires = Date.parse(value);
      }
      const key = `${cookie.name};${cookie.path}`;
      if (cookie.expires !== undefined && cookie.expires <= Date.now()) this.cookies.delete(key);
      else this.cookies.set(key, cookie);
    }
  }

  /** The Cookie header for a request path. */
  header(path: string): string {
    return [...this.cookies.values()]
      .filter(
        (c) =>
          (c.expires === undefined || c.expires > Date.now()) &&
          (path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/'),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** The value of a cookie by name (any path). */
  get(name: string): string | undefined {
    return [...this.cookies.values()].find((c) => c.name === name)?.value;
  }
}

function defaultPath(requestPath: string): string {
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
}

export interface PageResponse {
  status: number;
  headers: Headers;
  /** Absolute URL of the Location header, when any. */
  location?: string;
  body: string;
  url: string;
}

/** One browser profile against one origin. */
export class TestBrowser {
  readonly jar = new CookieJar();
  /** `fetcher`: how requests go out (another `fetch` for an https server with a test certificate). */
  constructor(
    readonly baseUrl: string,
    private readonly fetcher: typeof fetch = fetch,
  ) {}

  /** One request, no redirect following; cookies sent and stored. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<PageResponse> {
    const target = new URL(url, this.baseUrl);
    const headers: Record<string, string> = {
      accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
      ...init.headers,
    };
    const cookie = target.origin === new URL(this.baseUrl).origin ? this.jar.header(target.pathname) : '';
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await this.fetcher(target, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      redirect: 'manual',
    });
    if (target.origin === new URL(this.baseUrl).origin) this.jar.store(response, target.pathname);
    const location = response.headers.get('location');
    return {
      status: response.status,
      headers: response.headers,
      ...(location ? { location: new URL(location, target).toString() } : {}),
      body: await response.text(),
      url: target.toString(),
    };
  }

  /** GET, following redirects while they stay on this origin; stops at the first foreign one. */
  async follow(url: string, first?: PageResponse): Promise<PageResponse> {
    let response = first ?? (await this.request(url));
    for (let hops = 0; response.location && hops < 20; hops++) {
      if (new URL(response.location).origin !== new URL(this.baseUrl).origin) return response;
      response = await this.request(response.location);
    }
    return response;
  }

  /** Submits the form of a page (the first, or the one whose button has `buttonText`), merged with `fields`. */
  async submit(
    page: PageResponse,
    fields: Record<string, string>,
    options: { button?: string; formIndex?: number } = {},
  ): Promise<PageResponse> {
    const forms = parseForms(page.body);
    const form = options.button
      ? forms.find((f) => f.buttons.some((b) => b.text === options.button))
      : forms[options.formIndex ?? 0];
    if (!form) throw new Error(`no form${options.button ? ` with button ${options.button}` : ''} on ${page.url}`);
    const button = options.button ? form.buttons.find((b) => b.text === options.button) : undefined;
    const data = { ...form.fields, ...(button?.name ? { [button.name]: button.value ?? '' } : {}), ...fields };
    return this.request(new URL(form.action || page.url, page.url).toString(), { method: 'POST', form: data });
  }
}

export interface ParsedForm {
  action: string;
  fields: Record<string, string>;
  buttons: { name?: string; value?: string; text: string }[];
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? decode(m[1]!) : undefined;
};

/** The forms of a server-rendered page: action, hidden/pre-filled inputs, and submit buttons. */
export function parseForms(html: string): ParsedForm[] {
  const forms: ParsedForm[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const fields: Record<string, string> = {};
    for (const input of m[2]!.matchAll(/<input\b[^>]*>/g)) {
      const name = attr(input[0], 'name');
      const type = attr(input[0], 'type');
      if (!name) continue;
      if ((type === 'checkbox' || type === 'radio') && !/\schecked/.test(input[0])) continue;
      fields[name] = attr(input[0], 'value') ?? '';
    }
    for (const area of m[2]!.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
      const name = attr(area[0], 'name');
      if (name) fields[name] = decode(area[2]!);
    }
    const buttons = [...m[2]!.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/g)].map((b) => ({
      ...(attr(b[0], 'name') !== undefined ? { name: attr(b[0], 'name')! } : {}),
      ...(attr(b[0], 'value') !== undefined ? { value: attr(b[0], 'value')! } : {}),
      text: decode(b[2]!.replace(/<[^>]+>/g, '').trim()),
    }));
    forms.push({ action: attr(m[1]!, 'action') ?? '', fields, buttons });
  }
  return forms;
}
