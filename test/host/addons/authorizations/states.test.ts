import { describe, expect, it } from 'vitest';
import {
  AUTHORIZATION_STATES,
  IllegalTransitionError,
  assertTransition,
  canTransition,
  sourcesOf,
  type AuthorizationState,
} from '#host/addons/authorizations/index.ts';

const ALLOWED: [AuthorizationState, AuthorizationState][] = [
  ['uninitialized', 'service_authorized'],
  ['service_authorized', 'service_authorized'],
  ['service_authorized', 'integrator_pending'],
  ['service_authorized', 'reauthorization_required'],
  ['integrator_pending', 'service_authorized'],
  ['integrator_pending', 'ready'],
  ['integrator_pending', 'reauthorization_required'],
  ['ready', 'service_authorized'],
  ['ready', 'reauthorization_required'],
  ['reauthorization_required', 'service_authorized'],
];
const allowed = new Set(ALLOWED.map(([from, to]) => `${from}>${to}`));
const ILLEGAL = AUTHORIZATION_STATES.flatMap((from) => AUTHORIZATION_STATES.map((to) => [from, to] as const)).filter(
  ([from, to]) => !allowed.has(`${from}>${to}`),
);

describe('authorization states', () => {
  it.each(ALLOWED)('allows %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
    expect(sourcesOf(to)).toContain(from);
  });

  it.each(ILLEGAL)('refuses %s → %s with a typed error', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(sourcesOf(to)).not.toContain(from);
    let error: unknown;
    try {
      assertTransition(from, to);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect(error).toMatchObject({
      code: 'illegal_transition',
      from,
      to,
      message: `An add-on authorization cannot move from ${from} to ${to}`,
    });
  });

  it('has 10 allowed and 15 illegal moves among its 5 states [table]', () => {
    expect(ALLOWED).toHaveLength(10);
    expect(ILLEGAL).toHaveLength(15);
    expect(sourcesOf('uninitialized')).toEqual([]);
    expect(sourcesOf('ready')).toEqual(['integrator_pending']);
  });
});
