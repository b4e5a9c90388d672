/**
 * W3C trace context on the host: an incoming `traceparent` is continued, every log line of a request names its trace
 * and request, and with an OTLP endpoint the spans reach an OpenTelemetry collector (a local OTLP/HTTP receiver).
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { createLogger } from '#host/logger.ts';
import { createHostTracing, logFields, traceHeaders } from '#host/tracing/index.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, createTestHost } from '../../support/host.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;

/** A logger writing JSON lines into an array. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  return { logger: createLogger('info', stream), lines };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('traceparent', () => {
  it('is continued: the request’s log lines carry its trace id, a span of their own and the request id', async () => {
    const { logger, lines } = capturedLogger();
    const t = await createTestHost({ deps: { logger } });
    try {
      await t.db.close(); // the health check then logs a warning while it handles the request
      const res = await supertest(t.host.app).get('/health').set('traceparent', TRACEPARENT);
      expect(res.status).toBe(503);
      await settle();
      const requestId = res.headers['x-request-id'];
      const warning = lines.find((l) => l.msg === 'health check: database unavailable')!;
      const request = lines.find((l) => l.msg === 'request')!;
      expect({ traceId: warning.traceId, requestId: warning.requestId }).toEqual({ traceId: TRACE_ID, requestId });
      expect(warning.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(warning.spanId).not.toBe(PARENT_SPAN_ID);
      expect({ traceId: request.traceId, requestId: request.requestId }).toEqual({ traceId: TRACE_ID, requestId });
    } finally {
      await t.host.close();
    }
  });

  it('starts a new trace for a request without one (and for a malformed one), one per request', async () => {
    const { logger, lines } = capturedLogger();
    const t = await createTestHost({ deps: { logger } });
    try {
      await supertest(t.host.app).get('/health');
      await supertest(t.host.app).get('/health').set('traceparent', '00-zzzz-not-a-trace-01');
      await settle();
      const traces = lines.filter((l) => l.msg === 'request').map((l) => l.traceId);
      expect(traces).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.stringMatching(/^[0-9a-f]{32}$/)]);
      expect(new Set(traces).size).toBe(2);
    } finally {
      await t.close();
    }
  });
});

describe('createHostTracing() without an endpoint', () => {
  /** What the request's handlers see: the trace id on the request and the headers sent on with a call. */
  function handled(headers: Record<string, string>) {
    const tracing = createHostTracing();
    const req = { method: 'POST', headers, requestId: 'r-1' } as unknown as Request;
    let seen: { out: Record<string, string>; log: ReturnType<typeof logFields> } | undefined;
    void tracing.traceRequests(req, new EventEmitter() as unknown as Response, () => {
      seen = { out: traceHeaders(), log: logFields() };
    });
    return { traceId: req.traceId, ...seen! };
  }

  it('sends the incoming trace on with its sampled flag and tracestate, from a span id of its own [continued]', () => {
    for (const flags of ['00', '01']) {
      const { traceId, out, log } = handled({
        traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-${flags}`,
        tracestate: 'a=1',
      });
      expect(traceId).toBe(TRACE_ID);
      expect(log).toEqual({ traceId: TRACE_ID, spanId: expect.stringMatching(/^[0-9a-f]{16}$/), requestId: 'r-1' });
      expect(log.spanId).not.toBe(PARENT_SPAN_ID);
      expect(out).toEqual({ traceparent: `00-${TRACE_ID}-${log.spanId}-${flags}`, tracestate: 'a=1' });
    }
  });

  it('starts a new sampled trace without a valid traceparent (an all-zero trace id is not one) [new]', () => {
    const cases: Record<string, string>[] = [{}, { traceparent: `00-${'0'.repeat(32)}-${PARENT_SPAN_ID}-01` }];
    for (const headers of cases) {
      const { traceId, out, log } = handled(headers);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(traceId).not.toBe('0'.repeat(32));
      expect(out).toEqual({ traceparent: `00-${traceId}-${log.spanId}-01` });
    }
  });
});

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

describe('OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('sends the requests’ spans to the collector as OTLP/HTTP, parented on the incoming traceparent', async () => {
    const received: { path: string; type: string | undefined; body: unknown }[] = [];
    const collector: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ path: req.url!, type: req.headers['content-type'], body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const t = await createTestHost({ config: { otlpEndpoint: endpoint } });
    try {
      const basic = await basicAuthFor(t.db, 'admin@demo.test');
      const res = await supertest(t.host.app)
        .get('/people/v2/lists/1')
        .set('User-Agent', TEST_USER_AGENT)
        .set('Authorization', basic)
        .set('traceparent', TRACEPARENT);
      expect(res.status).toBe(200);
      await t.host.close(); // flushes the batch
      const spans = received.flatMap((r) =>
        (r.body as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((rs) =>
          rs.scopeSpans.flatMap((ss) => ss.spans),
        ),
      );
      expect(received.map((r) => [r.path, r.type])).toEqual([['/v1/traces', 'application/json']]);
      const span = spans.find((s) => s.traceId === TRACE_ID)!;
      expect({ name: span.name, parent: span.parentSpanId, kind: span.kind }).toEqual({
        name: 'GET /people/v2/lists/:id',
        parent: PARENT_SPAN_ID,
        kind: 2, // SPAN_KIND_SERVER
      });
      const attributes = Object.fromEntries(
        span.attributes.map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]),
      );
      expect(attributes).toEqual({
        'http.request.method': 'GET',
        'http.route': '/people/v2/lists/:id',
        'http.response.status_code': 200,
      });
    } finally {
      await t.db.close();
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});
