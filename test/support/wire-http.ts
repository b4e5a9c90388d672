/**
 * One HTTP/1.1 exchange over a real socket with exactly the given headers, after Host (node:http adds
 * nothing to a raw header list; Content-Length is added for a body). Client emulations use it so the host
 * sees what the real client would send — no fetch()-added headers.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';

/** What came back: status, reason phrase, headers and the (decoded) body text. */
export interface WireResponse {
  status: number;
  reason: string;
  headers: IncomingHttpHeaders;
  text: string;
}

/** Sends `method url` with `headers` (in this order) and `body`, and reads the whole answer. */
export function wireRequest(
  method: string,
  url: string,
  headers: [string, string][],
  body?: string,
): Promise<WireResponse> {
  const all: [string, string][] = [['Host', new URL(url).host], ...headers];
  if (body !== undefined) all.push(['Content-Length', String(Buffer.byteLength(body))]);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: all.flat() }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        // The clients ask for gzip/deflate and decode it; do the same should the host ever compress.
        const encoding = res.headers['content-encoding'];
        const decoded = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'deflate' ? inflateSync(raw) : raw;
        const text = decoded.toString('utf8');
        resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: res.headers, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
