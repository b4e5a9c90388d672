/** Free TCP ports for tests that must name a port before a process starts (never a fixed one). */
import { createServer } from 'node:net';

/** A port free right now on 127.0.0.1 (another process may take it later: use it at once). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
