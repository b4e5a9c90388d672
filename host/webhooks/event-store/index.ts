/**
 * The one owner of webhook_changes, webhook_events (the outbox) and webhook_deliveries: the delivery system's writes
 * (changes.ts, writes.ts, claims.ts, finish-attempts.ts) and the reads of the API and the developer pages (reads.ts).
 */
export * from './changes.ts';
export * from './writes.ts';
export * from './claims.ts';
export * from './finish-attempts.ts';
export * from './reads.ts';
