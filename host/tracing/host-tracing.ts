/**
 * Traces of the host: every request gets a span — continuing the trace of an incoming W3C `traceparent`, or
 * starting one — whose ids are in every log line of the request. Spans are exported through the OpenTelemetry SDK
 * (OTLP over HTTP) only when an endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT`); otherwise they are made (the
 * ids the logs and the proxy's outgoing `traceparent` need) and dropped.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RequestHandler } from 'express';
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
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'addon-kit-host' }),
    spanProcessors: endpoint ? [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))] : [],
  });
  const tracer: Tracer = provider.getTracer('addon-kit-host');
  return {
    exporting: endpoint !== undefined,
    traceRequests: (req, res, next) => {
      const parent = TRACE_CONTEXT.extract(ROOT_CONTEXT, req.headers, HEADER_GETTER);
      const span = tracer.startSpan(
        req.method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
        parent,
      );
      req.traceId = span.spanContext().traceId;
      res.once('close', () => {
        const route = routeTemplate(req, res.statusCode);
        span.updateName(`${req.method} ${route}`);
        span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      context.with(trace.setSpan(parent, span).setValue(REQUEST_ID, req.requestId), next);
    },
    shutdown: () => provider.shutdown(),
  };
}
