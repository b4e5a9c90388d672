/**
 * Traces of the host: every request gets a span — continuing the trace of an incoming W3C `traceparent`, or
 * starting one — whose ids are in every log line of the request. Spans are exported through the OpenTelemetry SDK
 * (OTLP over HTTP) only when an endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`); otherwise a request gets only
 * its span's ids (what the logs and the proxy's outgoing `traceparent` need), with no span recorded and dropped.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, RandomIdGenerator } from '@opentelemetry/sdk-trace-base';
import type { Request, RequestHandler } from 'express';
import { routeTemplate } from '../metrics/index.ts';
import { registerContextManager, REQUEST_ID, TRACE_CONTEXT } from './trace-context.ts';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The W3C trace id of the request's span (continued from its `traceparent`, or new). */
      traceId?: string;
    }
  }
}

export interface HostTracingOptions {
  /** OTLP/HTTP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`): spans are sent to `<endpoint>/v1/traces`; none: not sent. */
  otlpEndpoint?: string | undefined;
  /** `service.name` of the spans. */
  serviceName?: string;
}

export interface HostTracing {
  /** Whether spans leave the process. */
  readonly exporting: boolean;
  /** The span of each request, active for everything the request does. */
  traceRequests: RequestHandler;
  /** Sends what is pending and stops exporting. */
  shutdown(): Promise<void>;
}

/** Reads trace context from Node's request headers (lower-cased names). */
const HEADER_GETTER: TextMapGetter<IncomingHttpHeaders> = {
  get: (carrier, key) => carrier[key],
  keys: (carrier) => Object.keys(carrier),
};

/** The tracing of one host. */
export function createHostTracing(options: HostTracingOptions = {}): HostTracing {
  registerContextManager();
  const endpoint = options.otlpEndpoint?.replace(/\/+$/, '');
  if (endpoint === undefined) {
    return { exporting: false, traceRequests: traceIdsOnly(new RandomIdGenerator()), shutdown: async () => {} };
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'addon-kit-host' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))],
  });
  const tracer: Tracer = provider.getTracer('addon-kit-host');
  return {
    exporting: true,
    traceRequests: (req, res, next) => {
      const parent = TRACE_CONTEXT.extract(ROOT_CONTEXT, req.headers, HEADER_GETTER);
      const span = tracer.startSpan(
        req.method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
        parent,
      );
      res.once('close', () => {
        const route = routeTemplate(req, res.statusCode);
        span.updateName(`${req.method} ${route}`);
        span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      runInSpan(req, parent, span, next);
    },
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Nothing exported: the request's span is only its ids — the incoming trace continued (its sampled flag and
 * `tracestate` kept) or a new, sampled one, and a span id of its own, as the SDK's default sampler would give
 * them — without a recorded span that would be dropped at its end (a span object, its attributes and timing on
 * every request cost the busiest route, the add-on proxy, a few per cent of its CPU).
 */
function traceIdsOnly(ids: RandomIdGenerator): RequestHandler {
  return (req, _res, next) => {
    const parent = TRACE_CONTEXT.extract(ROOT_CONTEXT, req.headers, HEADER_GETTER);
    const remote = trace.getSpanContext(parent);
    const continued = remote !== undefined && trace.isSpanContextValid(remote) ? remote : undefined;
    const span = trace.wrapSpanContext({
      traceId: continued?.traceId ?? ids.generateTraceId(),
      spanId: ids.generateSpanId(),
      traceFlags: continued ? continued.traceFlags & TraceFlags.SAMPLED : TraceFlags.SAMPLED,
      ...(continued?.traceState ? { traceState: continued.traceState } : {}),
    });
    runInSpan(req, parent, span, next);
  };
}

/** Runs the rest of the request with `span` (and the request id) active; its trace id goes on the request. */
function runInSpan(req: Request, parent: Context, span: Span, next: () => void): void {
  req.traceId = span.spanContext().traceId;
  context.with(trace.setSpan(parent, span).setValue(REQUEST_ID, req.requestId), next);
}
