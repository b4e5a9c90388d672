/**
 * The secrets an attempt signs with, opened from their sealed form once per sealed value rather than once per
 * attempt: unsealing (AES-256-GCM) was about 3 % of a busy worker's time, for secrets that change only on a rotation.
 * A rotation seals a new value (a new key here), and a previous secret past its grace window is no longer claimed
 * (subscription-store.ts's `deliveryTargetsSql`), so nothing kept is ever used after it stops signing. A value
 * that does not open is not kept: each attempt fails on it as before. At most MAX_KEPT values are kept (the oldest
 * goes first), so a worker's memory does not grow with the subscriptions it ever served.
 */
import type { SecretBox } from '../crypto/secret-box.ts';
import type { ClaimedEvent } from './event-store/index.ts';
import { openLifecycleSecret } from './record-lifecycle-event.ts';
import { openSubscriptionSecret, type DeliveryTarget } from './subscription-store.ts';

const MAX_KEPT = 1000;

/** The opened secrets of the attempts of one worker. */
export interface AttemptSecrets {
  /** The target's current secret, then its previous one while a rotation's grace window lasts. */
  of(event: ClaimedEvent, target: DeliveryTarget): string[];
}

export function createAttemptSecrets(box: SecretBox): AttemptSecrets {
  const kept = new Map<string, string>();
  // A lifecycle event's secret is sealed with its own associated data: the two kinds never share an entry.
  const open = (lifecycle: boolean, sealed: string): string => {
    const key = `${lifecycle ? 'lifecycle' : 'subscription'}:${sealed}`;
    let secret = kept.get(key);
    if (secret === undefined) {
      secret = lifecycle ? openLifecycleSecret(box, sealed) : openSubscriptionSecret(box, sealed);
      kept.set(key, secret);
      if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
    }
    return secret;
  };
  return {
    of(event, target) {
      const secrets = [open(event.subscription_id === null, target.authenticity_secret)];
      if (target.previous_secret) secrets.push(open(false, target.previous_secret));
      return secrets;
    },
  };
}
