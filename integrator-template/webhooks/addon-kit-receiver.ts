/**
 * `POST /webhooks/addon-kit`: the host's add-on lifecycle events (the add-on config's `webhook_url` points here).
 * The host signs each delivery with this server's OAuth client secret (the `client_secret` it authenticates with at
 * `/oauth/token`), twice over the raw body:
 *
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): the signature computed with the
 *   `standardwebhooks` package (`new Webhook(secret, { format: 'raw' })`, its key the secret's UTF-8 bytes) must be
 *   one of the header's `v1,` entries; the timestamp must be within five minutes of `now()` (replays refused);
 * - `X-PCO-Webhooks-Authenticity`: hex HMAC-SHA256 of the body keyed with the secret.
 *
 * A delivery is at least once: the event id is stored (`addon_kit_events`) in the transaction that acts on it, so a
 * repeated delivery answers 200 and does nothing again. On `revoked`, `excluded` and `reauthorization_required` the
 * person's tokens this server issued to the host are dropped (store/tokens.ts, `dropUserTokens`): the host no
 * longer holds a usable grant for them, and tokens not needed are not kept.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { Webhook } from 'standardwebhooks';
import type { IntegratorContext } from '../context.ts';
import { recordReceivedEvent } from '../store/addon-kit-events.ts';
import { dropUserTokens } from '../store/tokens.ts';

/** Where the host delivers; the add-on config's `webhook_url` is `{baseUrl}` + this. */
export const ADDON_KIT_WEBHOOK_PATH = '/webhooks/addon-kit';

/** Seconds a delivery's timestamp may be away from now (the Standard Webhooks tolerance). */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

/** Events after which the host holds no usable grant of the person: their tokens here are dropped. */
const DROPPING = new Set([
  'addon.authorization.revoked',
  'addon.authorization.excluded',
  'addon.authorization.reauthorization_required',
]);

/** The payload of a lifecycle event (the fields this receiver uses). */
interface LifecyclePayload {
  event: string;
  integrator_user_id: string | null;
  integrator_client_id: string;
  person_id: string;
}

type Refusal = { status: number; error: string; description: string };

const refuse = (status: number, error: string, description: string): Refusal => ({ status, error, description });

/** The client whose secret signed the delivery, or why it is refused. */
function verify(ctx: IntegratorContext, req: Request, body: string): { clientId: string } | Refusal {
  const id = req.get('webhook-id');
  const timestamp = req.get('webhook-timestamp');
  const signatures = req.get('webhook-signature');
  const authenticity = req.get('x-pco-webhooks-authenticity');
  if (!id || !timestamp || !signatures || !authenticity)
    return refuse(400, 'missing_signature', 'the webhook signature headers are missing');
  if (!/^[0-9]{1,12}$/.test(timestamp)) return refuse(400, 'invalid_timestamp', 'webhook-timestamp is malformed');
  const skew = Math.abs(ctx.now().getTime() / 1000 - Number(timestamp));
  if (skew > TIMESTAMP_TOLERANCE_SECONDS)
    return refuse(401, 'stale_timestamp', 'webhook-timestamp is more than five minutes away from now');
  const sent = signatures.split(' ').filter((s) => s.startsWith('v1,'));
  for (const client of ctx.config.clients) {
    const expected = new Webhook(client.client_secret, { format: 'raw' }).sign(
      id,
      new Date(Number(timestamp) * 1000),
      body,
    );
    if (!sent.some((s) => equal(s, expected))) continue;
    const hex = createHmac('sha256', client.client_secret).update(body).digest('hex');
    if (!equal(authenticity.toLowerCase(), hex))
      return refuse(401, 'invalid_signature', 'X-PCO-Webhooks-Authenticity does not match the body');
    return { clientId: client.client_id };
  }
  return refuse(401, 'invalid_signature', 'webhook-signature does not match the body');
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The EventDelivery of the body, or undefined when it is not one. */
function deliveryOf(body: string): { id: string; name: string; payload: string } | undefined {
  try {
    const item = (JSON.parse(body) as { data?: unknown }).data;
    const first = Array.isArray(item) ? (item[0] as Record<string, unknown> | undefined) : undefined;
    const attributes = first?.attributes as Record<string, unknown> | undefined;
    if (typeof first?.id !== 'string' || typeof attributes?.name !== 'string') return undefined;
    if (typeof attributes.payload !== 'string') return undefined;
    return { id: first.id, name: attributes.name, payload: attributes.payload };
  } catch {
    return undefined;
  }
}

function payloadOf(text: string): LifecyclePayload | undefined {
  try {
    const value = JSON.parse(text) as Partial<LifecyclePayload> | null;
    if (!value || typeof value.integrator_client_id !== 'string') return undefined;
    const user = value.integrator_user_id;
    if (user !== null && typeof user !== 'string') return undefined;
    return value as LifecyclePayload;
  } catch {
    return undefined;
  }
}

/** The receiver's route. */
export function addonKitWebhookRouter(ctx: IntegratorContext): Router {
  const router = Router();
  router.post(
    ADDON_KIT_WEBHOOK_PATH,
    express.raw({ type: () => true, limit: ctx.config.maxBodyBytes }),
    async (req: Request, res: Response) => {
      const answer = (status: number, body: Record<string, unknown>) =>
        res.status(status).set('Cache-Control', 'no-store').json(body);
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const checked = verify(ctx, req, body);
      if ('status' in checked)
        return answer(checked.status, { error: checked.error, error_description: checked.description });
      const delivery = deliveryOf(body);
      // The id signed is the id stored: a body whose EventDelivery names another id is not this delivery.
      if (!delivery || delivery.id !== req.get('webhook-id'))
        return answer(400, { error: 'invalid_request', error_description: 'the body is not an EventDelivery' });
      const payload = delivery.name.startsWith('addon.authorization.') ? payloadOf(delivery.payload) : undefined;
      if (payload && payload.integrator_client_id !== checked.clientId)
        return answer(400, { error: 'invalid_request', error_description: 'the event names another client' });
      const outcome = await ctx.db.transaction(async (tx) => {
        const fresh = await recordReceivedEvent(tx, {
          id: delivery.id,
          name: delivery.name,
          payload: delivery.payload,
          receivedAt: ctx.now(),
        });
        if (!fresh) return { duplicate: true, dropped: 0 };
        let dropped = 0;
        if (payload && DROPPING.has(delivery.name) && payload.integrator_user_id !== null)
          dropped = await dropUserTokens(tx, { clientId: checked.clientId, userId: payload.integrator_user_id });
        return { duplicate: false, dropped };
      });
      ctx.logger.info(
        { event: delivery.id, name: delivery.name, duplicate: outcome.duplicate, droppedGrants: outcome.dropped },
        'add-on lifecycle event received',
      );
      return answer(200, { received: delivery.id, duplicate: outcome.duplicate, dropped_grants: outcome.dropped });
    },
  );
  return router;
}
