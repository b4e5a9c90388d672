/**
 * The delivery worker of one host process. It fans the changes recorded by People writes out into events, one per
 * subscription (event-store/changes.ts), and claims due events from the outbox (event-store/) up to
 * `concurrency` attempts in flight, reads their subscriptions' URLs and secrets (subscription-store.ts), sends each
 * (attempt-delivery.ts) and records the outcomes of the attempts that ended meanwhile in one statement
 * (attempt-finisher.ts; with the deactivations an outcome asks for, in one transaction). It wakes on a NOTIFY sent at
 * the commit of a change (record-event.ts), when an attempt ends, when the next retry falls due, and at least every
 * `pollIntervalMs` (a NOTIFY missed while a PostgreSQL connection was lost, events of another process). Several
 * processes share the outbox: SKIP LOCKED and the lease keep one attempt in flight per event. `stop()` ends the
 * claims and waits for the attempts in flight.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database, Subscription } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { UpstreamPool } from '../outbound/index.ts';
import { attemptDelivery } from './attempt-delivery.ts';
import { attemptOutcome } from './attempt-outcome.ts';
import { deliveryBody } from './delivery-body.ts';
import { createAttemptFinisher } from './attempt-finisher.ts';
import { createWorkerSlots, type WorkerSlots } from './worker-slots.ts';
import {
  claimDueEvents,
  deleteFinishedEvents,
  fanOutChanges,
  msUntilNextDue,
  type ClaimedEvent,
} from './event-store/index.ts';
import { WEBHOOK_EVENTS_CHANNEL } from './record-event.ts';
import { openLifecycleSecret } from './record-lifecycle-event.ts';
import { signDelivery } from './sign-delivery.ts';
import { openSubscriptionSecret, type DeliveryTarget } from './subscription-store.ts';

/** How the worker runs. */
export interface WebhookWorkerOptions {
  db: Database;
  /** Opens the subscriptions' sealed secrets. */
  box: SecretBox;
  logger: Logger;
  /** Milliseconds one attempt may take, connection to the end of the response body. */
  timeoutMs: number;
  /** Multiplies every retry wait (1 in production; tests compress the schedule). */
  retryScale: number;
  /** Attempts in flight at most in this process. */
  concurrency: number;
  /** Milliseconds between claims when nothing wakes the worker. */
  pollIntervalMs: number;
  /** Days a finished event (and its deliveries) is kept. */
  retentionDays: number;
  /** May deliveries reach private and loopback addresses (an operator setting: development hosts only)? */
  allowNonPublic: boolean;
  /** The User-Agent of deliveries. */
  userAgent: string;
  /** The keep-alive connections to use (the process's pool by default). */
  pool?: UpstreamPool;
  /** Called after each attempt (metrics). */
  onAttempt?: (outcome: 'delivered' | 'failed') => void;
}

/** A running worker. */
export interface WebhookWorker {
  /** Claims again now (a test, or an action that made an event due). */
  wake(): void;
  /** Stops claiming and resolves once the attempts in flight have ended. */
  stop(): Promise<void>;
}

/** A lease outlives the attempt's own time limit, so a live attempt is never claimed by another worker. */
function leaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 1000;
}

const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Changes fanned out by one statement (each into one event per subscription). */
export const FAN_OUT_BATCH = 100;

/**
 * While the worker listens, a NOTIFY tells it of every change; a poll still looks for changes once this long after the
 * last fan-out (a NOTIFY lost with its connection, a fan-out that failed). Without listening every poll looks.
 */
const FAN_OUT_AT_LEAST_EVERY_MS = 10_000;

/**
 * The target of an add-on lifecycle event (no subscription): its own URL and sealed secret; always active and
 * visible (the integrator is told about its own add-on, not shown People data).
 */
function lifecycleTarget(event: ClaimedEvent): DeliveryTarget | undefined {
  if (event.target_url === null || event.signing_secret === null) return undefined;
  return {
    id: event.id,
    url: event.target_url,
    active: true,
    visible: true,
    authenticity_secret: event.signing_secret,
    previous_secret: null,
  };
}

