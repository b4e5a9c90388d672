/**
 * A stand-in host for the add-on SDK's browser tests that implements exactly the proxy and handshake
 * contract of addon-sdk/protocol/README.md over real HTTP, forwarding to real local upstream servers.
 * Three origins: the host (page, session, CSRF, proxy, handshake hooks), the sandbox (the SDK's sandbox
 * router), and two upstreams (service API and integrator API).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import {
  CSRF_HEADER,
  FETCH_HEADER,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
  type FetchEnvelope,
  type ProxyErrorSide,
} from '@addon-kit/sdk/protocol';
import { createEmbedderRouter, createSandboxRouter } from '@addon-kit/sdk/server';

/** One request the proxy forwarded (outcome `forwarded`) or refused (outcome: the error code). */
export interface ProxyLogEntry {
  target: string;
  method: string;
  url: string;
  outcome: string;
}
/** One request an upstream received. */
export interface UpstreamLogEntry {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Buffer;
}

type ErrorBody = { side: ProxyErrorSide; code: string; message: string; retryable: boolean };

export interface ContractServers {
  hostUrl: string;
  sandboxUrl: string;
  serviceUrl: string;
  integratorUrl: string;
  /** Handshake state per installation (default `uninitialized`). */
  states: Map<string, string>;
  proxyLog: ProxyLogEntry[];
  /** Every request the host origin received, as `METHOD /path`. */
  hostLog: string[];
  serviceLog: UpstreamLogEntry[];
  integratorLog: UpstreamLogEntry[];
  /** Makes the next proxy call for `target` fail with this status and error body. */
  failNext(target: 'service' | 'integrator', status: number, error: ErrorBody): void;
  /** Resolves when the upstream's held request at `path` is closed by the proxy (abort propagated). */
  upstreamClosed(path: string): Promise<{ finished: boolean }>;
  close(): Promise<void>;
}

const SERVICE_TOKEN = 'service-access-token';
const INTEGRATOR_TOKEN = 'integrator-access-token';
/** Hop-by-hop and host-owned headers the proxy never forwards. */
const DROP_REQUEST = new Set([
  'host',
  'cookie',
  'authorization',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
]);
const DROP_RESPONSE = new Set([
  'set-cookie',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'content-length',
  'content-encoding',
]);

