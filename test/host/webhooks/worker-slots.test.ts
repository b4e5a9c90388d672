import { describe, expect, it } from 'vitest';
import { createWorkerSlots } from '#host/webhooks/worker-slots.ts';

const busy = (slots: ReturnType<typeof createWorkerSlots>, n: number) => {
  for (let i = 0; i < n; i++) slots.inFlight.add(Promise.resolve());
};

describe('createWorkerSlots()', () => {
  it('reserves the free slots for a claim only once half are free, and never the same slots twice [claim]', () => {
    const slots = createWorkerSlots(8);
    expect(slots.reserveForClaim()).toBe(8);
    // All eight are promised to the claim under way: a second claim gets none.
    expect(slots.reserveForClaim()).toBe(0);
    slots.release(8);
    busy(slots, 5);
    // Three free of eight: fewer than half.
    expect(slots.reserveForClaim()).toBe(0);
    slots.inFlight.delete([...slots.inFlight][0]!);
    expect(slots.reserveForClaim()).toBe(4);
  });

  it('counts a finishing batch as the slots it frees, less those reserved meanwhile [finish and claim]', () => {
    const slots = createWorkerSlots(8);
    busy(slots, 8);
    // A batch of three ending frees three: fewer than half.
    expect(slots.reserveAfterBatch(3)).toBe(0);
    expect(slots.reserveAfterBatch(6)).toBe(6);
    // Those six are promised: another batch of four finds nothing more to claim.
    expect(slots.reserveAfterBatch(4)).toBe(0);
    slots.release(6);
    expect(slots.reserveAfterBatch(4)).toBe(4);
  });

  it('says whether a claim would take slots, reserving none [claimable]', () => {
    const slots = createWorkerSlots(8);
    expect(slots.claimable()).toBe(true);
    busy(slots, 5);
    // Three free of eight: a claim would take none, so an attempt's end need not wake the worker.
    expect(slots.claimable()).toBe(false);
    slots.inFlight.delete([...slots.inFlight][0]!);
    expect(slots.claimable()).toBe(true);
    // Asking reserved nothing: the claim still gets all four free slots.
    expect(slots.reserveForClaim()).toBe(4);
    expect(slots.claimable()).toBe(false);
    slots.release(4);
    slots.close();
    expect(slots.claimable()).toBe(false);
  });

  it('reserves nothing once closed [stop]', () => {
    const slots = createWorkerSlots(8);
    slots.close();
    expect(slots.reserveForClaim()).toBe(0);
    expect(slots.reserveAfterBatch(8)).toBe(0);
  });
});
