/**
 * `POST /docs/console-token`: issues the signed-in person a console token (host/auth/console-tokens.ts) for the API
 * `/docs` shows, so its try-it console is authorized without pasting a token. A cookie POST, CSRF-checked; called by
 * `assets/reference.js` with the `X-CSRF-Token` header. The secret is in the response body only (never a URL, never
 * a log line), under `Cache-Control: no-store`.
 */
import { Router } from 'express';
import { issueConsoleToken } from '../auth/console-tokens.ts';
import { requireCsrf } from '../auth/csrf.ts';
import { hostSessionPerson } from '../auth/session.ts';
import type { Queryable } from '../db/database.ts';
import { InvalidEnumValueError, UnauthorizedError } from '../errors.ts';
import type { DocumentLink } from './docs-page.tsx';

/** Where the control posts. */
export const CONSOLE_TOKEN_PATH = '/docs/console-token';

export function consoleTokenRouter(deps: {
  db: Queryable;
  documents: readonly DocumentLink[];
  now?: (() => Date) | undefined;
}): Router {
  const withConsole = deps.documents.filter((d) => d.console);
  const router = Router();
  router.post(CONSOLE_TOKEN_PATH, requireCsrf, async (req, res) => {
    const person = await hostSessionPerson(req, res);
    if (!person || person.status !== 'active') throw new UnauthorizedError('Log in to the host first');
    const api = (req.body as Record<string, unknown> | undefined)?.api;
    const target = withConsole.find((d) => d.id === api)?.console;
    if (!target)
      throw new InvalidEnumValueError(
        'api',
        withConsole.map((d) => d.id),
      );
    const issued = await issueConsoleToken(deps.db, person.id, target, deps.now?.() ?? new Date());
    res.status(201).set('Cache-Control', 'no-store').json({
      client_id: issued.client_id,
      secret: issued.secret,
      api_prefix: issued.apiPrefix,
      scope: issued.scope,
      expires_at: issued.expires_at.toISOString(),
    });
  });
  return router;
}
