/**
 * `addon-kit webhooks trigger` beside a running `addon-kit start`: the test event goes through the host's outbox
 * (run by the host over its CLI channel on the embedded database; its own connection on PostgreSQL), is delivered
 * signed to the subscription's receiver and listed by /webhooks/v2 like any event.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createEmptyPostgresDatabase } from '../support/database.ts';
import { runCli, startCli, stopCli, type RunningCli } from '../support/cli.ts';
import { startReceiver, type WebhookReceiver } from '../host/webhooks/webhook-receiver.ts';

let dataDir: string;
let storage: string[];
let host: RunningCli;
let hostUrl: string;
let receiver: WebhookReceiver;
let basic: string;
/** An empty config directory: the CLI is signed in nowhere. */
let noSignIn: NodeJS.ProcessEnv;

const NOTE_CREATED = 'people.v2.events.note.created';

async function api(path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(`${hostUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: basic, 'user-agent': 'trigger-test/1.0', 'content-type': 'application/json' },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function subscribe(name: string, url: string): Promise<{ id: string; secret: string }> {
  const res = await api('/webhooks/v2/webhook_subscriptions', {
    method: 'POST',
    body: { data: { type: 'WebhookSubscription', attributes: { name, url } } },
  });
  expect(res.status).toBe(201);
  return { id: res.body.data.id as string, secret: res.body.data.attributes.authenticity_secret as string };
}

beforeAll(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), 'addon-kit-trigger-')), '.addon-kit');
  const databaseUrl = await createEmptyPostgresDatabase();
  storage = ['--data-dir', dataDir, ...(databaseUrl ? ['--database-url', databaseUrl] : [])];
  host = await startCli(
    ['start', '--port', '0', '--no-demo', '--demo-password', 'trigger-password', ...storage],
    /^addon-kit host listening on (\S+) /m,
    { ADDON_KIT_WEBHOOK_POLL_INTERVAL_MS: '200' },
  );
  hostUrl = host.match[1]!;
  receiver = await startReceiver();
  const pat = await runCli(['pat', 'create', '--email', 'admin@demo.test', '--name', 'trigger', '--json', ...storage]);
  expect(pat.code).toBe(0);
  const token = JSON.parse(pat.stdout) as { client_id: string; secret: string };
  basic = `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;
  noSignIn = { XDG_CONFIG_HOME: await mkdtemp(join(tmpdir(), 'addon-kit-config-')) };
}, 180_000);
afterAll(async () => {
  if (host) expect(await stopCli(host.child)).toBe(0);
  await receiver?.close();
});