async function listen(app: Express) {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function recordUpstream(log: UpstreamLogEntry[]) {
  return [
    express.raw({ type: () => true, limit: '16mb' }),
    (req: Request, _res: Response, next: () => void) => {
      log.push({
        method: req.method,
        path: req.originalUrl,
        authorization: req.get('authorization'),
        contentType: req.get('content-type'),
        body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      });
      next();
    },
  ];
}

/** Starts host, sandbox and upstream servers; `bundleDir` holds the built host.js, bootstrap and add-ons. */
export async function startContractServers(options: {
  bundleDir: string;
  addons: Record<string, string>;
}): Promise<ContractServers> {
  const serviceLog: UpstreamLogEntry[] = [];
  const integratorLog: UpstreamLogEntry[] = [];
  const closeWaiters = new Map<string, (r: { finished: boolean }) => void>();
  const closed = new Map<string, { finished: boolean }>();
  const noteClosed = (path: string, finished: boolean) => {
    closed.set(path, { finished });
    closeWaiters.get(path)?.({ finished });
  };

  // ---- service upstream (stands in for the host API) ----
  const service = express();
  service.use(recordUpstream(serviceLog));
  // A List whose id is a number other than 42 has that many people ("Person 1" …), paged like the host API.
  service.get('/people/v2/lists/:id/people', (req, res, next) => {
    const size = Number(req.params.id);
    if (req.params.id === '42' || !Number.isSafeInteger(size)) return next();
    const perPage = Number(req.query.per_page ?? 25);
    const offset = Number(req.query.offset ?? 0);
    const ids = Array.from({ length: Math.max(0, Math.min(perPage, size - offset)) }, (_, i) => offset + i + 1);
    const nextPage =
      offset + perPage < size
        ? `${up.url}/people/v2/lists/${size}/people?per_page=${perPage}&offset=${offset + perPage}`
        : undefined;
    res.json({
      data: ids.map((n) => ({
        type: 'Person',
        id: String(1000 + n),
        attributes: { first_name: 'Person', last_name: String(n) },
      })),
      meta: { total_count: size, count: ids.length },
      links: nextPage ? { next: nextPage } : {},
    });
  });
  service.get('/people/v2/lists/:id/people', (req, res) => {
    res.json({
      data: [
        { type: 'Person', id: '101', attributes: { first_name: 'Ada', last_name: 'Lovelace' } },
        { type: 'Person', id: '102', attributes: { first_name: 'Grace', last_name: 'Hopper' } },
        { type: 'Person', id: '103', attributes: { first_name: 'Katherine', last_name: 'Johnson' } },
      ],
      meta: { total_count: 3, list_id: req.params.id },
    });
  });
  service.get('/fidelity/no-content', (_req, res) => {
    res.status(204).set('X-Reason', 'nothing').end();
  });
  service.get('/fidelity/missing', (_req, res) => {
    res.status(404).json({ errors: [{ status: '404', title: 'Not Found' }] });
  });
  service.get('/fidelity/binary', (_req, res) => {
    const bytes = Buffer.alloc(70_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 256;
    res.type('application/octet-stream');
    // Two writes so the body crosses the bridge in more than one chunk.
    res.write(bytes.subarray(0, 30_000));
    setImmediate(() => res.end(bytes.subarray(30_000)));
  });
  service.get('/fidelity/repeated', (_req, res) => {
    res.setHeader('X-Multi', ['one', 'two']);
    res.setHeader('Set-Cookie', ['upstream=secret']);
    res.type('text/plain').send('repeated');
  });
  service.all('/fidelity/echo', (req, res) => {
    res.json({
      method: req.method,
      custom: req.get('x-custom') ?? null,
      contentType: req.get('content-type') ?? null,
      authorization: req.get('authorization') ?? null,
      cookie: req.get('cookie') ?? null,
      body: (req.body as Buffer).toString('base64'),
    });
  });
  // Sends one chunk, then holds the response open until the client goes away.
  service.get('/fidelity/slow', (req, res) => {
    res.type('text/plain');
    res.write('first-chunk');
    res.on('close', () => noteClosed(req.path, res.writableEnded));
  });
  // Never answers at all (for abort-before-head and unmount).
  service.get('/fidelity/hang', (req, res) => {
    res.on('close', () => noteClosed(req.path, res.writableEnded));
  });

  // ---- integrator upstream ----
  const integrator = express();
  integrator.use(recordUpstream(integratorLog));
  integrator.post('/api/messages', (req, res) => {
    let body: unknown;
    try {
      body = JSON.parse((req.body as Buffer).toString('utf8'));
    } catch {
      res.status(400).json({ error: 'invalid_json' });
      return;
    }
    res
      .status(201)
      .json({ id: `msg_${integratorLog.filter((e) => e.path === '/api/messages').length}`, received: body });
  });
  integrator.get('/api/whoami', (req, res) => {
    res.json({ authorization: req.get('authorization') ?? null });
  });

  const up = await listen(service);
  const int = await listen(integrator);

  // ---- host ----
  const states = new Map<string, string>();
  const sessions = new Map<string, string>(); // session id → CSRF token
  const proxyLog: ProxyLogEntry[] = [];
  const failures = new Map<string, { status: number; error: ErrorBody }>();
  const host = express();
  host.disable('x-powered-by');
  const hostLog: string[] = [];
  host.use((req, _res, next) => {
    hostLog.push(`${req.method} ${req.path}`);
    next();
  });
  let sandboxOrigin = '';
  const sessionOf = (req: Request) => /(?:^|;\s*)sid=([a-f0-9]+)/.exec(req.get('cookie') ?? '')?.[1];

  host.use('/assets/addon-sdk', createEmbedderRouter({ bundleDir: options.bundleDir }));
  host.get('/', (_req, res) => {
    const sid = randomBytes(16).toString('hex');
    const csrf = randomBytes(16).toString('hex');
    sessions.set(sid, csrf);
    res.set('Set-Cookie', `sid=${sid}; Path=/; HttpOnly; SameSite=Lax`);
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>Host page</title></head><body>
<button id="host-button" type="button">host button</button><output id="host-count">0</output>
<div id="addon"></div>
<script type="module">
import { mountAddon } from '/assets/addon-sdk/host.js';
document.getElementById('host-button').addEventListener('click', () => {
  const out = document.getElementById('host-count');
  out.textContent = String(Number(out.textContent) + 1);
});
window.addonEvents = [];
window.mountTestAddon = (opts) => {
  window.mounted = mountAddon(document.getElementById('addon'), {
    csrfToken: ${JSON.stringify(csrf)},
    sandboxUrl: ${JSON.stringify(`${sandboxOrigin}/frame.html`)},
    onEvent: (e) => window.addonEvents.push(JSON.parse(JSON.stringify(e))),
    ...opts,
  });
  window.mounted.ready.then(() => { window.addonReady = true; }, (e) => { window.addonBootError = e.code; });
};
window.hostReady = true;
</script></body></html>`);
  });

  host.get('/addons/installations/:id/state', (req, res) => {
    if (!sessionOf(req) || !sessions.has(sessionOf(req)!)) {
      res
        .status(401)
        .json({ error: { side: 'host_auth', code: 'login_required', message: 'Sign in', retryable: false } });
      return;
    }
    res.json({ state: states.get(req.params.id) ?? 'uninitialized' });
  });
  // The popup: a stand-in for the six-step handshake, finished by one click.
  host.get('/addons/installations/:id/authorize', (req, res) => {
    const id = JSON.stringify(req.params.id);
    res.type('html').send(`<!doctype html><html><head><meta charset="utf-8"><title>Authorize add-on</title></head><body>
<button id="approve" type="button">Approve</button>
<script>
document.getElementById('approve').addEventListener('click', async () => {
  await fetch('/addons/installations/' + encodeURIComponent(${id}) + '/authorize', { method: 'POST', credentials: 'same-origin' });
  window.opener.postMessage({ type: 'addon-kit:handshake', installationId: ${id}, outcome: 'authorized', state: 'ready' }, location.origin);
  window.close();
});
</script></body></html>`);
  });
  host.post('/addons/installations/:id/authorize', (req, res) => {
    states.set(req.params.id, 'ready');
    res.status(204).end();
  });

  host.post('/addons/installations/:id/fetch/:target', express.raw({ type: () => true, limit: '8mb' }), (req, res) => {
    const target = String(req.params.target);
    const refuse = (status: number, error: ErrorBody, url = '') => {
      proxyLog.push({ target, method: '', url, outcome: error.code });
      res.status(status).json({ error });
    };
    if (target !== 'service' && target !== 'integrator')
      return refuse(404, { side: 'policy', code: 'unknown_target', message: 'Unknown target', retryable: false });
    const sid = sessionOf(req);
    if (!sid || !sessions.has(sid))
      return refuse(401, { side: 'host_auth', code: 'login_required', message: 'Sign in', retryable: false });
    if (req.get(CSRF_HEADER) !== sessions.get(sid))
      return refuse(403, { side: 'host_auth', code: 'csrf_failed', message: 'Bad CSRF token', retryable: false });
    if (states.get(req.params.id) !== 'ready')
      return refuse(409, {
        side: 'host_auth',
        code: 'handshake_required',
        message: 'Authorize the add-on',
        retryable: false,
      });
    let call: FetchEnvelope;
    try {
      call = decodeEnvelope(req.get(FETCH_HEADER) ?? '') as FetchEnvelope;
    } catch {
      return refuse(400, { side: 'policy', code: 'invalid_request', message: `Bad ${FETCH_HEADER}`, retryable: false });
    }
    const failure = failures.get(target);
    if (failure) {
      failures.delete(target);
      return refuse(failure.status, failure.error, call.url);
    }
    const base = target === 'service' ? up.url : int.url;
    const resolved = new URL(call.url, base);
    if (resolved.origin !== base)
      return refuse(
        403,
        { side: 'policy', code: 'url_not_allowed', message: 'URL outside the allow-list', retryable: false },
        call.url,
      );
    const headers: Array<[string, string]> = call.headers.filter(([name]) => !DROP_REQUEST.has(name.toLowerCase()));
    headers.push(['host', resolved.host]);
    headers.push(['authorization', `Bearer ${target === 'service' ? SERVICE_TOKEN : INTEGRATOR_TOKEN}`]);
    const body =
      Buffer.isBuffer(req.body) && req.body.length > 0 && call.method !== 'GET' && call.method !== 'HEAD'
        ? req.body
        : null;
    if (body) headers.push(['content-length', String(body.length)]);
    // node:http keeps repeated response headers apart (rawHeaders), which the contract requires.
    const outgoing = httpRequest(resolved, { method: call.method, headers: headers.flat() });
    res.on('close', () => {
      if (!res.writableFinished) outgoing.destroy();
    });
    outgoing.on('error', () => {
      if (!res.headersSent)
        refuse(
          502,
          { side: 'upstream', code: 'upstream_unreachable', message: 'Upstream unreachable', retryable: true },
          call.url,
        );
      else res.destroy();
    });
    outgoing.on('response', (upstream) => {
      proxyLog.push({ target, method: call.method, url: call.url, outcome: 'forwarded' });
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < upstream.rawHeaders.length; i += 2) {
        const name = upstream.rawHeaders[i]!.toLowerCase();
        if (!DROP_RESPONSE.has(name)) pairs.push([name, upstream.rawHeaders[i + 1]!]);
      }
      const head = {
        status: upstream.statusCode ?? 502,
        statusText: upstream.statusMessage ?? '',
        url: resolved.href,
        headers: pairs,
      };
      res.status(200).set({ [UPSTREAM_HEADER]: encodeEnvelope(head), 'Content-Type': 'application/octet-stream' });
      res.flushHeaders();
      upstream.on('error', () => res.destroy());
      upstream.pipe(res);
    });
    outgoing.end(body ?? undefined);
  });

  const hostListener = await listen(host);

  // ---- sandbox origin ----
  const sandbox = express();
  sandbox.disable('x-powered-by');
  sandbox.use(
    createSandboxRouter({ hostOrigins: [hostListener.url], bundleDir: options.bundleDir, addons: options.addons }),
  );
  // A page that pretends to be the sandbox frame / the popup, to test spoofing from another frame.
  sandbox.get('/spoof.html', (_req, res) => {
    res.type('html').send(`<!doctype html><script>
const installationId = new URL(location.href).searchParams.get('installation');
parent.postMessage({ type: 'addon-kit:sandbox-ready', protocol: 1 }, '*');
parent.postMessage({ type: 'addon-kit:worker-error', message: 'spoofed failure' }, '*');
parent.postMessage({ type: 'addon-kit:handshake', installationId, outcome: 'authorized', state: 'ready' }, '*');
for (let i = 0; i < parent.frames.length; i++) {
  try { parent.frames[i].postMessage({ type: 'addon-kit:boot', protocol: 1, addonUrl: location.origin + '/addons/hostile.js', boot: { environment: 'production', extension: 'x', props: {} } }, '*'); } catch {}
}
document.title = 'spoofed';
</script>`);
  });
  const sandboxListener = await listen(sandbox);
  sandboxOrigin = sandboxListener.url;

  return {
    hostUrl: hostListener.url,
    sandboxUrl: sandboxListener.url,
    serviceUrl: up.url,
    integratorUrl: int.url,
    states,
    proxyLog,
    hostLog,
    serviceLog,
    integratorLog,
    failNext(target, status, error) {
      failures.set(target, { status, error });
    },
    upstreamClosed(path) {
      const done = closed.get(path);
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => closeWaiters.set(path, resolve));
    },
    async close() {
      for (const l of [hostListener, sandboxListener, up, int]) {
        l.server.closeAllConnections();
        await new Promise((r) => l.server.close(r));
      }
    },
  };
}
