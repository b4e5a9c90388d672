/** A real local HTTP receiver for delivery tests: records every request (raw body, headers, time) and answers by a script. */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body's EventDelivery: id, name, attempt, payload. */
  delivery: { id: string; name: string; attempt: number; payload: string };
}

/** How the receiver answers the n-th request (0-based): a status, a status and body, or 'hang' (never answers). */
export type Answer = number | { status: number; body: string } | 'hang';

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (a free port) answering `answer(n)` to the n-th request, 200 by default. */
export async function startReceiver(answer: (n: number) => Answer = () => 200, delayMs = 0): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const n = received.length;
      const parsed = JSON.parse(body) as {
        data: [{ id: string; attributes: { name: string; attempt: number; payload: string } }];
      };
      const [item] = parsed.data;
      received.push({ at: Date.now(), headers: req.headers, body, delivery: { id: item.id, ...item.attributes } });
      for (const w of waiting.filter((w) => received.length >= w.count)) w.resolve();
      const a = answer(n);
      if (a === 'hang') {
        hanging.push(res);
        return;
      }
      const reply = () => {
        if (typeof a === 'number') res.writeHead(a).end('ok');
        else res.writeHead(a.status, { 'Content-Type': 'text/plain' }).end(a.body);
      };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests`)),
          timeoutMs,
        );
        waiting.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
