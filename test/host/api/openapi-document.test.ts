import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, type TestHost } from '../../support/host.ts';
import { developerApiRouter } from '#host/api/developer-api-router.ts';
import { openApiRuleViolations } from '../../support/openapi-rules.ts';
import {
  createOpenApiValidator,
  documentedApi,
  servedOpenApiDocument,
  type DocumentedApi,
} from '../../support/openapi.ts';
import { insertApplication, insertMonthlyActiveUser, organizationId, somePeople } from './fixtures.ts';

type Json = Record<string, any>;

let t: TestHost;
let doc: Json;
let api: DocumentedApi;
let admin: string;
let app: string;

beforeAll(async () => {
  t = await createTestHost({ deps: { now: () => new Date('2026-11-15T00:00:00Z') } });
  doc = await servedOpenApiDocument(t);
  api = await documentedApi(t);
  admin = await basicAuthFor(t.db, 'admin@demo.test');
  const demo = await organizationId(t.db, 'demo');
  app = await insertApplication(t.db, demo, 'Doc App');
  await insertMonthlyActiveUser(t.db, app, (await somePeople(t.db, demo, 1))[0]!, 2026, 11);
});
afterAll(() => t.close());

const PATHS = [
  '/api/v2',
  '/api/v2/connected_applications',
  '/api/v2/connected_applications/{connected_application_id}',
  '/api/v2/connected_applications/{connected_application_id}/people',
  '/api/v2/connected_applications/{connected_application_id}/people/{person_id}',
  '/api/v2/oauth_applications',
  '/api/v2/oauth_applications/{oauth_application_id}',
  '/api/v2/oauth_applications/{oauth_application_id}/mau',
  '/api/v2/oauth_applications/{oauth_application_id}/mau/{mau_id}',
  '/api/v2/personal_access_tokens',
  '/api/v2/personal_access_tokens/{personal_access_token_id}',
];

const parameterNames = (path: string) => (doc.paths[path].get.parameters as Json[]).map((p) => p.name ?? p.$ref);

