/**
 * An Express app exposing a test resource over the seeded `people` table through the JSON:API
 * engine, with the host's own middleware and error handler — to test the engine's rules directly.
 */
import express, { Router } from 'express';
import type { Database } from '#host/db/database.ts';
import { errorHandler, notFound } from '#host/http/error-handler.ts';
import { requestContext } from '#host/http/request-context.ts';
import type { ResourceDefinition } from '#host/jsonapi/resource.ts';
import { collectionRoute, pathId, singleRoute } from '#host/jsonapi/routes.ts';
import { orderClause, pageClause, queryConditions, SqlParams } from '#host/jsonapi/sql.ts';
import { createLogger, type Logger } from '#host/logger.ts';
import { TEST_BASE_URL } from './constants.ts';

export const campusResource: ResourceDefinition = {
  type: 'Campus',
  attributes: { name: { type: 'string' } },
  fields: ['name'],
  links: (row, base) => ({ self: `${base}/test/campuses/${String(row.id)}` }),
};

export const testPersonResource: ResourceDefinition = {
  type: 'TestPerson',
  attributes: {
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    site_administrator: { type: 'boolean' },
    created_at: { type: 'date_time' },
  },
  fields: ['first_name', 'last_name', 'site_administrator', 'created_at', 'campus'],
  relationships: { campus: { type: 'Campus', id: (row) => row.campus_id as string | null } },
  links: (row, base) => ({ self: `${base}/test/people/${String(row.id)}` }),
  includes: ['campus'],
  order: {
    first_name: 'p.first_name',
    last_name: 'p.last_name',
    created_at: 'p.created_at',
    'campuses.name': 'c.name',
  },
  defaultOrder: 'p.id ASC',
  where: {
    id: { type: 'primary_key', column: 'p.id' },
    first_name: { type: 'string', column: 'p.first_name' },
    site_administrator: { type: 'boolean', column: 'p.site_administrator' },
    created_at: { type: 'date_time', column: 'p.created_at' },
  },
  filters: {
    women: () => "p.gender = 'F'",
    me: (ctx) => `p.id = ${ctx.param(ctx.personId)}`,
  },
};

/** The app; `boom` throws an unexpected error to exercise the 500 path. */
export function engineApp(db: Database, logger: Logger = createLogger('silent')) {
  const app = express();
  app.locals.baseUrl = TEST_BASE_URL;
  app.use(requestContext(logger));
  const router = Router();
  router.get(
    '/people',
    collectionRoute(
      testPersonResource,
      async (_req, query) => {
        const params = new SqlParams([]);
        const conditions = ["o.slug = 'demo'", ...queryConditions(testPersonResource, query, params, '0')];
        const where = `WHERE ${conditions.join(' AND ')}`;
        const from =
          'FROM people p JOIN organizations o ON o.id = p.organization_id LEFT JOIN campuses c ON c.id = p.campus_id';
        const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n ${from} ${where}`, params.values))
          .rows[0]!.n;
        const page = pageClause(query, params);
        const { rows } = await db.query(
          `SELECT p.id::text, p.first_name, p.last_name, p.site_administrator, p.created_at, p.campus_id::text ${from} ${where} ${orderClause(testPersonResource, query, 'p.id ASC')} ${page}`,
          params.values,
        );
        const campusIds = [...new Set(rows.map((r) => r.campus_id).filter(Boolean))];
        const included = query.include.includes('campus')
          ? [
              {
                definition: campusResource,
                rows: (await db.query('SELECT id::text, name FROM campuses WHERE id = ANY($1::bigint[])', [campusIds]))
                  .rows,
              },
            ]
          : [];
        const org = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!;
        return { rows, total, parent: { id: org.id, type: 'Organization' }, included };
      },
      { related: [campusResource] },
    ),
  );
  router.get(
    '/people/:id',
    singleRoute(testPersonResource, async (req) => {
      const { rows } = await db.query(
        "SELECT p.id::text, p.first_name, p.last_name, p.site_administrator, p.created_at, p.campus_id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' AND p.id = $1",
        [pathId(req, 'id')],
      );
      return { row: rows[0], parent: { id: '1', type: 'Organization' } };
    }),
  );
  router.post('/echo', express.json(), (req, res) => {
    res.json({ received: req.body });
  });
  router.get('/boom', () => {
    throw new Error('database password is hunter2');
  });
  app.use('/test', router);
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
