/**
 * The token-endpoint family accepts JSON bodies as well as forms (the spec allows both); oidc-provider
 * reads forms only, so a JSON body is turned into the form it stands for before the provider sees it.
 * `POST /oauth/refresh` is the refresh URL of the spec's OAuth scheme: a refresh_token grant at /oauth/token.
 */
import express, { type RequestHandler, type Response } from 'express';
import { runMiddleware } from '../run-middleware.ts';

const parseJson = express.json({ limit: '56kb', type: () => true });
const parseForm = express.urlencoded({ extended: false, limit: '56kb' });

function oauthError(res: Response, description: string): void {
  res.status(400).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: description });
}

/** JSON object of scalar members → form string; undefined when some member is not a scalar. */
export function jsonToForm(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    if (!['string', 'number', 'boolean'].includes(typeof value)) return undefined;
    form.append(key, String(value));
  }
  return form.toString();
}

/** Turns a JSON body into a form body (oidc-provider reads the already-parsed `req.body` string). */
export const acceptJsonBody: RequestHandler = async (req, res, next) => {
  if (req.method !== 'POST' || !req.is('application/json')) return next();
  try {
    await runMiddleware(parseJson, req, res);
  } catch {
    return oauthError(res, 'the request body is not valid JSON');
  }
  const form = jsonToForm(req.body);
  if (form === undefined) return oauthError(res, 'the JSON body must be an object of string values');
  req.body = form;
  req.headers['content-type'] = 'application/x-www-form-urlencoded';
  next();
};

/** `POST /oauth/refresh` → a `refresh_token` grant at `/oauth/token` (grant_type may be omitted). */
export const refreshAlias: RequestHandler = async (req, res, next) => {
  if (req.body === undefined) {
    try {
      await runMiddleware(parseForm, req, res);
    } catch {
      return oauthError(res, 'the request body could not be read');
    }
  }
  const form = new URLSearchParams(
    typeof req.body === 'string' ? req.body : ((req.body ?? {}) as Record<string, string>),
  );
  if (!form.has('grant_type')) form.set('grant_type', 'refresh_token');
  if (form.get('grant_type') !== 'refresh_token')
    return oauthError(res, 'grant_type must be refresh_token at this endpoint');
  req.body = form.toString();
  req.headers['content-type'] = 'application/x-www-form-urlencoded';
  req.url = '/oauth/token';
  next();
};
