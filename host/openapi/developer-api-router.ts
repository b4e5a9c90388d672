/**
 * Public routes describing the developer-account API (no authentication): the OpenAPI document per
 * version at `/api/v2/open_api/{version}`, the latest at `/api/v2/open_api` and
 * `/api/v2/open_api/latest` (the reference UI at `/docs` renders it: host/docs/).
 */
import { Router, type Response } from 'express';
import {
  API_VERSION_HEADER,
  LATEST_API_VERSION,
  UnsupportedVersionError,
  isApiVersion,
  type ApiVersion,
} from '../api/api-version.ts';
import { openApiDocument, type OpenApiDocument } from './developer-api-document.ts';

/** The public description routes; documents are built once per version. */
export function openApiRouter(deps: { baseUrl: string }): Router {
  const documents = new Map<ApiVersion, OpenApiDocument>();
  const documentOf = (version: ApiVersion) => {
    let doc = documents.get(version);
    if (!doc) documents.set(version, (doc = openApiDocument(deps.baseUrl, version)));
    return doc;
  };
  const send = (res: Response, version: ApiVersion) => {
    res.set(API_VERSION_HEADER, version).json(documentOf(version));
  };

  const router = Router();
  router.get('/api/v2/open_api', (_req, res) => send(res, LATEST_API_VERSION));
  router.get('/api/v2/open_api/latest', (_req, res) => send(res, LATEST_API_VERSION));
  router.get('/api/v2/open_api/:version', (req, res) => {
    const version = String(req.params.version);
    if (!isApiVersion(version)) throw new UnsupportedVersionError(version);
    send(res, version);
  });
  return router;
}
