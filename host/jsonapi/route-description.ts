/**
 * What a declared route answers, kept beside its handler: the OpenAPI generator reads it from the
 * mounted router (host/openapi/), so the description comes from the same declaration as the route.
 */
import type { RequestHandler } from 'express';
import type { PayloadShape } from './payload.ts';
import type { ResourceDefinition } from './resource.ts';

/** A route declared with `collectionRoute` or `singleRoute`. */
export interface RouteDescription {
  kind: 'collection' | 'single';
  definition: ResourceDefinition;
  /** Types that may appear under `included`. */
  related: readonly ResourceDefinition[];
  /** Status of a success. */
  status: number;
  /** The write body it reads, if any. */
  payload?: PayloadShape;
}

const descriptions = new WeakMap<RequestHandler, RouteDescription>();

/** Records what `handler` answers and returns it. */
export function describeRoute(description: RouteDescription, handler: RequestHandler): RequestHandler {
  descriptions.set(handler, description);
  return handler;
}

/** The description recorded for `handler`, if it was declared through the JSON:API route helpers. */
export function routeDescriptionOf(handler: unknown): RouteDescription | undefined {
  return typeof handler === 'function' ? descriptions.get(handler as RequestHandler) : undefined;
}
