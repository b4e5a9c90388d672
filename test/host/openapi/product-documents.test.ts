/**
 * The OpenAPI documents of /current/v2, /people/v2 and the OAuth endpoints: served like /api/v2's,
 * following the specification's rules, generated from the mounted routers (every route described, its
 * parameters and write body from its declaration), and the recorder that checks every test response.
 */
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { createTestHost, type TestHost } from '../../support/host.ts';
import { openApiRuleViolations } from '../../support/openapi-rules.ts';
import { createOpenApiValidator } from '../../support/openapi.ts';
import { recordingApp } from '../../support/api-responses.ts';
import supertest from 'supertest';
import { peopleRouter } from '#host/people/people-router.ts';
import { routerOperations } from '#host/openapi/router-operations.ts';
import { listPayload, listResource } from '#host/people/list-resource.ts';
import { notePayload } from '#host/people/notes/note-resource.ts';
import { OAUTH_ROUTES } from '#host/oauth/provider.ts';

type Json = Record<string, any>;

let t: TestHost;
const docs: Record<string, Json> = {};

beforeAll(async () => {
  t = await createTestHost();
  for (const product of ['current', 'people', 'oauth']) {
    const res = await t.api().get(`/${product}/v2/open_api/2025-09-30`).set('User-Agent', '');
    docs[product] = res.body as Json;
  }
});
afterAll(() => t.close());

const PEOPLE_OPERATIONS = [
  'get /people/v2/me',
  'get /people/v2/notes',
  'get /people/v2/people/{person_id}/notes',
  'post /people/v2/people/{person_id}/notes',
  'get /people/v2/notes/{id}',
  'patch /people/v2/notes/{id}',
  'delete /people/v2/notes/{id}',
  'get /people/v2/notes/{note_id}/category',
  'get /people/v2/notes/{note_id}/created_by',
  'get /people/v2/notes/{note_id}/person',
  'get /people/v2/lists',
  'get /people/v2/campuses/{campus_id}/lists',
  'get /people/v2/list_categories/{list_category_id}/lists',
  'get /people/v2/lists/{id}',
  'patch /people/v2/lists/{id}',
  'get /people/v2/lists/{list_id}/campus',
  'get /people/v2/lists/{list_id}/category',
  'get /people/v2/lists/{list_id}/created_by',
  'get /people/v2/lists/{list_id}/updated_by',
  'get /people/v2/lists/{list_id}/bulkmail_sync_status',
  'get /people/v2/lists/{list_id}/star',
  'get /people/v2/lists/{list_id}/list_results',
  'get /people/v2/lists/{list_id}/list_results/{id}',
  'get /people/v2/lists/{list_id}/people',
  'get /people/v2/lists/{list_id}/rules',
  'get /people/v2/lists/{list_id}/rules/{id}',
  'get /people/v2/lists/{list_id}/shares',
  'get /people/v2/lists/{list_id}/shares/{id}',
  'post /people/v2/lists/{list_id}/run',
  'post /people/v2/lists/{list_id}/bulkmail_sync',
  'get /people/v2/people',
  'get /people/v2/people/{id}',
  'get /people/v2/campuses/{id}',
  'get /people/v2/list_categories/{id}',
  'get /people/v2/note_categories/{id}',
];

const operations = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, ops]) => Object.keys(ops as Json).map((m) => `${m} ${path}`));

describe('GET /{product}/v2/open_api/{version}', () => {
  it('serves each document without credentials or User-Agent, the latest at the aliases [current, people, oauth]', async () => {
    for (const product of ['current', 'people', 'oauth']) {
      for (const path of [`/${product}/v2/open_api`, `/${product}/v2/open_api/latest`]) {
        const res = await t.api().get(path).set('User-Agent', '');
        expect(res.status).toBe(200);
        expect(res.headers['x-api-version']).toBe('2025-09-30');
        expect(res.body).toEqual(docs[product]);
      }
      expect(docs[product]!.openapi).toBe('3.1.0');
      expect(docs[product]!.info.version).toBe('2025-09-30');
      expect(docs[product]!.servers).toEqual([{ url: TEST_BASE_URL }]);
    }
    expect(docs.people!.info.title).toBe('People');
    expect(docs.current!.info.title).toBe('Current person');
  });

  it('answers 400 unsupported_version for a version it does not describe', async () => {
    const res = await t.api().get('/people/v2/open_api/2024-01-01');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: '400', code: 'unsupported_version' });
  });

  it('follows the OpenAPI rules and compiles in ajv strict mode [current, people, oauth]', () => {
    for (const product of ['current', 'people', 'oauth']) {
      expect(openApiRuleViolations(docs[product]!)).toEqual([]);
      expect(() => createOpenApiValidator(docs[product]!)).not.toThrow();
    }
  });
});

