/** The two-way handshake (steps 0–6). */
import { Router } from 'express';
import type { HostConfig } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { Clock } from './clock.ts';
import type { Loopback } from './loopback.ts';
import type { TokenVault } from './token-vault.ts';

export interface HandshakeDeps {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  config: HostConfig;
  clock: Clock;
  loopback: Loopback;
  logger: Logger;
}

export function handshakeRouter(_deps: HandshakeDeps): Router {
  return Router();
}
