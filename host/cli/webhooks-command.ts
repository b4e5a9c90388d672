/**
 * `addon-kit webhooks trigger <event> [--subscription ID] [--email E]`: a test event to the person's active
 * subscriptions to `<event>` (or only the one named), through the normal outbox — host/webhooks' `sendTestEvent`, the
 * developer pages' "send a test event" — so it is signed, retried and visible in `/webhooks/v2` like any event.
 * Beside a running `start` it runs inside that host over the CLI channel (its worker is woken at once); otherwise
 * the events wait in the outbox for the next host to start.
 */
import { loadPersonByEmail } from '../auth/person.ts';
import { findSubscription, isEventName, listSubscriptions, sendTestEvent } from '../webhooks/index.ts';
import { parse, UsageError } from './args.ts';
import { readCredentials } from './auth/credential-store.ts';
import { unknownAction, WEBHOOKS_TRIGGER_FORM } from './command-specs.ts';
import { hostUrl } from './host-url.ts';
import type { CommandIo } from './io.ts';
import { withStorage } from './storage.ts';

/** The person: `--email`, else the e-mail of the CLI's sign-in to the host. */
async function emailOf(values: { email?: string | undefined; host?: string | undefined }): Promise<string> {
  if (values.email) return values.email;
  const host = hostUrl(values.host, process.env);
  const signedIn = (await readCredentials(host))?.email;
  if (!signedIn)
    throw new UsageError(`pass --email, or sign in to ${host} first (addon-kit login) so the CLI knows who you are`);
  return signedIn;
}

export async function webhooksCommand(argv: string[], io: CommandIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== WEBHOOKS_TRIGGER_FORM.action) throw unknownAction('webhooks', action);
  const { values, positionals } = parse(rest, WEBHOOKS_TRIGGER_FORM.options, 1);
  const event = positionals[0];
  if (!event) throw new UsageError('<event> is required (see addon-kit help webhooks)');
  if (!isEventName(event)) throw new UsageError(`unknown event ${JSON.stringify(event)} (see addon-kit help webhooks)`);
  const subscriptionId = values.subscription;
  if (subscriptionId !== undefined && !/^[1-9][0-9]{0,17}$/.test(subscriptionId))
    throw new UsageError(`--subscription must be a subscription id, got ${JSON.stringify(subscriptionId)}`);
  const email = await emailOf(values);
  // Sent whole to a running host, with the person resolved here, where the CLI's sign-in is.
  const forwarded = [
    'webhooks',
    action,
    event,
    `--email=${email}`,
    ...(subscriptionId !== undefined ? [`--subscription=${subscriptionId}`] : []),
    ...(values.json ? ['--json'] : []),
    ...(values['data-dir'] !== undefined ? [`--data-dir=${values['data-dir']}`] : []),
    ...(values['database-url'] !== undefined ? [`--database-url=${values['database-url']}`] : []),
  ];
  return withStorage({ argv: forwarded, creates: false }, values, io, async ({ db }) => {
    const person = await loadPersonByEmail(db, email);
    if (!person) throw new UsageError(`no person with the e-mail ${email}`);
    const owner = { organizationId: person.organization_id, personId: person.id };
    let subscriptions;
    if (subscriptionId !== undefined) {
      const found = await findSubscription(db, owner, subscriptionId);
      // Another person's (or organization's) subscription is as unknown as a missing one.
      if (!found) throw new UsageError(`${email} has no webhook subscription ${subscriptionId}`);
      if (found.name !== event)
        throw new UsageError(`subscription ${subscriptionId} is to ${found.name}, not ${event}`);
      if (!found.active) throw new UsageError(`subscription ${subscriptionId} is inactive; activate it first`);
      subscriptions = [found];
    } else {
      subscriptions = (await listSubscriptions(db, owner)).filter((s) => s.name === event && s.active);
      if (subscriptions.length === 0) throw new UsageError(`${email} has no active subscription to ${event}`);
    }
    const sent = [];
    for (const subscription of subscriptions) {
      const recorded = await sendTestEvent(db, subscription);
      sent.push({
        subscription_id: subscription.id,
        event_id: recorded.id,
        uuid: recorded.uuid,
        url: subscription.url,
      });
    }
    if (values.json) io.out(JSON.stringify({ events: sent.map(({ url: _url, ...e }) => e) }));
    else {
      for (const e of sent) io.out(`test event ${e.uuid} recorded for subscription ${e.subscription_id} (${e.url})`);
      io.out(
        `see its deliveries at /webhooks/v2/webhook_subscriptions/{id}/events (or the developer pages' Webhooks page)`,
      );
    }
    return 0;
  });
}
