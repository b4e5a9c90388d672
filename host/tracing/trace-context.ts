/**
 * The process's trace context: OpenTelemetry's context on AsyncLocalStorage (registered once per process, so the
 * active span follows a request through every await), the W3C `traceparent` format, and the fields every log line
 * of a request carries.
 * @see https://www.w3.org/TR/trace-context/
 */
import { context, createContextKey, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** `traceparent` and `tracestate`, read and written. */
export const TRACE_CONTEXT = new W3CTraceContextPropagator();
/** Where a request's id is kept in its context, beside its span. */
export const REQUEST_ID = createContextKey('addon-kit request id');

let registered = false;
/** Makes the active context follow async work; once per process (a second host in the process shares it). */
export function registerContextManager(): void {
  if (registered) return;
  registered = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** `{traceId, spanId, requestId}` of the request being handled, for its log lines; `{}` outside a request. */
export function logFields(): { traceId?: string; spanId?: string; requestId?: string } {
  const active = context.active();
  const span = trace.getSpanContext(active);
  const requestId = active.getValue(REQUEST_ID) as string | undefined;
  return {
    ...(span ? { traceId: span.traceId, spanId: span.spanId } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

/**
 * The headers that send the active trace on with an outgoing call (`traceparent`, and `tracestate` when there is
 * one), so the integrator and the host's own API continue it; `{}` outside a traced request.
 */
export function traceHeaders(from: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  TRACE_CONTEXT.inject(from, headers, {
    set: (carrier: Record<string, string>, key: string, value: string) => (carrier[key] = value),
  });
  return headers;
}
