/**
 * The states of one person's authorization of one installation (`addon_authorizations.state`) as a
 * machine: each state lists the states it may move to, and a move outside that list is refused with
 * an {@link IllegalTransitionError}. The store applies a transition in the statement that writes it
 * (`… WHERE state = ANY(<allowed sources>)`), so a concurrent writer cannot slip an illegal move in.
 */

/** The handshake and token state of one person's authorization of one installation. */
export const AUTHORIZATION_STATES = [
  'uninitialized',
  'service_authorized',
  'integrator_pending',
  'ready',
  'reauthorization_required',
] as const;

/** One of {@link AUTHORIZATION_STATES}. */
export type AuthorizationState = (typeof AUTHORIZATION_STATES)[number];

/**
 * Allowed moves. Step 3 (the host grant stored) may start from any state: a handshake can be restarted at
 * any point and replaces what was there. `integrator_pending` → `ready` is step 6. A lost grant (host or
 * integrator) moves any authorized state to `reauthorization_required`; only a new handshake leaves it.
 */
export const AUTHORIZATION_TRANSITIONS: { readonly [S in AuthorizationState]: readonly AuthorizationState[] } = {
  uninitialized: ['service_authorized'],
  service_authorized: ['service_authorized', 'integrator_pending', 'reauthorization_required'],
  integrator_pending: ['service_authorized', 'ready', 'reauthorization_required'],
  ready: ['service_authorized', 'reauthorization_required'],
  reauthorization_required: ['service_authorized'],
};

/** True when `from` may move to `to`. */
export function canTransition(from: AuthorizationState, to: AuthorizationState): boolean {
  return AUTHORIZATION_TRANSITIONS[from].includes(to);
}

/** The states that may move to `to` (the guard of the statement that writes it). */
export function sourcesOf(to: AuthorizationState): AuthorizationState[] {
  return AUTHORIZATION_STATES.filter((from) => canTransition(from, to));
}

/** A move the machine does not allow; nothing was written. */
export class IllegalTransitionError extends Error {
  readonly code = 'illegal_transition' as const;
  constructor(
    readonly from: AuthorizationState,
    readonly to: AuthorizationState,
  ) {
    super(`An add-on authorization cannot move from ${from} to ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

/** Refuses an illegal move with {@link IllegalTransitionError}. */
export function assertTransition(from: AuthorizationState, to: AuthorizationState): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}
