/**
 * Checks responses against the served OpenAPI document with ajv (JSON Schema 2020-12): the path and
 * status must be documented, the body must match the documented schema and documented headers must
 * be present. Every developer-API test goes through `documentedApi`, so the document cannot drift.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import type { TestHost } from './host.ts';

type Json = Record<string, unknown>;

const SCHEMAS_ID = 'urn:addon-kit:openapi';

/** Rewrites `#/components/schemas/X` into references to the registered schema set. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
          ? `${SCHEMAS_ID}#/$defs/${v.slice('#/components/schemas/'.length)}`
          : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

/** A compiled OpenAPI document. */
export interface OpenApiValidator {
  document: Json;
  /** Throws, saying why, unless the response is documented and matches. */
  /** Whether `method` on the path of `url` is an operation of the document. */
  documents(method: string, url: string): boolean;
  check(input: {
    method: string;
    url: string;
    status: number;
    body: unknown;
    headers: Record<string, string | undefined>;
  }): void;
}

/** A validator for an OpenAPI 3.1 document (schemas compiled once, in strict mode). */
export function createOpenApiValidator(document: Json): OpenApiValidator {
  const ajv = new Ajv2020.default({ strict: true, strictTypes: false, allErrors: true });
  addFormats.default(ajv);
  const components = document.components as Record<string, Record<string, Json>>;
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: rewriteRefs(components.schemas) as Json });
  const compiled = new Map<unknown, ValidateFunction>();
  const compile = (schema: Json) => {
    let fn = compiled.get(schema);
    if (!fn) compiled.set(schema, (fn = ajv.compile(rewriteRefs(schema) as Json)));
    return fn;
  };
  const resolve = (value: Json, kind: string): Json => {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    const name = ref.slice(`#/components/${kind}/`.length);
    const found = components[kind]?.[name];
    if (!found) throw new Error(`unresolvable ${ref}`);
    return found;
  };
  const paths = document.paths as Record<string, Record<string, Json>>;
  const templates = Object.keys(paths).map((template) => ({
    template,
    literal: !template.includes('{'),
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  templates.sort((a, b) => Number(b.literal) - Number(a.literal));

  const operationOf = (method: string, url: string) => {
    const path = new URL(url, 'http://x').pathname.replace(/(.)\/$/, '$1');
    const match = templates.find((t) => t.pattern.test(path));
    return match ? paths[match.template]?.[method.toLowerCase()] : undefined;
  };
  return {
    document,
    documents: (method, url) => operationOf(method, url) !== undefined,
    check({ method, url, status, body, headers }) {
      const path = new URL(url, 'http://x').pathname.replace(/(.)\/$/, '$1');
      const match = templates.find((t) => t.pattern.test(path));
      if (!match) throw new Error(`${method} ${path} is not documented`);
      const operation = paths[match.template]?.[method.toLowerCase()];
      if (!operation) throw new Error(`${method} ${match.template} is not documented`);
      const responses = operation.responses as Record<string, Json>;
      const raw = responses[String(status)] ?? responses.default;
      if (!raw) throw new Error(`${method} ${match.template} does not document status ${status}`);
      const response = resolve(raw, 'responses');
      const content = response.content as Record<string, Json> | undefined;
      const media = content?.['application/json'];
      if (content && !media)
        throw new Error(`${method} ${match.template} ${status} documents no application/json body`);
      if (media && !/^application\/json\b/.test(headers['content-type'] ?? ''))
        throw new Error(`${method} ${path} ${status}: content-type ${headers['content-type']}`);
      // A response documented without content (204, 304, a redirect) has no JSON body to check.
      const validate = media ? compile(media.schema as Json) : undefined;
      if (validate && !validate(body)) {
        throw new Error(
          `${method} ${path} ${status} does not match its documented schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}`,
        );
      }
      for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
        const header = resolve(rawHeader, 'headers');
        const value = headers[name.toLowerCase()];
        // OpenAPI headers are optional unless `required`; an integer header arrives as its decimal text.
        if (value === undefined && header.required !== true) continue;
        const typed = (header.schema as Json).type === 'integer' && /^\d+$/.test(value ?? '') ? Number(value) : value;
        const validateHeader = compile(header.schema as Json);
        if (value === undefined || !validateHeader(typed))
          throw new Error(`${method} ${path} ${status}: header ${name} is ${JSON.stringify(value)}`);
      }
    },
  };
}

/** The document the host serves for the version under test. */
export async function servedOpenApiDocument(t: TestHost, version = '2025-09-30'): Promise<Json> {
  const res = await t.api().get(`/api/v2/open_api/${version}`);
  if (res.status !== 200) throw new Error(`open_api ${version}: ${res.status}`);
  return res.body as Json;
}

/** A test client whose responses are always checked. */
export interface DocumentedApi {
  validator: OpenApiValidator;
  /**
   * GET with the test User-Agent (and the given headers); the response is checked before it is
   * returned. An absolute URL of the host's base URL (a `links.next`) is requested as it is.
   */
  get(url: string, headers?: Record<string, string>): Promise<Response>;
}

/** A client of the developer API whose every response is checked against the served document. */
export async function documentedApi(t: TestHost): Promise<DocumentedApi> {
  const validator = createOpenApiValidator(await servedOpenApiDocument(t));
  return {
    validator,
    async get(url, headers = {}) {
      const base = t.host.config.baseUrl;
      if (/^https?:/.test(url) && !url.startsWith(`${base}/`))
        throw new Error(`${url} is not a URL of the host under test`);
      const res = await t
        .api()
        .get(url.startsWith(`${base}/`) ? url.slice(base.length) : url)
        .set(headers);
      validator.check({ method: 'GET', url, status: res.status, body: res.body, headers: res.headers });
      return res;
    },
  };
}
