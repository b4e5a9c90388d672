/**
 * node-oidc-provider's records (tokens, codes, sessions, grants) in `oauth_provider_records`: its adapter, the
 * refresh grant's combined read, the writes a refresh collects and sends together, and the replay of a
 * refresh two requests sent at once. Every statement on that table is in this folder.
 */
export {
  DatabaseAdapter,
  EXPIRED_RECORD_RETENTION_SECONDS,
  purgeExpiredOAuthRecords,
  recordDigest,
  REFRESH_CONCURRENCY_GRACE_SECONDS,
} from './adapter.ts';
export { takePrefetchedAccount } from './refresh-reads.ts';
export { replayConcurrentRefresh } from './refresh-replay.ts';
