/**
 * oidc-provider's client metadata of each OAuth application, kept in memory so a token request neither
 * reads `oauth_applications` nor unseals the client secret again. Every write to that table announces
 * the client_id (a trigger, migration 064); each host process listening drops its copy when it hears it,
 * moments after the commit. A change written through host/oauth/applications.ts in this process is dropped
 * before its writer goes on, so a changed redirect URI, a rotated secret or a deleted application applies to
 * this process's very next request. While the listening connection is down (PostgreSQL), nothing is cached.
 */
import type { AdapterPayload } from 'oidc-provider';
import type { Database, Subscription } from '../db/database.ts';
import { onApplicationsChanged } from './applications.ts';

/** The channel the trigger announces changes on. */
export const CLIENT_CHANGE_CHANNEL = 'oauth_application_changed';

/** Cached client metadata by client_id. */
export interface ClientCache {
  /** The cached metadata, or what `load` finds (cached when the cache is listening). */
  get(clientId: string, load: () => Promise<AdapterPayload | undefined>): Promise<AdapterPayload | undefined>;
  close(): Promise<void>;
}

/** Starts listening for application changes on `db`. */
export async function createClientCache(db: Database): Promise<ClientCache> {
  const cache = new Map<string, AdapterPayload | undefined>();
  // A change heard while a read is in flight makes that read's result unsafe to keep.
  let generation = 0;
  // Without LISTEN nothing tells this process about changes: then nothing is cached.
  const subscription: Subscription = !db.listen
    ? { active: false, close: async () => {} }
    : await db.listen(
        CLIENT_CHANGE_CHANNEL,
        (clientId) => {
          generation += 1;
          cache.delete(clientId);
        },
        () => {
          generation += 1;
          cache.clear();
        },
      );
  const stopHearingWrites = onApplicationsChanged(() => {
    generation += 1;
    cache.clear();
  });
  return {
    async get(clientId, load) {
      if (subscription.active && cache.has(clientId)) return cache.get(clientId);
      const before = generation;
      const found = await load();
      // An unknown client_id is not cached: a client created later needs no notification to be seen.
      if (found && subscription.active && generation === before) cache.set(clientId, found);
      return found;
    },
    close: () => {
      stopHearingWrites();
      return subscription.close();
    },
  };
}