describe('/people/v2 and /current/v2 from their routers', () => {
  it('documents exactly the operations the people router mounts', () => {
    expect(operations(docs.people!).sort()).toEqual([...PEOPLE_OPERATIONS].sort());
    const mounted = routerOperations(peopleRouter({ db: t.db })).map((op) => `${op.method} /people/v2${op.path}`);
    expect(mounted.sort()).toEqual([...PEOPLE_OPERATIONS].sort());
    expect(operations(docs.current!)).toEqual(['get /current/v2/me']);
  });

  it("describes a collection's include, order, where[] and filter from its resource definition [GET /lists]", () => {
    const params = docs.people!.paths['/people/v2/lists'].get.parameters as Json[];
    const byName = new Map<string, Json>(params.filter((p) => p.name).map((p) => [p.name as string, p]));
    expect(byName.get('include')!.schema.items.enum).toEqual([...listResource.includes!]);
    expect(byName.get('filter')!.schema.items.enum).toEqual(Object.keys(listResource.filters!));
    const order = new RegExp(byName.get('order')!.schema.pattern as string);
    expect(order.test('-name,created_at')).toBe(true);
    expect(order.test('nope')).toBe(false);
    const where = [...byName.keys()].filter((n) => n.startsWith('where['));
    expect(where).toEqual(Object.keys(listResource.where!).map((n) => `where[${n}]`));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['per_page', 'offset', 'fields[List]']));
  });

  it('describes each write body from its payload declaration, and the write error rows', () => {
    const patchList = docs.people!.paths['/people/v2/lists/{id}'].patch;
    const listBody = patchList.requestBody.content['application/json'].schema.properties.data.properties;
    expect(listBody.type).toEqual({ const: 'List' });
    expect(Object.keys(listBody.attributes.properties)).toEqual(Object.keys(listPayload.assignable));
    expect(Object.keys(listBody.relationships.properties)).toEqual(Object.keys(listPayload.relationships!));
    const create = docs.people!.paths['/people/v2/people/{person_id}/notes'].post;
    expect(
      Object.keys(
        create.requestBody.content['application/json'].schema.properties.data.properties.attributes.properties,
      ),
    ).toEqual(Object.keys(notePayload.assignable));
    expect(Object.keys(create.responses)).toEqual(['201', '400', '401', '403', '404', '422', '429', '500']);
    expect(create.responses['201'].headers.Location.required).toBe(true);
    const del = docs.people!.paths['/people/v2/notes/{id}'].delete;
    expect(Object.keys(del.responses)).toEqual(['204', '400', '401', '403', '404', '422', '429', '500']);
    expect(del.responses['204'].content).toBeUndefined();
    expect(Object.keys(docs.people!.paths['/people/v2/lists'].get.responses)).toEqual([
      '200',
      '304',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
    ]);
  });

  it('asks for the people scope on /people/v2 and for none on /current/v2', () => {
    expect(docs.people!.security).toEqual([{ oauth2: ['people'] }, { personal_access_token: [] }]);
    expect(Object.keys(docs.people!.components.securitySchemes.oauth2.flows.authorizationCode.scopes)).toEqual([
      'people',
    ]);
    expect(docs.current!.security).toEqual([{ oauth2: [] }, { personal_access_token: [] }]);
  });
});

describe('OAuth endpoints', () => {
  it('describes every endpoint of the provider and links the discovery document', async () => {
    const paths = Object.keys(docs.oauth!.paths).sort();
    expect(paths).toEqual(
      [
        ...Object.values(OAUTH_ROUTES).filter((r) => r !== OAUTH_ROUTES.end_session),
        '/.well-known/openid-configuration',
        '/oauth/refresh',
      ].sort(),
    );
    expect(docs.oauth!.components.securitySchemes.openid).toEqual({
      type: 'openIdConnect',
      openIdConnectUrl: `${TEST_BASE_URL}/.well-known/openid-configuration`,
    });
    const discovery = (await t.api().get('/.well-known/openid-configuration')).body as Json;
    expect(discovery.end_session_endpoint).toBeUndefined();
    for (const key of [
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
      'revocation_endpoint',
      'introspection_endpoint',
    ])
      expect(paths).toContain(new URL(discovery[key] as string).pathname);
  });
});

describe('the response recorder of test hosts', () => {
  it('flags an undocumented status and a body outside its schema, and leaves undocumented paths alone', async () => {
    const app = express();
    app.get('/people/v2/me', (_req, res) => res.status(418).json({ errors: [] }));
    app.get('/people/v2/notes/:id', (_req, res) => res.json({ data: { id: 1 } }));
    app.get('/people/v2/nothing', (_req, res) => res.status(404).json({}));
    app.get(/.*\/open_api$/, (req, res, next) => {
      t.api()
        .get(req.path)
        .then((r) => res.json(r.body), next);
    });
    const recorder = recordingApp(app);
    const client = supertest(recorder.handler);
    await client.get('/people/v2/me');
    await client.get('/people/v2/notes/1');
    await client.get('/people/v2/nothing');
    const failures = await recorder.check();
    expect(failures).toHaveLength(2);
    expect(failures[0]).toBe('GET /people/v2/me does not document status 418');
    expect(failures[1]).toMatch(/^GET \/people\/v2\/notes\/1 200 does not match its documented schema: /);
  });
});
