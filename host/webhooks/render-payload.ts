/**
 * An event's payload: the resource as the API renders it — the same envelope a `GET` of it answers (all its
 * attributes, its relationships and links, `included` empty, `meta.parent`).
 */
import { singleDocument, type Parent, type SingleDocument } from '../jsonapi/document.ts';
import { parseResourceQuery } from '../jsonapi/query.ts';
import type { ResourceDefinition, Row } from '../jsonapi/resource.ts';

/** The single-resource document of `row`. */
export function renderPayload(
  definition: ResourceDefinition,
  row: Row,
  parent: Parent,
  baseUrl: string,
): SingleDocument {
  return singleDocument({
    definition,
    row,
    parent,
    query: parseResourceQuery(new URLSearchParams(), definition),
    baseUrl,
  });
}
