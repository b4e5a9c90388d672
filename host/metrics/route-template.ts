/**
 * The route a request took, as a template (`/people/v2/lists/:id`), never the path as sent: a metric labelled by raw
 * paths would grow a series per id. Express keeps the matched route (`req.route.path`) but not where its router was
 * mounted once an error unwound it, so the mount is read off the path itself with its ids collapsed.
 */
import type { Request } from 'express';

/** Every request no route answered (404s, hostile paths) shares one label. */
export const UNMATCHED_ROUTE = 'unmatched';

/** A path segment that is an id, a token or a content hash rather than a name. */
function isIdentifier(segment: string): boolean {
  return /^\d+$/.test(segment) || segment.length >= 16 || (segment.length >= 8 && /\d/.test(segment));
}

function collapse(segments: string[]): string[] {
  return segments.map((s) => (isIdentifier(s) ? ':id' : s));
}

/** The request's route template, from the matched route when there is one, else from its path (ids collapsed). */
export function routeTemplate(req: Request, status: number): string {
  const path = (req.originalUrl.split('?', 1)[0] ?? '/').replace(/\/+$/, '') || '/';
  const segments = path.split('/').slice(1);
  const route = req.route as { path?: unknown } | undefined;
  if (typeof route?.path === 'string' && !/[*{(]/.test(route.path)) {
    const routeSegments = route.path.split('/').filter(Boolean);
    const mount = collapse(segments.slice(0, Math.max(0, segments.length - routeSegments.length)));
    return `/${[...mount, ...routeSegments].join('/')}`;
  }
  if (status === 404) return UNMATCHED_ROUTE;
  return `/${collapse(segments).join('/')}`;
}
