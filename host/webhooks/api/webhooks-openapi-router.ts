/** The public description of the webhooks API: `/webhooks/v2/open_api` (and `/latest`, `/2022-10-20`). */
import { Router } from 'express';
import { NotFoundError } from '../../errors.ts';
import { WEBHOOKS_PREFIX, webhooksOpenApiDocument } from './webhooks-openapi.ts';

const VERSION = '2022-10-20';

/** Where the reference UI at `/docs` finds the document (`/docs?api=webhooks`), and its console token's reach. */
export const WEBHOOKS_DOCUMENT_LINK = {
  id: 'webhooks',
  title: 'Webhooks API',
  url: `${WEBHOOKS_PREFIX}/open_api`,
  console: { apiPrefix: WEBHOOKS_PREFIX, scope: 'webhooks' },
} as const;

/** The description routes (no authentication); the document is built once. */
export function webhooksOpenApiRouter(deps: { baseUrl: string }): Router {
  let document: Record<string, unknown> | undefined;
  const router = Router();
  router.get([`${WEBHOOKS_PREFIX}/open_api`, `${WEBHOOKS_PREFIX}/open_api/:version`], (req, res) => {
    const version = req.params.version;
    if (version !== undefined && version !== 'latest' && version !== VERSION) throw new NotFoundError();
    res.json((document ??= webhooksOpenApiDocument(deps.baseUrl)));
  });
  return router;
}
