/**
 * The background sweeper: integrator tokens nobody is using are refreshed inside the lead window too,
 * through the refresh engine (so a sweep and a proxied call never refresh the same token twice).
 */
import type { Queryable } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import { AddonError } from '../addon-error.ts';
import { integratorTokensDue, type TokenVault } from '../authorizations/index.ts';
import type { Clock } from '../clock.ts';
import { loadInstallation } from '../registry/index.ts';
import { dueForRefresh, type RefreshEngine } from './refresh-engine.ts';

/** What the sweeper needs. */
export interface SweeperOptions {
  db: Queryable;
  vault: TokenVault;
  engine: RefreshEngine;
  clock: Clock;
  logger: Logger;
  leadMs: number;
}

/** Background refresh of integrator tokens. */
export interface Sweeper {
  /** Refreshes every ready integrator token inside the lead window once; returns how many were refreshed. */
  sweep(): Promise<number>;
  /** Runs `sweep` every `intervalMs` until `stop`. */
  start(intervalMs: number): void;
  /** Stops the sweeper and waits for a running sweep. */
  stop(): Promise<void>;
}

/** Creates the sweeper (started separately with `start`). */
export function createSweeper(options: SweeperOptions): Sweeper {
  const { db, vault, engine, clock, logger, leadMs } = options;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;

  async function sweep(): Promise<number> {
    let refreshed = 0;
    for (const due of await integratorTokensDue(db, new Date(clock.now() + leadMs), 100)) {
      try {
        const [record, installation] = await Promise.all([
          vault.findById(due.id),
          loadInstallation(db, due.installationId),
        ]);
        if (!record || !installation || record.state !== 'ready' || !record.integrator) continue;
        if (!dueForRefresh(record.integrator.expiresAt, clock.now(), leadMs)) continue;
        await engine.accessToken('integrator', record, installation);
        refreshed += 1;
      } catch (error) {
        const code = error instanceof AddonError ? error.code : 'unexpected';
        logger.warn({ authorizationId: due.id, code }, 'background refresh failed');
      }
    }
    return refreshed;
  }

  return {
    sweep,
    start(intervalMs) {
      if (timer) return;
      timer = setInterval(() => {
        if (sweeping) return;
        sweeping = sweep()
          .catch((error: unknown) => logger.warn({ err: error }, 'sweep failed'))
          .finally(() => (sweeping = undefined));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };
}
