/**
 * A product API as the OpenAPI generator sees it: where it is mounted, the router that serves it and the
 * words around it. The host lists its APIs once (host/app.ts); each becomes a document at
 * `/{product}/v2/open_api/{version}` and a section of `/docs`.
 */
import type { Router } from 'express';
import type { Scope } from '../auth/require-scope.ts';

export interface ProductApi {
  /** The path segment of the product, e.g. `people`. */
  product: string;
  /** Where the router is mounted, e.g. `/people/v2`. */
  prefix: string;
  title: string;
  /** Markdown shown above the operations. */
  description: string;
  /** The OAuth scope its tokens need; none for APIs any token may call. */
  scope?: { name: Scope; description: string };
  /** The mounted router (its routes are described from their declarations). */
  router: Router;
  /** Descriptions of the first path segments (tags). */
  tags?: Record<string, string>;
}
