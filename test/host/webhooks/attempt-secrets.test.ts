import { describe, expect, it } from 'vitest';
import { createSecretBox, type SecretBox } from '#host/crypto/secret-box.ts';
import { createAttemptSecrets } from '#host/webhooks/attempt-secrets.ts';
import type { ClaimedEvent } from '#host/webhooks/event-store/index.ts';
import type { DeliveryTarget } from '#host/webhooks/subscription-store.ts';

const KEY = { id: 'k1', key: Buffer.alloc(32, 7).toString('base64') };
// The associated data the two kinds are sealed with (subscription-store.ts, record-lifecycle-event.ts).
const SUBSCRIPTION_AAD = 'webhook_subscription.authenticity_secret';
const LIFECYCLE_AAD = 'webhook_events:signing_secret';

/** The box, counting its opens. */
function countingBox(): { box: SecretBox; opens: () => number } {
  const box = createSecretBox([KEY]);
  let opens = 0;
  return {
    box: {
      ...box,
      open(sealed, aad) {
        opens++;
        return box.open(sealed, aad);
      },
    },
    opens: () => opens,
  };
}

const event = (subscriptionId: string | null) => ({ subscription_id: subscriptionId }) as ClaimedEvent;
const target = (secret: string, previous: string | null = null): DeliveryTarget => ({
  id: '1',
  url: 'https://example.com/hooks',
  active: true,
  visible: true,
  authenticity_secret: secret,
  previous_secret: previous,
});

describe('createAttemptSecrets()', () => {
  it('opens each sealed secret once for all the attempts that sign with it [kept]', () => {
    const { box, opens } = countingBox();
    const secrets = createAttemptSecrets(box);
    const current = box.seal('whsec_current', SUBSCRIPTION_AAD);
    const previous = box.seal('whsec_previous', SUBSCRIPTION_AAD);
    expect(secrets.of(event('1'), target(current))).toEqual(['whsec_current']);
    expect(secrets.of(event('1'), target(current, previous))).toEqual(['whsec_current', 'whsec_previous']);
    expect(secrets.of(event('1'), target(current, previous))).toEqual(['whsec_current', 'whsec_previous']);
    expect(opens()).toBe(2);
  });

  it("opens a lifecycle event's secret with its own associated data, never a subscription's entry [lifecycle]", () => {
    const { box } = countingBox();
    const secrets = createAttemptSecrets(box);
    const sealed = box.seal('client-secret', LIFECYCLE_AAD);
    expect(secrets.of(event(null), target(sealed))).toEqual(['client-secret']);
    // The same sealed value as a subscription's secret does not open (another associated data): nothing kept serves it.
    expect(() => secrets.of(event('1'), target(sealed))).toThrow();
  });

  it('keeps no value that does not open: every attempt fails on it [tampered]', () => {
    const { box, opens } = countingBox();
    const secrets = createAttemptSecrets(box);
    const sealed = box.seal('whsec_x', SUBSCRIPTION_AAD);
    const tampered = `${sealed.slice(0, -2)}AA`;
    expect(() => secrets.of(event('1'), target(tampered))).toThrow();
    expect(() => secrets.of(event('1'), target(tampered))).toThrow();
    expect(opens()).toBe(2);
  });
});
