/** What the handshake's steps need, and the limits they share. */
import type Provider from 'oidc-provider';
import type { HostConfig } from '../../config.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import type { Clock } from '../clock.ts';
import type { TokenVault } from '../authorizations/index.ts';

/** What the handshake routes need. */
export interface HandshakeDeps {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  config: HostConfig;
  clock: Clock;
  provider: Provider;
  logger: Logger;
  tokenTimeoutSeconds: number;
}

/** A handshake must finish within 15 minutes of its current leg's start. */
export const HANDSHAKE_TTL_MS = 15 * 60 * 1000;
