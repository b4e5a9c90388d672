/** GET/POST /login and POST /logout: the integrator's own sign-in. */
import express, { Router, type Request, type Response } from 'express';
import { loginPage } from './pages/login-page.ts';
import { messagePage } from './pages/page.ts';
import { csrfMatches, csrfToken, openSession } from './session.ts';
import { checkLogin } from './store/users.ts';
import type { IntegratorContext } from './context.ts';

/** Only a path on this server: never `//evil.example` or an absolute URL (open redirect). */
export function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/';
}

/** The sign-in routes. */
export function loginRouter(ctx: IntegratorContext): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: ctx.config.maxBodyBytes });

  router.get('/login', async (req: Request, res: Response) => {
    const session = await openSession(req, res, ctx.session);
    res
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(loginPage(ctx.site, { csrf: await csrfToken(session), returnTo: safeReturnTo(req.query.return_to) }));
  });

  router.post('/login', form, async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const session = await openSession(req, res, ctx.session);
    if (!csrfMatches(session, body.csrf_token)) {
      return res
        .status(403)
        .type('html')
        .send(
          messagePage(
            ctx.site,
            'Request expired',
            'The form was not recognised (CSRF check failed). Reload the page and sign in again.',
          ),
        );
    }
    const returnTo = safeReturnTo(body.return_to);
    const username = typeof body.username === 'string' ? body.username : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const user = username && password ? await checkLogin(ctx.db, username, password) : null;
    if (!user) {
      return res
        .status(401)
        .type('html')
        .send(
          loginPage(ctx.site, {
            csrf: await csrfToken(session),
            returnTo,
            username,
            error: 'Wrong username or password.',
          }),
        );
    }
    session.userId = user.id;
    // A new CSRF token at the privilege change.
    session.csrf = undefined;
    await csrfToken(session);
    res.redirect(303, returnTo);
  });

  router.post('/logout', form, async (req: Request, res: Response) => {
    const session = await openSession(req, res, ctx.session);
    if (!csrfMatches(session, (req.body as Record<string, unknown> | undefined)?.csrf_token)) {
      return res
        .status(403)
        .type('html')
        .send(messagePage(ctx.site, 'Request expired', 'The form was not recognised (CSRF check failed).'));
    }
    session.destroy();
    res.redirect(303, '/login');
  });

  return router;
}
