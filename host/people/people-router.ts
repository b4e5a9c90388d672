/**
 * The people product API under `/people/v2`: the requester (`/me`), Notes, Lists (with runs and bulk-mail
 * sync), People and their categories. Roles are read at request time: people viewers read, editors and
 * above write.
 */
import { Router, type RequestHandler } from 'express';
import { requireRole } from '../auth/permissions.ts';
import type { Database } from '../db/database.ts';
import type { BulkmailProviderFactory } from './bulkmail-sync.ts';
import { categoryReadRoutes } from './category-reads.ts';
import { listReadRoutes } from './list-reads.ts';
import { listWriteRoutes } from './list-writes.ts';
import { meRoutes } from './me.ts';
import { noteReadRoutes, noteWriteRoutes } from './notes/index.ts';
import { personReadRoutes } from './person-reads.ts';

/** What the people router needs from the host. */
export interface PeopleRouterOptions {
  db: Database;
  /** Clock of list runs and bulk-mail syncs; default: the system clock. */
  now?: () => Date;
  /** Bulk-mail adapters by configuration; default: the http_json provider. */
  bulkmailProviders?: BulkmailProviderFactory;
}

const viewer = requireRole('people', 'viewer');
const editor = requireRole('people', 'editor');
const readOrWrite: RequestHandler = (req, res, next) =>
  (req.method === 'GET' || req.method === 'HEAD' ? viewer : editor)(req, res, next);

/** The `/people/v2` router: role check first, then every people route. */
export function peopleRouter(options: PeopleRouterOptions): Router {
  const { db } = options;
  const router = Router();
  router.use(readOrWrite);
  router.use(meRoutes(db));
  router.use(noteReadRoutes(db));
  router.use(noteWriteRoutes(db));
  router.use(listReadRoutes(db));
  router.use(
    listWriteRoutes(db, {
      now: options.now ?? (() => new Date()),
      ...(options.bulkmailProviders ? { providers: options.bulkmailProviders } : {}),
    }),
  );
  router.use(personReadRoutes(db));
  router.use(categoryReadRoutes(db));
  return router;
}
