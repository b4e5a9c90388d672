import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, authOf } from '#host/auth/authenticate.ts';
import { requireScope } from '#host/auth/require-scope.ts';
import { errorHandler } from '#host/http/error-handler.ts';
import { createLogger } from '#host/logger.ts';
import { oauthBearerVerifier } from '#host/oauth/bearer.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { personId } from '../../support/host.ts';
import {
  createTestApplication,
  credentials,
  postOAuth,
  REDIRECT_URI,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;

// The same chain app.ts's `api(scope, router)` builds, around probe routes (the product routers
// themselves belong to other folders).
beforeAll(async () => {
  t = await startHttpTestHost({
    prepend(outer, host) {
      const auth = authenticate({ db: host.db, bearer: oauthBearerVerifier(host.host.oauthProvider, host.db) });
      const probe = (_req: express.Request, res: express.Response) =>
        void res.json({ scopes: [...(authOf(_req).scopes as Set<string>)] });
      outer.get('/probe/people', auth, requireScope('people'), probe);
      outer.get('/probe/api', auth, requireScope('api'), probe);
      outer.use('/probe', errorHandler(createLogger('silent')));
    },
  });
  app = await createTestApplication(t.db);
});
afterAll(() => t.close());

const get = (path: string, token: string) =>
  fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe('requireScope() [Bearer]', () => {
  it('lets a token with the scope through', async () => {
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: await personId(t.db, 'admin@demo.test'),
      scopes: ['people'],
    });
    const res = await get('/probe/people', issued.access_token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ scopes: ['people'] });
  });

  it('answers 403 with the spec body to a token without the scope', async () => {
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: await personId(t.db, 'admin@demo.test'),
      scopes: ['people'],
    });
    const res = await get('/probe/api', issued.access_token);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: { description: 'This request needs an access token with the api scope' },
        },
      ],
    });
  });

  it('answers 401 on the very next request after /oauth/revoke', async () => {
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: await personId(t.db, 'admin@demo.test'),
      scopes: ['api'],
    });
    expect((await get('/probe/api', issued.access_token)).status).toBe(200);
    await postOAuth(t.baseUrl, '/oauth/revoke', { token: issued.access_token, ...credentials(app) });
    expect((await get('/probe/api', issued.access_token)).status).toBe(401);
  });
});

describe('CORS at /oauth/token', () => {
  it('allows the origin of a registered redirect URI and no other', async () => {
    const allowed = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { origin: new URL(REDIRECT_URI).origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', ...credentials(app) }),
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(new URL(REDIRECT_URI).origin);
    const foreign = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', ...credentials(app) }),
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
