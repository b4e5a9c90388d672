/** The protected sample API: POST /api/messages records a message to a list's people; GET lists them. */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { IntegratorContext } from '../context.ts';
import { listMessages, recordMessage } from '../store/messages.ts';
import { grantOf, requireBearer } from './require-bearer.ts';

/** Host ids are JSON:API strings of digits; plain integers are accepted too. */
const hostId = z
  .union([z.string().regex(/^[1-9][0-9]{0,18}$/, 'must be a host id (digits)'), z.number().int().positive()])
  .transform(String);

/** The POST body. */
export const messageInput = z.strictObject({
  list_id: hostId,
  person_ids: z.array(hostId).min(1, 'must name at least one person').max(1000, 'at most 1000 people per message'),
  message: z.string().trim().min(1, 'must not be empty').max(2000, 'at most 2000 characters'),
});

/** The scope both routes require. */
export const MESSAGES_SCOPE = 'messages';

/** POST and GET /api/messages. */
export function messagesRouter(ctx: IntegratorContext): Router {
  const router = Router();
  const auth = requireBearer(ctx, MESSAGES_SCOPE);
  const json = express.json({ limit: ctx.config.maxBodyBytes, strict: false });

  router.post('/api/messages', auth, json, async (req: Request, res: Response) => {
    if (!req.is('application/json')) {
      return res.status(415).json({ error: 'unsupported_media_type', error_description: 'send application/json' });
    }
    const parsed = messageInput.safeParse(req.body);
    if (!parsed.success) {
      return res.status(422).json({
        error: 'validation_failed',
        error_description: 'the message is invalid',
        details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    }
    const grant = grantOf(res);
    const personIds = [...new Set(parsed.data.person_ids)];
    const stored = await recordMessage(
      ctx.db,
      {
        userId: grant.userId,
        clientId: grant.clientId,
        listId: parsed.data.list_id,
        personIds,
        message: parsed.data.message,
      },
      ctx.now(),
    );
    res.status(201).location(`/api/messages/${stored.id}`).json({ data: stored });
  });

  router.get('/api/messages', auth, async (_req: Request, res: Response) => {
    res.json({ data: await listMessages(ctx.db, grantOf(res).userId) });
  });

  // Unreadable JSON is the client's mistake: 400, never a 500.
  router.use('/api/messages', (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (error && typeof error === 'object' && 'type' in error && error.type === 'entity.parse.failed') {
      return res.status(400).json({ error: 'invalid_json', error_description: 'the body is not valid JSON' });
    }
    if (error && typeof error === 'object' && 'type' in error && error.type === 'entity.too.large') {
      return res.status(413).json({ error: 'payload_too_large', error_description: 'the body is too large' });
    }
    next(error);
  });

  return router;
}
