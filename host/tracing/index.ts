/** The host's traces (W3C trace context, OpenTelemetry): the only door for the rest of the host. */
export { createHostTracing, type HostTracing, type HostTracingOptions } from './host-tracing.ts';
export { logFields, traceHeaders } from './trace-context.ts';
