/** The client's address as the host sees it: Express's `req.ip`, which honours the `trustProxy` setting. */
import type { Request } from 'express';

/** `req.ip` (X-Forwarded-For only from trusted proxies), else the socket's peer; IPv4-mapped IPv6 unwrapped. */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
