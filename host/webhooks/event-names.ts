/**
 * The event names a subscription may use: `{product}.v2.events.{resource}.{action}`, one for every write of the
 * People API (host/people records them in the write's transaction).
 */

/** Every available event name, in the order `GET /webhooks/v2/available_events` lists them. */
export const AVAILABLE_EVENTS = [
  'people.v2.events.note.created',
  'people.v2.events.note.updated',
  'people.v2.events.note.destroyed',
  'people.v2.events.list.updated',
  'people.v2.events.list.run',
] as const;

/** One available event name. */
export type EventName = (typeof AVAILABLE_EVENTS)[number];

/** Whether `name` is an available event name. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (AVAILABLE_EVENTS as readonly string[]).includes(name);
}