describe('addon-kit webhooks trigger', () => {
  it('sends a signed test event to each of the person’s subscriptions to the event, visible in the API', async () => {
    const first = await subscribe(NOTE_CREATED, receiver.url);
    const second = await subscribe(NOTE_CREATED, `${receiver.url}?second`);
    const other = await subscribe('people.v2.events.note.updated', `${receiver.url}?other`);
    const res = await runCli(
      ['webhooks', 'trigger', NOTE_CREATED, '--email', 'admin@demo.test', '--json', ...storage],
      noSignIn,
    );
    expect([
      res.code,
      res.stderr
        .split('\n')
        .filter((l) => !l.includes('running addon-kit start'))
        .join(''),
    ]).toEqual([0, '']);
    const { events } = JSON.parse(res.stdout) as { events: { subscription_id: string; uuid: string }[] };
    expect(events.map((e) => e.subscription_id)).toEqual([first.id, second.id]);
    await receiver.waitFor(2);
    const byId = new Map(receiver.received.map((r) => [r.delivery.id, r]));
    for (const [event, secret] of [
      [events[0]!, first.secret],
      [events[1]!, second.secret],
    ] as const) {
      const got = byId.get(event.uuid)!;
      expect(got.delivery.name).toBe(NOTE_CREATED);
      expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
      expect(JSON.parse(got.delivery.payload)).toMatchObject({
        data: { type: 'WebhookSubscription', id: event.subscription_id },
        meta: { test: true },
      });
    }
    await expect
      .poll(async () => {
        const listed = await api(`/webhooks/v2/webhook_subscriptions/${first.id}/events`);
        return listed.body.data.map((e: { attributes: { uuid: string; status: string } }) => e.attributes);
      })
      .toEqual([expect.objectContaining({ uuid: events[0]!.uuid, status: 'delivered' })]);
    const untouched = await api(`/webhooks/v2/webhook_subscriptions/${other.id}/events`);
    expect(untouched.body.data).toEqual([]);

    // --subscription: only that one.
    const only = await runCli(
      [
        'webhooks',
        'trigger',
        NOTE_CREATED,
        '--subscription',
        second.id,
        '--email',
        'admin@demo.test',
        '--json',
        ...storage,
      ],
      noSignIn,
    );
    expect(only.code).toBe(0);
    expect((JSON.parse(only.stdout) as { events: { subscription_id: string }[] }).events).toEqual([
      expect.objectContaining({ subscription_id: second.id }),
    ]);
    await receiver.waitFor(3);
    expect(receiver.received).toHaveLength(3);
  }, 90_000);

  it('takes the person from the CLI’s sign-in to the host when --email is not given [signed in]', async () => {
    const config = await mkdtemp(join(tmpdir(), 'addon-kit-config-'));
    await mkdir(join(config, 'addon-kit'), { recursive: true, mode: 0o700 });
    await writeFile(
      join(config, 'addon-kit', 'credentials.json'),
      JSON.stringify({ hosts: { [hostUrl]: { access_token: 'unused', email: 'admin@demo.test' } } }),
      { mode: 0o600 },
    );
    const before = receiver.received.length;
    const res = await runCli(['webhooks', 'trigger', NOTE_CREATED, '--host', hostUrl, '--json', ...storage], {
      XDG_CONFIG_HOME: config,
    });
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as { events: unknown[] }).events).toHaveLength(2);
    await receiver.waitFor(before + 2);
  }, 60_000);

  it('refuses an unknown event, another event’s or a missing subscription, and no person, with exit code 2', async () => {
    const cases: [string[], string][] = [
      [
        ['webhooks', 'trigger', 'people.v2.events.nothing', '--email', 'admin@demo.test'],
        'addon-kit webhooks: unknown event "people.v2.events.nothing" (see addon-kit help webhooks)',
      ],
      [
        ['webhooks', 'trigger', 'people.v2.events.list.run', '--email', 'admin@demo.test'],
        'addon-kit webhooks: admin@demo.test has no active subscription to people.v2.events.list.run',
      ],
      [
        ['webhooks', 'trigger', 'people.v2.events.list.run', '--subscription', '1', '--email', 'admin@demo.test'],
        `addon-kit webhooks: subscription 1 is to ${NOTE_CREATED}, not people.v2.events.list.run`,
      ],
      [
        ['webhooks', 'trigger', NOTE_CREATED, '--subscription', '999999', '--email', 'admin@demo.test'],
        'addon-kit webhooks: admin@demo.test has no webhook subscription 999999',
      ],
      [
        ['webhooks', 'trigger', NOTE_CREATED, '--subscription', '1', '--email', 'member@demo.test'],
        'addon-kit webhooks: member@demo.test has no webhook subscription 1',
      ],
      [
        ['webhooks', 'trigger', NOTE_CREATED, '--host', 'http://127.0.0.1:9'],
        'addon-kit webhooks: pass --email, or sign in to http://127.0.0.1:9 first (addon-kit login) so the CLI knows who you are',
      ],
      [
        ['webhooks', 'fire', NOTE_CREATED],
        'addon-kit webhooks: unknown webhooks action "fire"; actions: trigger (see addon-kit help webhooks)',
      ],
    ];
    for (const [args, message] of cases) {
      const res = await runCli([...args, ...storage], noSignIn);
      expect([res.code, res.stderr.trim().split('\n').at(-1)]).toEqual([2, message]);
    }
  }, 90_000);

  it('is in the help', async () => {
    const help = await runCli(['help', 'webhooks']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('addon-kit webhooks trigger <event>');
    expect(help.stdout).toContain('--subscription ID');
  });
});
