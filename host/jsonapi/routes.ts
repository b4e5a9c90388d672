/**
 * Route declaration from resource definitions: the handler loads rows for an already parsed query;
 * parsing, envelopes and links are done here, the same way for every route.
 */
import type { Request, RequestHandler, Response } from 'express';
import { NotFoundError } from '../errors.ts';
import { collectionDocumentJson, singleDocument, type IncludedGroup, type Parent } from './document.ts';
import { parseCollectionQuery, parseResourceQuery, type CollectionQuery, type ResourceQuery } from './query.ts';
import type { PayloadShape } from './payload.ts';
import type { ResourceDefinition, Row } from './resource.ts';
import { describeRoute } from './route-description.ts';

export interface CollectionLoad {
  rows: Row[];
  total: number;
  parent: Parent;
  included?: IncludedGroup[];
}

export interface SingleLoad {
  /** `undefined` → 404. */
  row: Row | undefined;
  parent: Parent;
  included?: IncludedGroup[];
}

/** Options shared by both kinds of route. */
export interface RouteOptions {
  /** Types that may appear under `included` (so `fields[Type]` accepts them). */
  related?: readonly ResourceDefinition[];
  /** Status of the response (201 for a create). */
  status?: number;
  /** The write body the route reads (its OpenAPI request body is generated from it). */
  payload?: PayloadShape;
}

/** The query string of a request as ordered pairs, exactly as sent. */
export function queryPairs(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : req.originalUrl.slice(at + 1));
}

/** Public base URL of the host, set once by the app. */
export function baseUrlOf(req: Request): string {
  return req.app.locals.baseUrl as string;
}

/**
 * Caching of GET answers: Express sends a weak ETag over the rendered body and answers a matching
 * `If-None-Match` with 304 (no body). The answer depends on who asks, so only the requester's own cache
 * may keep it (`private`), and it asks again each time (`no-cache`): the 304 comes only when the body this
 * requester would get now is the one it holds.
 * @see RFC 9110 §13.1.2 (If-None-Match), RFC 9111 §5.2.2.4 (no-cache), §5.2.2.7 (private)
 */
export const GET_CACHE_CONTROL = 'private, no-cache';

function setCacheControl(req: Request, res: Response): void {
  if (req.method === 'GET' || req.method === 'HEAD') res.set('Cache-Control', GET_CACHE_CONTROL);
}

/** A GET collection route for `definition`. */
export function collectionRoute(
  definition: ResourceDefinition,
  load: (req: Request, query: CollectionQuery) => Promise<CollectionLoad>,
  options: RouteOptions = {},
): RequestHandler {
  return describeRoute(routeDescription('collection', definition, options), async (req, res) => {
    const query = parseCollectionQuery(queryPairs(req), definition, options.related);
    const result = await load(req, query);
    setCacheControl(req, res);
    // As res.json would send it (same bytes, same Content-Type), the JSON written straight from the rows.
    res
      .status(options.status ?? 200)
      .set('Content-Type', 'application/json')
      .send(
        collectionDocumentJson({ definition, ...result, query, baseUrl: baseUrlOf(req), requestUrl: req.originalUrl }),
      );
  });
}

/** A single-resource route for `definition` (GET, or the response of a write). */
export function singleRoute(
  definition: ResourceDefinition,
  load: (req: Request, query: ResourceQuery) => Promise<SingleLoad>,
  options: RouteOptions & { location?: boolean } = {},
): RequestHandler {
  return describeRoute(routeDescription('single', definition, options), async (req, res) => {
    const query = parseResourceQuery(queryPairs(req), definition, options.related);
    const result = await load(req, query);
    if (!result.row) throw new NotFoundError();
    const doc = singleDocument({
      definition,
      row: result.row,
      parent: result.parent,
      query,
      baseUrl: baseUrlOf(req),
      ...(result.included ? { included: result.included } : {}),
    });
    if (options.location && doc.data.links.self) res.location(doc.data.links.self);
    setCacheControl(req, res);
    res.status(options.status ?? 200).json(doc);
  });
}

function routeDescription(kind: 'collection' | 'single', definition: ResourceDefinition, options: RouteOptions) {
  return {
    kind,
    definition,
    related: options.related ?? [],
    status: options.status ?? 200,
    ...(options.payload ? { payload: options.payload } : {}),
  };
}

/** A path id: digits only, else the resource cannot exist (404, never a 500 from the database). */
export function pathId(req: Request, name: string): string {
  const raw = req.params[name];
  if (typeof raw !== 'string' || !/^[1-9]\d{0,17}$/.test(raw)) throw new NotFoundError();
  return raw;
}
