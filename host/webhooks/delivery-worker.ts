/**
 * The delivery worker of one host process. It fans the changes recorded by People writes out into events, one per
 * subscription (change-fan-out.ts), and claims due events from the outbox (event-store/) up to
 * `concurrency` attempts in flight, reads their subscriptions' URLs and secrets (subscription-store.ts), sends each
 * (attempt-request.ts, attempt-delivery.ts) and records the outcomes of the attempts that ended meanwhile in one statement
 * (attempt-finisher.ts; with the deactivations an outcome asks for, in one transaction). It wakes on a NOTIFY sent at
 * the commit of a change (record-event.ts), when an attempt ends, when the next retry falls due, and at least every
 * `pollIntervalMs` (a NOTIFY missed while a PostgreSQL connection was lost, events of another process). Several
 * processes share the outbox: SKIP LOCKED and the lease keep one attempt in flight per event. `stop()` ends the
 * claims and waits for the attempts in flight.
 */
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database, Subscription } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { UpstreamPool } from '../outbound/index.ts';
import { attemptDelivery } from './attempt-delivery.ts';
import { attemptOutcome } from './attempt-outcome.ts';
import { createAttemptSecrets, type AttemptSecrets } from './attempt-secrets.ts';
import { createAttemptFinisher } from './attempt-finisher.ts';
import { signedRequest, targetOf } from './attempt-request.ts';
import { createChangeFanOut, type ChangeFanOut } from './change-fan-out.ts';
import { createWorkerSlots, type WorkerSlots } from './worker-slots.ts';
import { claimDueEvents, deleteFinishedEvents, msUntilNextDue, type ClaimedEvent } from './event-store/index.ts';
import { WEBHOOK_EVENTS_CHANNEL } from './record-event.ts';
import type { DeliveryTarget } from './subscription-store.ts';

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

/** One attempt of an event: sent when its target is still active and visible, its outcome recorded. */
async function deliverOne(
  options: WebhookWorkerOptions,
  finisher: ReturnType<typeof createAttemptFinisher>,
  secrets: AttemptSecrets,
  event: ClaimedEvent,
  target: DeliveryTarget | undefined,
): Promise<void> {
  if (!target?.active || !target.visible) {
    // The subscription was deactivated (or deleted), or its person may no longer see People data: nothing is sent.
    await finisher.finish({ event, outcome: { status: 'skipped', deactivate: false }, record: undefined });
    return;
  }
  const { body, headers } = signedRequest(options.userAgent, secrets.of(event, target), event);
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

/** Wakes the worker on each NOTIFY of a recorded event; undefined (the worker polls) when it cannot listen. */
async function listenForEvents(db: Database, wake: () => void, logger: Logger): Promise<Subscription | undefined> {
  if (!db.listen) return undefined;
  return db.listen(WEBHOOK_EVENTS_CHANNEL, wake, wake).catch((error: unknown) => {
    logger.warn({ err: error }, 'webhook worker could not listen; it polls');
    return undefined;
  });
}

/**
 * One pass of the worker: the sweep, the changes fanned out when some may have been recorded (change-fan-out.ts),
 * then a claim for the free slots (each claimed event started); returns how long to wait before the next pass (0: at
 * once, the claim filled every slot).
 */
async function pass(
  options: WebhookWorkerOptions,
  slots: WorkerSlots,
  sweep: () => Promise<void>,
  fanOut: ChangeFanOut,
  start: (event: ClaimedEvent, target: DeliveryTarget | undefined) => void,
): Promise<number> {
  const { db } = options;
  await sweep();
  await fanOut.run();
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

/**
 * The worker's wait between passes: a plain timer and resolver (an AbortController's abort builds an AbortError, a
 * DOMException with its stack, on every wake: a few per cent of a busy worker's time).
 */
function createWait() {
  let wakeUp: (() => void) | undefined;
  return {
    /** Ends the wait under way, if any. */
    wake() {
      const wakeNow = wakeUp;
      wakeUp = undefined;
      wakeNow?.();
    },
    /** Resolves true once `ms` ran out (a poll), false when woken first. */
    for(ms: number): Promise<boolean> {
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          wakeUp = undefined;
          resolve(true);
        }, ms).unref();
        wakeUp = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
    },
  };
}

/** Starts the worker; the caller must `stop()` it on shutdown. */
export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { db, logger } = options;
  const slots = createWorkerSlots(options.concurrency);
  const { inFlight } = slots;
  let stopped = false;
  let woken = false;
  const wait = createWait();
  const fanOut = createChangeFanOut(db);
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
  const secrets = createAttemptSecrets(options.box);

  const wake = () => {
    woken = true;
    wait.wake();
  };
  const changed = () => {
    fanOut.changed();
    wake();
  };

  function start(event: ClaimedEvent, target: DeliveryTarget | undefined): void {
    const running: Promise<void> = deliverOne(options, finisher, secrets, event, target)
      .catch((error: unknown) => {
        // The lease runs out and another claim tries again: at least once.
        logger.warn({ err: error, event: event.uuid }, 'webhook delivery attempt could not be recorded');
      })
      .finally(() => {
        inFlight.delete(running);
        // Only once a claim could take the slots: while fewer than half are free a pass would claim nothing, and
        // a batch's attempts end together (their finishing statement claims for them).
        if (slots.claimable()) wake();
      });
    inFlight.add(running);
  }

  const loop = (async () => {
    listening = await listenForEvents(db, changed, logger);
    while (!stopped) {
      woken = false;
      let waitMs: number;
      try {
        waitMs = await pass(options, slots, sweep, fanOut, start);
      } catch (error) {
        if (stopped) break;
        logger.warn({ err: error }, 'webhook worker pass failed');
        waitMs = options.pollIntervalMs;
      }
      if (stopped || woken || waitMs === 0) continue;
      if (await wait.for(waitMs)) fanOut.polled(listening !== undefined);
    }
  })();

  return {
    wake: changed,
    async stop() {
      stopped = true;
      slots.close();
      wait.wake();
      await loop;
      // A finishing statement under way may still start the attempts it claimed: wait for those too.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await listening?.close();
    },
  };
}