describe('GET /api/v2/open_api/{version}', () => {
  it('serves the OpenAPI 3.1 description without credentials or User-Agent [2025-09-30]', async () => {
    const res = await t.api().get('/api/v2/open_api/2025-09-30').set('User-Agent', '');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-api-version']).toBe('2025-09-30');
    expect(res.body.openapi).toBe('3.1.0');
    // The default OAS 3.1 dialect: Swagger UI shows a warning above the reference for any declared other one.
    expect(res.body).not.toHaveProperty('jsonSchemaDialect');
    expect(res.body.info).toMatchObject({
      title: 'Organization Developer API',
      version: '2025-09-30',
      'x-platform-release': '16.4.2',
    });
    expect(res.body.servers).toEqual([{ url: TEST_BASE_URL }]);
  });

  it('serves the same document at the latest aliases [/open_api, /open_api/latest]', async () => {
    for (const alias of ['/api/v2/open_api', '/api/v2/open_api/latest']) {
      const res = await t.api().get(alias);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(doc);
    }
  });

  it('answers 400 unsupported_version for a version it does not describe [2024-01-01]', async () => {
    const res = await t.api().get('/api/v2/open_api/2024-01-01');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unsupported_version',
          title: 'Invalid Version',
          detail:
            'API version "2024-01-01" is not supported; send one of 2025-09-30 in X-API-Version, or no X-API-Version for the latest',
          meta: { supported_versions: ['2025-09-30'] },
        },
      ],
    });
  });

  it('declares OAuth 2.0 authorization code with scope api and HTTP Basic, either one required', () => {
    expect(doc.components.securitySchemes).toEqual({
      oauth2: {
        type: 'oauth2',
        description: expect.any(String),
        flows: {
          authorizationCode: {
            authorizationUrl: `${TEST_BASE_URL}/oauth/authorize`,
            tokenUrl: `${TEST_BASE_URL}/oauth/token`,
            refreshUrl: `${TEST_BASE_URL}/oauth/refresh`,
            scopes: { api: expect.any(String) },
          },
        },
      },
      personal_access_token: { type: 'http', scheme: 'basic', description: expect.any(String) },
    });
    expect(doc.security).toEqual([{ oauth2: ['api'] }, { personal_access_token: [] }]);
  });

  it("describes exactly the API's paths, each a GET with every error status", () => {
    expect(Object.keys(doc.paths)).toEqual(PATHS);
    for (const path of PATHS) {
      expect(Object.keys(doc.paths[path])).toEqual(['get']);
      expect(Object.keys(doc.paths[path].get.responses)).toEqual(['200', '400', '401', '403', '404', '429', '500']);
    }
  });

  it('documents exactly the routes the developer API router mounts', () => {
    const stack = (
      developerApiRouter({ db: t.db }) as unknown as {
        stack: { route?: { path: string; methods: Record<string, boolean> } }[];
      }
    ).stack;
    const mounted = stack
      .filter((layer) => layer.route)
      .map((layer) => `${Object.keys(layer.route!.methods).join(',')} ${layer.route!.path}`);
    const documented = PATHS.map((p) => `get ${p.slice('/api/v2'.length).replace(/\{([a-z_]+)\}/g, ':$1') || '/'}`);
    expect(mounted).toEqual(documented);
  });

  it('lists the parameters each endpoint accepts [path ids, fields, where, per_page, offset, headers]', () => {
    const headers = ['#/components/parameters/ApiVersion', '#/components/parameters/UserAgent'];
    expect(parameterNames('/api/v2')).toEqual(headers);
    expect(parameterNames('/api/v2/connected_applications')).toEqual([
      'fields[ConnectedApplication]',
      'per_page',
      'offset',
      ...headers,
    ]);
    expect(parameterNames('/api/v2/connected_applications/{connected_application_id}/people')).toEqual([
      'connected_application_id',
      'fields[ConnectedApplicationPerson]',
      'where[site_administrator]',
      'per_page',
      'offset',
      ...headers,
    ]);
    expect(parameterNames('/api/v2/oauth_applications/{oauth_application_id}/mau/{mau_id}')).toEqual([
      'oauth_application_id',
      'mau_id',
      'fields[OauthApplicationMau]',
      ...headers,
    ]);
    expect(parameterNames('/api/v2/personal_access_tokens/{personal_access_token_id}')).toEqual([
      'personal_access_token_id',
      'fields[PersonalAccessToken]',
      ...headers,
    ]);
  });

  it("gives fields[...] the spec's values, without access_mode and with oauth_application", () => {
    const fields = (path: string, name: string): Json =>
      (doc.paths[path].get.parameters as Json[]).find((p) => p.name === name) ?? {};
    expect(fields('/api/v2/connected_applications', 'fields[ConnectedApplication]')).toEqual({
      name: 'fields[ConnectedApplication]',
      in: 'query',
      description: expect.any(String),
      style: 'form',
      explode: false,
      schema: { type: 'array', uniqueItems: true, minItems: 1, items: { enum: ['description', 'name', 'url'] } },
    });
    expect(
      fields('/api/v2/oauth_applications/{oauth_application_id}/mau', 'fields[OauthApplicationMau]').schema.items.enum,
    ).toEqual(['count', 'month', 'year', 'oauth_application']);
    expect(
      fields('/api/v2/connected_applications/{connected_application_id}/people', 'where[site_administrator]').schema,
    ).toEqual({ type: 'boolean' });
    expect(fields('/api/v2/personal_access_tokens', 'per_page').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 25,
    });
    expect(fields('/api/v2/personal_access_tokens', 'offset').schema).toEqual({
      type: 'integer',
      minimum: 0,
      default: 0,
    });
  });

  it("describes every resource's attributes, links and relationships", () => {
    const s = doc.components.schemas;
    const attributes = (type: string) => s[type].properties.attributes.properties;
    expect(Object.keys(attributes('ConnectedApplication'))).toEqual(['name', 'description', 'url', 'access_mode']);
    expect(attributes('ConnectedApplication').access_mode.enum).toEqual(['anyone', 'admins_only', 'specific_people']);
    expect(Object.keys(attributes('ConnectedApplicationPerson'))).toEqual([
      'avatar_url',
      'connected_at',
      'first_name',
      'last_name',
      'scopes',
      'site_administrator',
    ]);
    expect(attributes('ConnectedApplicationPerson').connected_at).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
    expect(attributes('ConnectedApplicationPerson').scopes).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(Object.keys(attributes('OauthApplicationMau'))).toEqual(['count', 'month', 'year']);
    expect(Object.keys(attributes('PersonalAccessToken'))).toEqual(['name']);
    expect(s.ConnectedApplication.properties.links.required).toEqual(['self', 'people']);
    expect(s.OauthApplication.properties.links.required).toEqual(['self', 'mau']);
    expect(s.Organization.properties.links.required).toEqual([
      'self',
      'connected_applications',
      'oauth_applications',
      'personal_access_tokens',
    ]);
    expect(
      s.OauthApplicationMau.properties.relationships.properties.oauth_application.properties.data.oneOf[0].properties
        .type,
    ).toEqual({ const: 'OauthApplication' });
    expect(s.ConnectedApplicationPersonCollection.properties.meta.required).toEqual([
      'total_count',
      'count',
      'parent',
      'can_query_by',
    ]);
    expect(s.ConnectedApplicationCollection.properties.meta.properties.can_query_by).toBeUndefined();
    expect(s.OauthApplicationMauCollection.properties.meta.properties.parent.properties.type).toEqual({
      enum: ['OauthApplication'],
    });
    expect(s.ConnectedApplicationPersonDocument.properties.meta.properties.parent.properties.type).toEqual({
      enum: ['ConnectedApplication'],
    });
  });

  it('requires an included array on every envelope, always empty since nothing here can be included', () => {
    const envelopes = Object.entries(doc.components.schemas as Json).filter(([name]) =>
      /(Collection|Document)$/.test(name),
    );
    expect(envelopes.map(([name]) => name).sort()).toEqual([
      'ConnectedApplicationCollection',
      'ConnectedApplicationDocument',
      'ConnectedApplicationPersonCollection',
      'ConnectedApplicationPersonDocument',
      'OauthApplicationCollection',
      'OauthApplicationDocument',
      'OauthApplicationMauCollection',
      'OauthApplicationMauDocument',
      'OrganizationDocument',
      'PersonalAccessTokenCollection',
      'PersonalAccessTokenDocument',
    ]);
    for (const [, schema] of envelopes) {
      expect(schema.required).toContain('included');
      expect(schema.properties.included).toEqual({ type: 'array', maxItems: 0, description: expect.any(String) });
    }
  });

  it('follows the OpenAPI 3.1 rules a schema compile does not check [refs, path parameters, operation ids, security]', () => {
    expect(openApiRuleViolations(doc)).toEqual([]);
  });

  it('compiles, every schema, in ajv strict mode (draft 2020-12)', () => {
    expect(() => createOpenApiValidator(doc)).not.toThrow();
  });
});

