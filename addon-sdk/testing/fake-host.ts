/**
 * The fake host of the testing kit, over real HTTP on loopback: the host origin (the test page and the fetch
 * proxy of protocol/README.md §2, answering from the scripts) and the sandbox origin (the SDK's own sandbox
 * router: frame page with its CSP, bootstrap, the add-on's script).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express, { type Express, type Request, type Response } from 'express';
import type { FetchTarget, HeaderPairs } from '../protocol/messages.ts';
import {
  CSRF_HEADER,
  FETCH_HEADER,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
  type FetchEnvelope,
  type ProxyErrorSide,
} from '../protocol/proxy.ts';
import { createSandboxRouter } from '../server/sandbox-router.ts';
import { CONFIG_ELEMENT_ID, type TestPageConfig } from './page/test-page-contract.ts';
import {
  isFailure,
  notScripted,
  type RecordedRequest,
  type Responder,
  type ScriptedFailure,
  type ScriptedResponse,
} from './scripted-responses.ts';

/** What the fake host needs to know. */
export interface FakeHostOptions {
  /** Directory with `sandbox-bootstrap.js` and `test-host.js`. */
  supportDir: string;
  /** The add-on's built script. */
  addonScript: string;
  /** The page's settings other than the URLs and token the fake host makes up. */
  page: Pick<TestPageConfig, 'boot' | 'bootTimeoutMs' | 'fetchTimeoutMs' | 'uiOrigins'>;
  /** Absolute base URL of each API: relative URLs resolve against it, other origins are refused. */
  bases: Record<FetchTarget, string>;
  /** Finds the scripted answer of a call. */
  scripts: Record<FetchTarget, (method: string, url: URL) => Responder | undefined>;
  /** Called for every call, after it is recorded and answered. */
  onRequest(request: RecordedRequest): void;
}

/** A running fake host. */
export interface FakeHost {
  /** The test page's URL. */
  pageUrl: string;
  close(): Promise<void>;
}

const INSTALLATION_ID = 'addon-test';
/** The status the real proxy uses for each failure side (addon-sdk/protocol/README.md §2). */
const FAILURE_STATUS: Record<ProxyErrorSide, number> = {
  policy: 403,
  host_auth: 401,
  integrator_auth: 401,
  upstream: 502,
};
const CALLER: Record<FetchTarget, string> = {
  service: 'authenticatedFetch',
  integrator: 'authenticatedIntegratorFetch',
};

