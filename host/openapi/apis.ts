/**
 * The product APIs the host mounts and describes, with their words. host/app.ts mounts each under its
 * prefix and serves its document; adding an API is one entry in the list app.ts builds from these.
 */
import type { Router } from 'express';
import { LATEST_API_VERSION } from '../api/api-version.ts';
import { API_PREFIX, openApiDocument } from './developer-api-document.ts';
import { SCOPE_DESCRIPTIONS } from '../oauth/scopes.ts';
import type { DocumentLink } from '../docs/docs-page.tsx';
import type { ServedDocument } from './documents-router.ts';
import { oauthDocument } from './oauth-document.ts';
import type { ProductApi } from './product-api.ts';
import { productDocument } from './product-document.ts';

const COMMON = `**Authentication**: an OAuth 2.0 access token (Bearer) or a personal access token (HTTP Basic: client_id as user name, secret as password). Every request must carry a User-Agent header.

**Envelopes**: every response body has \`data\`, \`included\` and \`meta\`; collections also have \`links\`. Errors are \`{"errors": [{status, code?, title, detail, source?, meta?}]}\`.

**Pagination**: collections take \`per_page\` (1 to 100, default 25) and \`offset\`; \`links.next\` keeps every query parameter and can be followed verbatim.

**Caching**: GET answers carry a weak ETag; send it back in If-None-Match to get 304 when nothing changed.`;

/** `/current/v2`: the requester, for any token. */
export function currentApi(router: Router): ProductApi {
  return {
    product: 'current',
    prefix: '/current/v2',
    title: 'Current person',
    description: `Who the token belongs to, for every OAuth application with no scope needed (\`include=organization\` adds the Organization).\n\n${COMMON}`,
    router,
    tags: { me: 'The person the token belongs to.' },
  };
}

/** `/people/v2`: people, lists, notes. */
export function peopleApi(router: Router): ProductApi {
  return {
    product: 'people',
    prefix: '/people/v2',
    title: 'People',
    description: `People, their notes, lists (with rules, results, runs and bulk-mail sync) and categories of the requester's organization. Reading needs the People viewer role, writing the editor role (the manager role to name another author). Ids of another organization are 404.\n\n${COMMON}`,
    scope: { name: 'people', description: SCOPE_DESCRIPTIONS.people },
    router,
    tags: {
      me: 'The requester as a Person.',
      people: 'People of the organization, and their notes.',
      notes: 'Notes about people.',
      note_categories: 'Categories of notes.',
      lists: 'Lists: rules, results, shares, stars, runs and bulk-mail sync.',
      campuses: 'Campuses and their lists.',
      list_categories: 'Categories of lists.',
    },
  };
}

/** Every document the host serves: the developer API's, each product API's and the OAuth endpoints'. */
export function servedDocuments(apis: readonly ProductApi[], baseUrl: string): ServedDocument[] {
  return [
    ...apis.map((api) => ({ product: api.product, build: (v: string) => productDocument(api, baseUrl, v) })),
    { product: 'oauth', build: (v: string) => oauthDocument(baseUrl, v) },
  ];
}

/**
 * Where each document is, for the reference UI's navigation (the product APIs first), and where a /docs console
 * token for it is accepted with which scope (the OAuth endpoints take none).
 */
export function documentLinks(apis: readonly ProductApi[]): DocumentLink[] {
  return [
    ...apis.map((api) => ({
      id: api.product,
      title: api.title,
      url: `/${api.product}/v2/open_api`,
      console: { apiPrefix: api.prefix, scope: api.scope?.name ?? null },
    })),
    {
      id: 'api',
      title: openApiDocument('', LATEST_API_VERSION).info.title,
      url: '/api/v2/open_api',
      console: { apiPrefix: API_PREFIX, scope: 'api' },
    },
    { id: 'oauth', title: 'OAuth 2.0 and OpenID Connect', url: '/oauth/v2/open_api' },
  ];
}