describe('openApiRuleViolations()', () => {
  it('reports a broken reference, a path parameter missing from the template and an undeclared scope', () => {
    const broken = structuredClone(doc);
    broken.paths['/api/v2'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/Nothing',
    };
    broken.paths['/api/v2/oauth_applications/{oauth_application_id}'].get.parameters[0].name = 'id';
    broken.security = [{ oauth2: ['people'] }];
    expect(openApiRuleViolations(broken)).toEqual([
      '#/paths/~1api~1v2/get/responses/200/content/application~1json/schema: $ref #/components/schemas/Nothing does not resolve',
      '#/security: scope people is not declared by oauth2',
      'GET /api/v2/oauth_applications/{oauth_application_id}: path parameter id must be required and in the template',
      'GET /api/v2/oauth_applications/{oauth_application_id}: {oauth_application_id} has no path parameter',
    ]);
  });
});

describe('createOpenApiValidator()', () => {
  async function mauResponse() {
    const res = await api.get(`/api/v2/oauth_applications/${app}/mau`, { Authorization: admin });
    expect(res.status).toBe(200);
    return res;
  }
  const check = (
    url: string,
    status: number,
    body: unknown,
    headers: Record<string, string | undefined> = { 'content-type': 'application/json', 'x-api-version': '2025-09-30' },
  ) => api.validator.check({ method: 'GET', url, status, body, headers });

  it('accepts a response that matches the document', async () => {
    const res = await mauResponse();
    expect(() => check(`/api/v2/oauth_applications/${app}/mau`, 200, res.body)).not.toThrow();
  });

  it.each([
    ['an undocumented attribute', (b: Json) => (b.data[0].attributes.secret = 'x')],
    ['an attribute of the wrong type', (b: Json) => (b.data[0].attributes.count = '1')],
    ['a missing link', (b: Json) => delete b.data[0].links.self],
    ['an undocumented meta member', (b: Json) => (b.meta.page = 1)],
    ['can_query_by on a collection that has none', (b: Json) => (b.meta.can_query_by = ['year'])],
    ['a wrong parent type', (b: Json) => (b.meta.parent.type = 'Organization')],
    ['a wrong resource type', (b: Json) => (b.data[0].type = 'OauthApplication')],
    ['a relationship without links.related', (b: Json) => delete b.data[0].relationships.oauth_application.links],
    ['no included member', (b: Json) => delete b.included],
    ['an included resource where nothing can be included', (b: Json) => b.included.push(b.data[0])],
  ])('rejects a drifted body [%s]', async (_label, drift) => {
    const res = await mauResponse();
    const body = structuredClone(res.body);
    drift(body);
    expect(() => check(`/api/v2/oauth_applications/${app}/mau`, 200, body)).toThrow(
      /does not match its documented schema/,
    );
  });

  it('rejects an undocumented status, path or missing version header', async () => {
    const res = await mauResponse();
    expect(() => check(`/api/v2/oauth_applications/${app}/mau`, 201, res.body)).toThrow(/does not document status 201/);
    expect(() => check('/api/v2/webhooks', 200, res.body)).toThrow(/is not documented/);
    expect(() =>
      check(`/api/v2/oauth_applications/${app}/mau`, 200, res.body, { 'content-type': 'application/json' }),
    ).toThrow(/header X-API-Version/);
    expect(() => check(`/api/v2/oauth_applications/${app}/mau`, 404, { errors: [] })).toThrow(/does not match/);
  });
});

describe('GET /docs/api', () => {
  it('sends the hand-written reference it was on to /docs, which renders this document', async () => {
    const res = await t.api().get('/docs/api').set('User-Agent', '');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/docs?api=api');
    const page = await t.api().get('/docs?api=api').set('User-Agent', '');
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-document="/api/v2/open_api"');
    expect(page.text).toContain('<title>API reference: Organization Developer API · addon-kit</title>');
  });
});
