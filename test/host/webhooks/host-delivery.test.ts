import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createPeopleFixture, sqlRows, type PeopleFixture } from '../people/people-fixture.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';

const METRICS_TOKEN = 'webhook-metrics-token-0123456789abcdef';
let f: PeopleFixture;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
  f = await createPeopleFixture({ config: { webhookPollIntervalMs: 50, metricsToken: METRICS_TOKEN } });
});
afterAll(async () => {
  await f.t.close();
  await receiver.close();
});

describe('a host with its delivery worker', () => {
  it('delivers a Note created through the API, signed, and counts it on /metrics', async () => {
    const sub = await f.t
      .api()
      .post('/webhooks/v2/webhook_subscriptions')
      .set('Authorization', f.auth.admin)
      .send({
        data: { type: 'WebhookSubscription', attributes: { name: 'people.v2.events.note.created', url: receiver.url } },
      });
    expect(sub.status).toBe(201);
    const secret = sub.body.data.attributes.authenticity_secret as string;
    const [person] = await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM people WHERE organization_id = $1 LIMIT 1',
      [f.demoId],
    );
    const created = await f.t
      .api()
      .post(`/people/v2/people/${person!.id}/notes`)
      .set('Authorization', f.auth.editor)
      .send({ data: { type: 'Note', attributes: { note: 'Delivered by the host.' } } });
    expect(created.status).toBe(201);
    await receiver.waitFor(1);
    const [got] = receiver.received;
    expect(got!.delivery.name).toBe('people.v2.events.note.created');
    expect(JSON.parse(got!.delivery.payload).data).toEqual(created.body.data);
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toBeTruthy();
    expect(got!.headers['x-pco-webhooks-authenticity']).toBe(
      createHmac('sha256', secret).update(got!.body).digest('hex'),
    );
    await expect
      .poll(async () => {
        const res = await f.t.api().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
        return /addon_kit_webhook_deliveries_total\{outcome="delivered"\} (\d+)/.exec(res.text)?.[1];
      })
      .toBe('1');
  });
});