async function listen(app: Express): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Starts the host and sandbox origins. */
export async function startFakeHost(options: FakeHostOptions): Promise<FakeHost> {
  const csrfToken = randomBytes(16).toString('hex');
  const host = express();
  host.disable('x-powered-by');
  const sandbox = express();
  sandbox.disable('x-powered-by');
  const hostListener = await listen(host);
  const sandboxListener = await listen(sandbox);

  const config: TestPageConfig = {
    ...options.page,
    sandboxUrl: `${sandboxListener.url}/frame.html`,
    addonUrl: `${sandboxListener.url}/addons/addon.js`,
    installationId: INSTALLATION_ID,
    csrfToken,
  };
  host.get('/', (_req, res) => {
    // `<` escaped so no value can close the script element.
    const json = JSON.stringify(config).replace(/</g, '\\u003c');
    res.type('html')
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>addon-kit test host</title></head>
<body><div id="addon"></div><script type="application/json" id="${CONFIG_ELEMENT_ID}">${json}</script>
<script type="module" src="/test-host.js"></script></body></html>`);
  });
  host.get('/test-host.js', async (_req, res) => {
    res.type('text/javascript').send(await readFile(join(options.supportDir, 'test-host.js')));
  });
  host.post(
    `/addons/installations/${INSTALLATION_ID}/fetch/:target`,
    express.raw({ type: () => true, limit: '8mb' }),
    (req, res) => {
      answerFetch(options, csrfToken, req, res).catch(() => {
        // A bug of the kit (or a header the worker should not have let through) must not hang the add-on's call.
        if (res.headersSent) res.destroy();
        else
          fail(res, {
            fail: 'upstream',
            code: 'internal_error',
            message: 'The testing kit failed to answer this call',
          });
      });
    },
  );

  sandbox.use(
    createSandboxRouter({
      hostOrigins: [hostListener.url],
      sandboxOrigin: sandboxListener.url,
      bundleDir: options.supportDir,
      addons: { addon: options.addonScript },
    }),
  );

  return {
    pageUrl: `${hostListener.url}/`,
    async close() {
      for (const { server } of [hostListener, sandboxListener]) {
        server.closeAllConnections();
        await new Promise((done) => server.close(done));
      }
    },
  };
}

/** One call to the fake fetch proxy: checked as the host's proxy checks it, answered from the scripts, recorded. */
async function answerFetch(options: FakeHostOptions, csrfToken: string, req: Request, res: Response): Promise<void> {
  const target = req.params.target as FetchTarget;
  if (target !== 'service' && target !== 'integrator') return fail(res, { fail: 'policy', code: 'unknown_target' });
  if (req.get(CSRF_HEADER) !== csrfToken) return fail(res, { fail: 'host_auth', code: 'csrf_failed' });
  let call: FetchEnvelope;
  try {
    call = decodeEnvelope(req.get(FETCH_HEADER) ?? '') as FetchEnvelope;
  } catch {
    return fail(res, {
      fail: 'policy',
      code: 'invalid_request',
      message: `The ${FETCH_HEADER} header is not URI-encoded JSON`,
    });
  }
  const base = new URL(options.bases[target]);
  const url = parseUrl(call.url, base);
  const record = (outcome: RecordedRequest['outcome']): RecordedRequest => ({
    target,
    method: call.method,
    url: url?.href ?? call.url,
    path: url ? `${url.pathname}${url.search}` : call.url,
    headers: Object.fromEntries(new Headers(call.headers)),
    body: Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body.toString('utf8') : null,
    outcome,
  });
  // As the host's proxy: the API base's origin only, relative URLs resolved against the base.
  if (!url || url.origin !== base.origin) {
    const request = record('not_allowed');
    fail(res, { fail: 'policy', code: 'not_allowed', message: `${CALLER[target]} calls ${base.origin} only` });
    return options.onRequest(request);
  }
  url.hash = '';
  const responder = options.scripts[target](call.method, url);
  const request = record(responder ? 'scripted' : 'not_scripted');
  const answer = await scriptedAnswer(responder, request, call.method);
  if (isFailure(answer)) fail(res, answer);
  else sendUpstreamAnswer(res, answer, url);
  options.onRequest(request);
}

/** The scripted answer of a call (the not-scripted failure without a script, a failure when the script throws). */
async function scriptedAnswer(
  responder: Responder | undefined,
  request: RecordedRequest,
  method: string,
): Promise<ScriptedResponse | ScriptedFailure> {
  try {
    return typeof responder === 'function'
      ? await responder(request)
      : (responder ?? notScripted(method, request.path));
  } catch (error) {
    return {
      fail: 'upstream',
      code: 'script_failed',
      message: `The scripted responder threw: ${(error as Error).message}`,
    };
  }
}

/** A scripted response as the real proxy relays an upstream's: 200, its head in the upstream header, its body. */
function sendUpstreamAnswer(res: Response, answer: ScriptedResponse, url: URL): void {
  const status = answer.status ?? 200;
  const headers: HeaderPairs = Object.entries(answer.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]);
  let body = Buffer.from(answer.body ?? '');
  if (answer.json !== undefined) {
    body = Buffer.from(JSON.stringify(answer.json));
    if (!headers.some(([name]) => name === 'content-type'))
      headers.push(['content-type', 'application/json; charset=utf-8']);
  }
  const head = { status, statusText: answer.statusText ?? STATUS_CODES[status] ?? '', url: url.href, headers };
  res.status(200).set({ [UPSTREAM_HEADER]: encodeEnvelope(head), 'Content-Type': 'application/octet-stream' });
  res.send(body);
}

/** `new URL(input, base)`, or undefined when it cannot be parsed (URL.parse is not in Node 20). */
function parseUrl(input: string, base: URL): URL | undefined {
  try {
    return new URL(input, base);
  } catch {
    return undefined;
  }
}

/** A proxy failure as the real proxy sends it: non-200, no upstream header, `{error: {side, code, …}}`. */
function fail(res: Response, failure: ScriptedFailure): void {
  res.status(FAILURE_STATUS[failure.fail]).json({
    error: {
      side: failure.fail,
      code: failure.code,
      message: failure.message ?? failure.code,
      retryable: failure.retryable ?? false,
    },
  });
}
