/**
 * Debian's HAProxy running deploy/haproxy.cfg as it is, in front of host processes on this machine: a throwaway
 * self-signed certificate for `localhost`, free ports for both frontends, the runtime API on a socket in `dir`.
 * Used by the reference deployment's test and by the P9 benchmark.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';

export const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));

/** One host process behind the balancer: its host and sandbox-origin ports on 127.0.0.1. */
export interface Backend {
  port: number;
  sandboxPort: number;
}

export interface RunningHaproxy {
  /** `https://localhost:<port>`: the host frontend. */
  url: string;
  /** `https://localhost:<port>`: the sandbox-origin frontend. */
  sandboxUrl: string;
  /** The certificate (PEM) clients must trust, and its file. */
  ca: string;
  caFile: string;
  /** HAProxy's view of a backend's servers: name (`host1`…) → `UP`, `DOWN`, … */
  states(backend?: 'hosts' | 'sandboxes'): Promise<Record<string, string>>;
  /** Resolves once every server of the `hosts` backend is UP (or the named one is). */
  up(server?: string, seconds?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A certificate and key for `localhost` and 127.0.0.1, valid one day, in `dir`. */
export async function selfSignedCertificate(dir: string): Promise<{ certFile: string; pemFile: string; cert: string }> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  await promisify(execFile)('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'],
    ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
  ]);
  const cert = await readFile(certFile, 'utf8');
  const pemFile = join(dir, 'haproxy.pem');
  // HAProxy takes the certificate and its key in one file.
  await writeFile(pemFile, cert + (await readFile(keyFile, 'utf8')), { mode: 0o600 });
  return { certFile, pemFile, cert };
}

/** A balancer not started yet: its URLs and certificate are known, so the hosts can be configured first. */
export interface PreparedHaproxy {
  url: string;
  sandboxUrl: string;
  ca: string;
  caFile: string;
  /** Starts HAProxy before `backends` (host1, host2, … in order); `showBackend` adds `X-Served-By` to answers. */
  start(backends: Backend[], options?: { checkInterval?: string; showBackend?: boolean }): Promise<RunningHaproxy>;
}

/** Picks the frontends' ports and makes the certificate in `dir`. */
export async function prepareHaproxy(dir: string): Promise<PreparedHaproxy> {
  const { certFile, pemFile, cert } = await selfSignedCertificate(dir);
  const httpsPort = await freePort();
  const sandboxPort = await freePort();
  const url = `https://localhost:${httpsPort}`;
  const sandboxUrl = `https://localhost:${sandboxPort}`;
  return {
    url,
    sandboxUrl,
    ca: cert,
    caFile: certFile,
    start: (backends, options = {}) =>
      runHaproxy({ dir, pemFile, httpsPort, sandboxPort, backends, options, url, sandboxUrl, cert, certFile }),
  };
}

async function runHaproxy(p: {
  dir: string;
  pemFile: string;
  httpsPort: number;
  sandboxPort: number;
  backends: Backend[];
  options: { checkInterval?: string; showBackend?: boolean };
  url: string;
  sandboxUrl: string;
  cert: string;
  certFile: string;
}): Promise<RunningHaproxy> {
  const { dir, pemFile, httpsPort, sandboxPort, backends, options } = p;
  const socket = join(dir, 'haproxy.sock');
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', HAPROXY_CONFIG], {
    env: {
      ...process.env,
      ADDON_KIT_TLS_CERT: pemFile,
      ADDON_KIT_SANDBOX_TLS_CERT: pemFile,
      ADDON_KIT_HTTPS_BIND: `127.0.0.1:${httpsPort}`,
      ADDON_KIT_SANDBOX_BIND: `127.0.0.1:${sandboxPort}`,
      ADDON_KIT_HAPROXY_SOCKET: socket,
      ...(options.checkInterval ? { ADDON_KIT_CHECK_INTERVAL: options.checkInterval } : {}),
      ...(options.showBackend ? { ADDON_KIT_SHOW_BACKEND: '1' } : {}),
      ...Object.fromEntries(
        backends.flatMap((b, i) => [
          [`ADDON_KIT_HOST${i + 1}`, `127.0.0.1:${b.port}`],
          [`ADDON_KIT_SANDBOX${i + 1}`, `127.0.0.1:${b.sandboxPort}`],
        ]),
      ),
    },
    // Its log (servers going DOWN and UP) on our stderr: what a failing run needs to be read.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = once(child, 'exit');
  const states = async (backend = 'hosts'): Promise<Record<string, string>> => {
    const conn = connect(socket);
    await once(conn, 'connect');
    conn.end('show stat\n');
    let text = '';
    for await (const chunk of conn) text += String(chunk);
    const rows = text.split('\n').map((line) => line.split(','));
    const header = rows[0]!.map((h) => h.replace(/^# /, ''));
    const at = (name: string) => header.indexOf(name);
    return Object.fromEntries(
      rows
        .filter((r) => r[at('pxname')] === backend && !['FRONTEND', 'BACKEND'].includes(r[at('svname')] ?? ''))
        .map((r) => [r[at('svname')]!, r[at('status')]!]),
    );
  };
  const up = async (server?: string, seconds = 90) => {
    const until = Date.now() + seconds * 1000;
    while (Date.now() < until) {
      const now: Record<string, string> = await states().catch(() => ({}));
      const names = Object.keys(now);
      if (names.length && (server ? now[server] === 'UP' : names.every((n) => now[n] === 'UP'))) return;
      if (child.exitCode !== null) throw new Error(`haproxy exited with code ${child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`haproxy: ${server ?? 'every host'} not UP after ${seconds} s: ${JSON.stringify(await states())}`);
  };
  return {
    url: p.url,
    sandboxUrl: p.sandboxUrl,
    ca: p.cert,
    caFile: p.certFile,
    states,
    up,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
