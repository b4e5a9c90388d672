/** Time source injected everywhere expiry is decided, so tests move time instead of sleeping. */
export type Clock = () => Date;

/** The wall clock. */
export const systemClock: Clock = () => new Date();
