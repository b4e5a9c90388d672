/**
 * A developer-account endpoint declared as data: the router mounts it and the OpenAPI description is
 * generated from it, so the two cannot disagree.
 */
import type { Database } from '../db/database.ts';
import type { PersonRecord } from '../auth/person.ts';
import type { CollectionQuery, ResourceQuery } from '../jsonapi/query.ts';
import type { ResourceDefinition } from '../jsonapi/resource.ts';
import type { CollectionLoad, SingleLoad } from '../jsonapi/routes.ts';

/** Who may call an endpoint (beyond being authenticated with scope `api` or a personal access token). */
export type Access = 'any_person' | 'organization_administrator';

/** What a load function gets: the database, the requester, the path parameters and the time. */
export interface EndpointContext {
  db: Database;
  person: PersonRecord;
  /** A numeric path id; throws 404 when it is not one. */
  id(name: string): string;
  /** A path parameter as sent. */
  param(name: string): string;
  now: Date;
}

/** A `{name}` segment of an endpoint path. */
export interface PathParameter {
  name: string;
  description: string;
}

interface EndpointBase {
  /** OpenAPI path template relative to /api/v2, e.g. `/oauth_applications/{oauth_application_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  definition: ResourceDefinition;
  /** `meta.parent.type` of the response. */
  parentType: string;
  pathParameters: readonly PathParameter[];
  access: Access;
}

/** An endpoint answering a page of resources. */
export interface CollectionEndpoint extends EndpointBase {
  kind: 'collection';
  load(ctx: EndpointContext, query: CollectionQuery): Promise<CollectionLoad>;
}

/** An endpoint answering one resource (404 when the load finds none). */
export interface SingleEndpoint extends EndpointBase {
  kind: 'single';
  load(ctx: EndpointContext, query: ResourceQuery): Promise<SingleLoad>;
}

/** Any developer-account endpoint. */
export type Endpoint = CollectionEndpoint | SingleEndpoint;

/** The Express form of an OpenAPI path template (`{id}` → `:id`). */
export function expressPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1') || '/';
}
