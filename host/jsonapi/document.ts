/**
 * Envelopes as the spec and Planning Center's API: single `{data, included, meta: {parent}}`; collection
 * `{data, included, meta: {total_count, count, prev?, next?, parent, can_query_by?}, links: {self, prev?, next?}}`.
 * `included` is always there (empty when nothing was included): community clients (pypco's `iterate()`,
 * Planning Center's JavaScript client when walking pages) read it unconditionally.
 * Links are absolute and keep every query parameter, so following `links.next` verbatim pages on.
 */
import type { CollectionQuery, ResourceQuery } from './query.ts';
import { resourceJson } from './resource-json.ts';
import { renderResource, type ResourceDefinition, type ResourceObject, type Row } from './resource.ts';

export interface Parent {
  id: string;
  type: string;
}

/** Rows of another type to put under `included`. */
export interface IncludedGroup {
  definition: ResourceDefinition;
  rows: Row[];
}

export interface SingleDocument {
  data: ResourceObject;
  included: ResourceObject[];
  meta: { parent: Parent };
}

export interface CollectionDocument {
  data: ResourceObject[];
  included: ResourceObject[];
  meta: {
    total_count: number;
    count: number;
    prev?: { offset: number };
    next?: { offset: number };
    parent: Parent;
    can_query_by?: string[];
  };
  links: { self: string; prev?: string; next?: string };
}

/** The `included` member: each related resource once, in its fields; `[]` when nothing was asked for. */
function renderIncluded(
  groups: readonly IncludedGroup[] | undefined,
  query: ResourceQuery,
  baseUrl: string,
): ResourceObject[] {
  if (!groups || query.include.length === 0) return [];
  const seen = new Set<string>();
  const out: ResourceObject[] = [];
  for (const { definition, rows } of groups) {
    for (const row of rows) {
      const resource = renderResource(definition, row, baseUrl, query.fields.get(definition.type));
      const key = `${resource.type}:${resource.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(resource);
    }
  }
  return out;
}

/** The envelope of one resource. */
export function singleDocument(input: {
  definition: ResourceDefinition;
  row: Row;
  parent: Parent;
  query: ResourceQuery;
  baseUrl: string;
  included?: readonly IncludedGroup[];
}): SingleDocument {
  return {
    data: renderResource(input.definition, input.row, input.baseUrl, input.query.fields.get(input.definition.type)),
    included: renderIncluded(input.included, input.query, input.baseUrl),
    meta: { parent: input.parent },
  };
}

/** What a collection page is rendered from. */
export interface CollectionInput {
  definition: ResourceDefinition;
  rows: readonly Row[];
  total: number;
  parent: Parent;
  query: CollectionQuery;
  baseUrl: string;
  /** The request's path and query string (`req.originalUrl`). */
  requestUrl: string;
  included?: readonly IncludedGroup[];
}

/** The envelope of one page of a collection, with its paging links. */
export function collectionDocument(input: CollectionInput): CollectionDocument {
  const fields = input.query.fields.get(input.definition.type);
  return {
    data: input.rows.map((row) => renderResource(input.definition, row, input.baseUrl, fields)),
    included: renderIncluded(input.included, input.query, input.baseUrl),
    ...collectionMetaAndLinks(input),
  };
}

/** `JSON.stringify(collectionDocument(input))`, the resources written straight from their rows. */
export function collectionDocumentJson(input: CollectionInput): string {
  const fields = input.query.fields.get(input.definition.type);
  const data = input.rows.map((row) => resourceJson(input.definition, row, input.baseUrl, fields)).join(',');
  const { meta, links } = collectionMetaAndLinks(input);
  const included = JSON.stringify(renderIncluded(input.included, input.query, input.baseUrl));
  return `{"data":[${data}],"included":${included},"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
}

function collectionMetaAndLinks(input: CollectionInput): Pick<CollectionDocument, 'meta' | 'links'> {
  const { definition, rows, total, query, baseUrl } = input;
  // Links keep the request's query string as sent (same encoding, same order); paging only
  // replaces the offset pair.
  const at = input.requestUrl.indexOf('?');
  const path = at === -1 ? input.requestUrl : input.requestUrl.slice(0, at);
  const pairs =
    at === -1
      ? []
      : input.requestUrl
          .slice(at + 1)
          .split('&')
          .filter(Boolean);
  const withoutOffset = pairs.filter(
    (pair) => decodeURIComponent(pair.split('=')[0]!.replace(/\+/g, ' ')) !== 'offset',
  );
  const link = (query: string[]) => `${baseUrl}${path}${query.length ? `?${query.join('&')}` : ''}`;
  const pageLink = (offset: number) => link([...withoutOffset, `offset=${offset}`]);
  const hasNext = query.offset + rows.length < total && rows.length > 0;
  const hasPrev = query.offset > 0;
  const prevOffset = Math.max(0, Math.min(query.offset, total) - query.perPage);
  const nextOffset = query.offset + query.perPage;

  const meta: CollectionDocument['meta'] = {
    total_count: total,
    count: rows.length,
    ...(hasPrev ? { prev: { offset: prevOffset } } : {}),
    ...(hasNext ? { next: { offset: nextOffset } } : {}),
    parent: input.parent,
    ...(definition.canQueryBy ? { can_query_by: [...definition.canQueryBy] } : {}),
  };

  const links: CollectionDocument['links'] = { self: link(pairs) };
  if (hasPrev) links.prev = pageLink(prevOffset);
  if (hasNext) links.next = pageLink(nextOffset);

  return { meta, links };
}