/** Where a claimed event goes: its subscription's target, or a lifecycle event's own. */
function targetOf(event: ClaimedEvent): DeliveryTarget | undefined {
  return event.subscription_id === null ? lifecycleTarget(event) : (event.subscription_target ?? undefined);
}

/** One attempt of an event: sent when its target is still active and visible, its outcome recorded. */
async function deliverOne(
  options: WebhookWorkerOptions,
  finisher: ReturnType<typeof createAttemptFinisher>,
  event: ClaimedEvent,
  target: DeliveryTarget | undefined,
): Promise<void> {
  if (!target?.active || !target.visible) {
    // The subscription was deactivated (or deleted), or its person may no longer see People data: nothing is sent.
    await finisher.finish({ event, outcome: { status: 'skipped', deactivate: false }, record: undefined });
    return;
  }
  const { body, headers } = signedRequest(options, event, target);
  const record = await attemptDelivery({
    url: target.url,
    headers,
    body,
    timeoutMs: options.timeoutMs,
    allowNonPublic: options.allowNonPublic,
    ...(options.pool ? { pool: options.pool } : {}),
  });
  const outcome = attemptOutcome(record.responseStatus, event.attempt, options.retryScale);
  await finisher.finish({ event, outcome, record });
  options.onAttempt?.(outcome.status === 'delivered' ? 'delivered' : 'failed');
  if (outcome.status !== 'delivered') {
    options.logger.debug(
      { event: event.uuid, attempt: event.attempt, status: record.responseStatus, error: record.error },
      'webhook delivery attempt failed',
    );
  }
}

/** The body of an attempt and its headers, signed with the target's secret (and its previous one while it rotates). */
function signedRequest(
  options: WebhookWorkerOptions,
  event: ClaimedEvent,
  target: DeliveryTarget,
): { body: string; headers: [string, string][] } {
  const lifecycle = event.subscription_id === null;
  const secrets = [
    lifecycle
      ? openLifecycleSecret(options.box, target.authenticity_secret)
      : openSubscriptionSecret(options.box, target.authenticity_secret),
  ];
  if (target.previous_secret) secrets.push(openSubscriptionSecret(options.box, target.previous_secret));
  const body = deliveryBody({
    uuid: event.uuid,
    name: event.name,
    attempt: event.attempt,
    payload: event.payload,
    organizationId: event.organization_id,
  });
  const headers: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['User-Agent', options.userAgent],
    ...signDelivery({
      id: event.uuid,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets,
      // A lifecycle event's secret is an integrator's OAuth client secret: its UTF-8 bytes key the HMAC.
      format: lifecycle ? 'raw' : 'whsec',
    }),
  ];
  return { body, headers };
}

/** Deletes the finished events past their retention, at most once every SWEEP_EVERY_MS. */
function createSweeper({ db, logger, retentionDays }: WebhookWorkerOptions): () => Promise<void> {
  let lastSweep = 0;
  return async () => {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    const deleted = await deleteFinishedEvents(db, retentionDays);
    if (deleted) logger.info({ deleted }, 'finished webhook events past their retention deleted');
  };
}

/**
 * Fans out every change recorded so far, FAN_OUT_BATCH at a time, so the claim that follows sees their events. Two
 * workers never take the same change; what another worker holds is left to it.
 */
async function fanOutAll(db: Database): Promise<void> {
  while ((await fanOutChanges(db, FAN_OUT_BATCH)).changes === FAN_OUT_BATCH);
}

/** Wakes the worker on each NOTIFY of a recorded event; undefined (the worker polls) when it cannot listen. */
async function listenForEvents(db: Database, wake: () => void, logger: Logger): Promise<Subscription | undefined> {
  if (!db.listen) return undefined;
  return db.listen(WEBHOOK_EVENTS_CHANNEL, wake, wake).catch((error: unknown) => {
    logger.warn({ err: error }, 'webhook worker could not listen; it polls');
    return undefined;
  });
}

