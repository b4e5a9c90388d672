/** listenOn()'s close: what a rolling restart needs of a host's listener. */
import { Agent, request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { listenOn } from '#host/http/listen.ts';

/** A GET over `agent`: the response head, its body and the connection it came on. */
function get(url: string, agent: Agent): Promise<{ res: IncomingMessage; body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const socket = res.socket;
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ res, body, socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Listener.close()', () => {
  it('finishes the request in flight, closes idle keep-alive connections at once and refuses new ones', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    const listener = await listenOn(0, '127.0.0.1', (_req, res) => res.end('starting'));
    listener.attach((req, res) => {
      if (req.url === '/slow') {
        arrived();
        void released.then(() => res.end('slow done'));
      } else res.end('quick');
    });
    const url = `http://127.0.0.1:${listener.port}`;
    const idleAgent = new Agent({ keepAlive: true });
    const busyAgent = new Agent({ keepAlive: true });
    try {
      // One connection left idle after a request, one busy with a slow request.
      const quick = await get(`${url}/quick`, idleAgent);
      expect([quick.body, quick.res.headers.connection]).toEqual(['quick', 'keep-alive']);
      const idleSocket = quick.socket;
      const idleClosed = once(idleSocket, 'close');
      const slow = get(`${url}/slow`, busyAgent);
      await slowArrived;

      let closed = false;
      const closing = listener.close().then(() => (closed = true));
      await idleClosed;
      const refused = await get(`${url}/quick`, new Agent()).then(
        () => 'served',
        (error: NodeJS.ErrnoException) => error.code,
      );
      expect({ refused, closed }).toEqual({ refused: 'ECONNREFUSED', closed: false });

      release();
      const done = await slow;
      expect([done.res.statusCode, done.body, done.res.headers.connection]).toEqual([200, 'slow done', 'close']);
      await closing;
      expect(closed).toBe(true);
    } finally {
      idleAgent.destroy();
      busyAgent.destroy();
    }
  });

  it('cuts the connections still open after the grace period', async () => {
    const listener = await listenOn(0, '127.0.0.1', () => {});
    const url = `http://127.0.0.1:${listener.port}`;
    const hung = get(url, new Agent()).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await listener.close(200);
    expect({ hung: await hung, cutAfterGrace: performance.now() - started >= 150 }).toEqual({
      hung: 'ECONNRESET',
      cutAfterGrace: true,
    });
  });
});
