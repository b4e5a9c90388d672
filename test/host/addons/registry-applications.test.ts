/**
 * The registry routes `addon dev` uses on a new add-on's first run: create its OAuth application (the config's
 * completion URL sent as written, `${ADDON_OAUTH_APPLICATION_ID}` filled by the host) and register another
 * integrator's completion URL; and what a push answers: the live version for an unchanged push, and the page mounting
 * the add-on when the host has one.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoAddonPages } from '#host/demo/demo-pages.tsx';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { organizationId } from './fixtures.ts';

let t: HttpTestHost;
let admin: string;

const send = async (path: string, method: string, body: unknown, authorization = admin) => {
  const res = await fetch(`${t.baseUrl}/addons/v1${path}`, {
    method,
    headers: { authorization, 'user-agent': TEST_USER_AGENT, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

beforeAll(async () => {
  t = await startHttpTestHost({
    config: { addonSweepIntervalSeconds: 0 },
    deps: {},
  });
  admin = await basicAuthFor(t.db, 'admin@demo.test');
});
afterAll(() => t?.close());

describe('POST /addons/v1/applications', () => {
  it("creates a confidential application of the caller's organization, the placeholder filled with its id [201]", async () => {
    const created = await send('/applications', 'POST', {
      name: 'My add-on',
      scopes: ['people'],
      redirect_uris: ['http://localhost:4100/addon/complete/${ADDON_OAUTH_APPLICATION_ID}'],
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body).toEqual({
      data: {
        type: 'OauthApplication',
        id: expect.stringMatching(/^\d+$/),
        attributes: {
          name: 'My add-on',
          client_id: expect.any(String),
          client_secret: expect.any(String),
          redirect_uris: [`http://localhost:4100/addon/complete/${id}`],
          add_on_scopes: 'people',
        },
      },
    });
    const { rows } = await t.db.query<{ organization_id: string; redirect_uris: string[]; public: boolean }>(
      'SELECT organization_id::text, redirect_uris, public FROM oauth_applications WHERE id = $1',
      [id],
    );
    expect(rows).toEqual([
      {
        organization_id: await organizationId(t.db, 'demo'),
        redirect_uris: [`http://localhost:4100/addon/complete/${id}`],
        public: false,
      },
    ]);
  });

  it('lists every problem of the request [422] and refuses a person who is not an organization administrator [403]', async () => {
    const bad = await send('/applications', 'POST', { name: '', scopes: ['admin'], redirect_uris: ['ftp://x#y'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { source: { parameter: string } }) => e.source.parameter)).toEqual([
      'name',
      'scopes',
      'redirect_uris',
    ]);
    const editor = await send(
      '/applications',
      'POST',
      { name: 'Nope', redirect_uris: ['https://x.test/cb'] },
      await basicAuthFor(t.db, 'editor@demo.test'),
    );
    expect(editor.status).toBe(403);
    expect(editor.body.errors[0].meta.description).toBe('Only organization administrators can register add-ons');
  });
});

describe('POST /addons/v1/applications/{oauth_application_id}/redirect_uris', () => {
  it('adds a redirect URI once [201], then answers 200 as it has it; 404 for another organization', async () => {
    const { body } = await send('/applications', 'POST', {
      name: 'Moving add-on',
      redirect_uris: ['http://localhost:4100/addon/complete/${ADDON_OAUTH_APPLICATION_ID}'],
    });
    const id = body.data.id as string;
    const uri = `http://localhost:4200/addon/complete/${id}`;
    const added = await send(`/applications/${id}/redirect_uris`, 'POST', { redirect_uri: uri });
    expect(added.status).toBe(201);
    expect(added.body.data.attributes.redirect_uris).toEqual([`http://localhost:4100/addon/complete/${id}`, uri]);
    expect(added.body.data.attributes.client_secret).toBeUndefined();
    const again = await send(`/applications/${id}/redirect_uris`, 'POST', { redirect_uri: uri });
    expect(again.status).toBe(200);
    expect(again.body.data.attributes.redirect_uris).toHaveLength(2);
    const other = await send(
      `/applications/${id}/redirect_uris`,
      'POST',
      { redirect_uri: 'https://evil.test/cb' },
      await basicAuthFor(t.db, 'admin@other.test'),
    );
    expect(other.status).toBe(404);
    const invalid = await send(`/applications/${id}/redirect_uris`, 'POST', { redirect_uri: 'http://evil.test/cb' });
    expect(invalid.status).toBe(422);
  });
});

describe('PUT /addons/v1/applications/{oauth_application_id}/environments/development', () => {
  it('answers an unchanged push with the live version [200] and names the page mounting it [links.preview]', async () => {
    const pages = demoAddonPages({ db: t.db, config: t.host.config });
    expect(await pages.previewUrl(['people.profile.custom_tab'], await organizationId(t.db, 'demo'))).toBeUndefined();
    const listed = await pages.previewUrl(['people.list.send_message'], await organizationId(t.db, 'demo'));
    expect(listed).toMatch(new RegExp(`^${t.baseUrl}/demo/lists/\\d+$`));

    const { body } = await send('/applications', 'POST', {
      name: 'Pushed add-on',
      scopes: ['people'],
      redirect_uris: ['http://localhost:4100/addon/complete/${ADDON_OAUTH_APPLICATION_ID}'],
    });
    const id = body.data.id as string;
    const sample = JSON.parse(await readFile(new URL('../../../addon.config.json', import.meta.url), 'utf8'));
    const development = sample.environments.development;
    const config = {
      ...sample,
      oauth_application_id: Number(id),
      environments: {
        development: {
          ...development,
          integrator_oauth: { ...development.integrator_oauth, client_id: 'c', client_secret: 's' },
        },
      },
    };
    const first = await send(`/applications/${id}/environments/development`, 'PUT', { config, bundle: 'one();' });
    expect(first.status).toBe(201);
    const second = await send(`/applications/${id}/environments/development`, 'PUT', { config, bundle: 'one();' });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    const changed = await send(`/applications/${id}/environments/development`, 'PUT', {
      config: { ...config, scopes: ['people', 'api'] },
      bundle: 'one();',
    });
    expect(changed.status).toBe(201);
    expect(changed.body.data.attributes.version).toBe(2);
    expect(first.body.links).toBeUndefined();
  });
});