/**
 * One pass of the worker: the sweep, the changes fanned out when some may have been recorded (`changes`), then a claim
 * for the free slots (each claimed event started); returns how long to wait before the next pass (0: at once, the
 * claim filled every slot).
 */
async function pass(
  options: WebhookWorkerOptions,
  slots: WorkerSlots,
  sweep: () => Promise<void>,
  changes: boolean,
  start: (event: ClaimedEvent, target: DeliveryTarget | undefined) => void,
): Promise<number> {
  const { db } = options;
  await sweep();
  if (changes) await fanOutAll(db);
  let waitMs = options.pollIntervalMs;
  // Claims go in batches: while more than half the slots are busy, the attempts' ends wake the worker again (and
  // their finishing statement claims for the slots it frees), so one claim serves several attempts.
  const free = slots.reserveForClaim();
  if (free > 0) {
    // One statement claims the events and reads their subscriptions' targets (URL, secrets, still active, person
    // still a People viewer).
    const claimed = await claimDueEvents(db, free, leaseMs(options.timeoutMs)).finally(() => slots.release(free));
    for (const event of claimed) start(event, targetOf(event));
    if (claimed.length === free) return 0;
    if (claimed.length === 0) {
      const next = await msUntilNextDue(db);
      if (next !== undefined) waitMs = Math.min(waitMs, Math.max(5, next));
    }
  }
  return waitMs;
}

/** Starts the worker; the caller must `stop()` it on shutdown. */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { db, logger } = options;
  const slots = createWorkerSlots(options.concurrency);
  const { inFlight } = slots;
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  // Whether a change may have been recorded since the last fan-out: set at start, by a NOTIFY (or a gap in listening)
  // and by a poll (FAN_OUT_AT_LEAST_EVERY_MS); an attempt's end wakes the worker without it.
  let changes = true;
  let lastFanOut = 0;
  let listening: Subscription | undefined;
  const finisher = createAttemptFinisher(db, {
    leaseMs: leaseMs(options.timeoutMs),
    reserve: (batchSize) => slots.reserveAfterBatch(batchSize),
    claimed(events, reserved) {
      for (const event of events) start(event, targetOf(event));
      slots.release(reserved);
    },
  });
  const sweep = createSweeper(options);

  const wake = () => {
    woken = true;
    wakeUp?.();
  };
  const changed = () => {
    changes = true;
    wake();
  };

  function start(event: ClaimedEvent, target: DeliveryTarget | undefined): void {
    const running: Promise<void> = deliverOne(options, finisher, event, target)
      .catch((error: unknown) => {
        // The lease runs out and another claim tries again: at least once.
        logger.warn({ err: error, event: event.uuid }, 'webhook delivery attempt could not be recorded');
      })
      .finally(() => {
        inFlight.delete(running);
        wake();
      });
    inFlight.add(running);
  }

  const loop = (async () => {
    listening = await listenForEvents(db, changed, logger);
    while (!stopped) {
      woken = false;
      const fanOut: boolean = changes;
      changes = false;
      if (fanOut) lastFanOut = Date.now();
      let waitMs: number;
      try {
        waitMs = await pass(options, slots, sweep, fanOut, start);
      } catch (error) {
        if (stopped) break;
        logger.warn({ err: error }, 'webhook worker pass failed');
        changes ||= fanOut;
        waitMs = options.pollIntervalMs;
      }
      if (stopped || woken || waitMs === 0) continue;
      const controller = new AbortController();
      wakeUp = () => controller.abort();
      // Waited out without a wake: a poll, which looks for changes when no NOTIFY would tell, or now and then.
      const polled = await delay(waitMs, true, { signal: controller.signal, ref: false }).catch(() => false);
      if (polled && (!listening || Date.now() - lastFanOut >= FAN_OUT_AT_LEAST_EVERY_MS)) changes = true;
      wakeUp = undefined;
    }
  })();

  return {
    wake: changed,
    async stop() {
      stopped = true;
      slots.close();
      wakeUp?.();
      await loop;
      // A finishing statement under way may still start the attempts it claimed: wait for those too.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await listening?.close();
    },
  };
}
