/**
 * Public routes serving the OpenAPI document of each product API and of the OAuth endpoints (no
 * authentication, like `/api/v2/open_api`): `/{product}/v2/open_api/{version}`, and the latest at
 * `/{product}/v2/open_api` and `/{product}/v2/open_api/latest`. Documents are built once per version.
 */
import { Router } from 'express';
import { API_VERSION_HEADER, LATEST_API_VERSION, UnsupportedVersionError, isApiVersion } from '../api/api-version.ts';
import type { OpenApiDocument } from './product-document.ts';

/** A document the host serves: the product segment of its path and how to build it per version. */
export interface ServedDocument {
  product: string;
  build(version: string): OpenApiDocument;
}

/** The router serving every document of `documents`. */
export function documentsRouter(documents: readonly ServedDocument[]): Router {
  const router = Router();
  for (const served of documents) {
    const built = new Map<string, OpenApiDocument>();
    const send = (version: string) => {
      let doc = built.get(version);
      if (!doc) built.set(version, (doc = served.build(version)));
      return doc;
    };
    const base = `/${served.product}/v2/open_api`;
    router.get([base, `${base}/latest`], (_req, res) => {
      res.set(API_VERSION_HEADER, LATEST_API_VERSION).json(send(LATEST_API_VERSION));
    });
    router.get(`${base}/:version`, (req, res) => {
      const version = String(req.params.version);
      if (!isApiVersion(version)) throw new UnsupportedVersionError(version);
      res.set(API_VERSION_HEADER, version).json(send(version));
    });
  }
  return router;
}
