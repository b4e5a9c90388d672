/**
 * readHostSession(): the session data of a route that never saves its session (the add-on fetch proxy) — from a kept
 * unseal without iron-session's object, and otherwise exactly what getHostSession opens.
 */
import { ServerResponse, IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import express, { type Request, type Response } from 'express';
import { sealData } from 'iron-session';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '#host/db/database.ts';
import { configureHostSession, getHostSession, HOST_SESSION_COOKIE, readHostSession } from '#host/auth/session.ts';
import { TEST_SESSION_SECRET } from '../../support/constants.ts';
import { testConfig } from '../../support/host.ts';

const DATA = { personId: '7', sessionId: 'session-7', csrfToken: 'csrf-7' };

/** An app with the host session configured (no statement runs here), and a request of it carrying `cookie`. */
function requestsOf() {
  const app = express();
  configureHostSession(app, { config: testConfig(), db: {} as Queryable });
  return (cookie: string | undefined) => {
    const req = new IncomingMessage(new Socket()) as Request;
    req.headers = cookie === undefined ? {} : { cookie: `${HOST_SESSION_COOKIE}=${cookie}` };
    req.app = app;
    const res = new ServerResponse(req) as Response;
    return { req, res };
  };
}

const sealed = (data: object) => sealData(data, { password: TEST_SESSION_SECRET, ttl: 3600 });

describe('readHostSession()', () => {
  it('opens a cookie seen first as getHostSession does, and keeps that session on the request [first sight]', async () => {
    const request = requestsOf();
    const { req, res } = request(await sealed(DATA));
    const session = await readHostSession(req, res);
    expect({ ...session }).toEqual(DATA);
    expect(req.hostSession).toBe(session);
    expect(typeof (session as { save?: unknown }).save).toBe('function');
  });

  it('answers a kept unseal with its data alone, the same getHostSession then gives [kept]', async () => {
    const request = requestsOf();
    const seal = await sealed(DATA);
    const first = request(seal);
    await getHostSession(first.req, first.res);
    const { req, res } = request(seal);
    const data = await readHostSession(req, res);
    expect(data).toEqual(DATA);
    expect('save' in data).toBe(false);
    expect(req.hostSession).toBeUndefined();
    expect(await readHostSession(req, res)).toBe(data);
    const session = await getHostSession(req, res);
    expect({ ...session }).toEqual(DATA);
    expect(typeof session.save).toBe('function');
  });

  it('gives an empty session for a cookie it cannot open or none at all [no login]', async () => {
    const request = requestsOf();
    const seal = await sealed(DATA);
    const tampered = request(`${seal.slice(0, -3)}AAA`);
    expect({ ...(await readHostSession(tampered.req, tampered.res)) }).toEqual({});
    const none = request(undefined);
    expect({ ...(await readHostSession(none.req, none.res)) }).toEqual({});
  });
});
