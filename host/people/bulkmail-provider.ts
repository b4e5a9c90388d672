/**
 * Bulk-mail provider adapters. A provider receives a list and its people and reports the outcome; it
 * never throws for a failed delivery (the outcome says so), so the caller can record every failure.
 */

/** One person as sent to the provider. */
export interface BulkmailPerson {
  id: string;
  first_name: string;
  last_name: string;
  email: string | null;
}

/** What a provider is asked to deliver: one list and its current people. */
export interface BulkmailSyncRequest {
  organizationId: string;
  list: { id: string; name: string | null };
  people: readonly BulkmailPerson[];
}

/** The provider's verdict: accepted (with the count) or failed (with a short reason, never a secret). */
export type BulkmailSyncOutcome = { ok: true; syncedCount: number } | { ok: false; error: string };

/** What every provider implements. */
export interface BulkmailProvider {
  /** The provider name stored in `bulkmail_providers.provider`. */
  readonly name: string;
  sync(request: BulkmailSyncRequest): Promise<BulkmailSyncOutcome>;
}

/** Only http(s) endpoints are ever called (the URL is admin-configured, but never file:, data: …). */
export function isHttpEndpoint(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}
