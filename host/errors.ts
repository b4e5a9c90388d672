/**
 * Host errors: every failure an API route can report, each rendering one entry of the spec's
 * `{errors: [...]}` body. Routes throw these; one handler renders them.
 */
import { STATUS_CODES } from 'node:http';

/** Wire codes of the spec's error table (plus `invalid_parameter` for a malformed query value). */
export type HostErrorCode =
  | 'missing_parameter'
  | 'integer_out_of_range'
  | 'unknown_attribute'
  | 'invalid_parameter'
  | 'invalid_json'
  | 'invalid_resource_payload'
  | 'invalid_data'
  | 'delete_restriction'
  | 'attribute_resource_not_found'
  | 'invalid_enum_value'
  | 'invalid_payload'
  | 'unsupported_version'
  | 'bulkmail_not_configured'
  | 'payload_too_large'
  | 'starting'
  | 'rate_limit_exceeded';

/** One entry of an error body, exactly the members the spec allows. */
export interface ErrorObject {
  status: string;
  code?: string;
  title: string;
  detail: string;
  source?: { parameter: string };
  meta?: Record<string, unknown>;
}

const UNPROCESSED = 'Your request could not be processed';

/**
 * The root of the host's errors. `Code` is the vocabulary of its `code`: the spec's error table for the JSON
 * APIs, the protocol's ProxyErrorCode for the add-on runtime's AddonError (host/addons/addon-error.ts).
 */
export class HostError<Code extends string = HostErrorCode> extends Error {
  readonly status: number;
  readonly code: Code | undefined;
  readonly title: string;
  readonly detail: string;
  readonly parameter: string | undefined;
  readonly meta: Record<string, unknown> | undefined;
  /** Extra entries (Validation Error may carry several). */
  readonly more: ErrorObject[];

  constructor(init: {
    status: number;
    code?: Code | undefined;
    title: string;
    detail: string;
    parameter?: string | undefined;
    meta?: Record<string, unknown> | undefined;
    more?: ErrorObject[];
  }) {
    super(init.detail);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.parameter = init.parameter;
    this.meta = init.meta;
    this.more = init.more ?? [];
  }

  /** The `errors` array of the response body. */
  toErrors(): ErrorObject[] {
    const entry: ErrorObject = { status: String(this.status), title: this.title, detail: this.detail };
    if (this.code) entry.code = this.code;
    if (this.parameter !== undefined) entry.source = { parameter: this.parameter };
    if (this.meta) entry.meta = this.meta;
    return [entry, ...this.more];
  }
}

/** 400 integer_out_of_range: a numeric parameter outside its range or not an integer. */
export class IntegerOutOfRangeError extends HostError {
  constructor(parameter: string) {
    super({ status: 400, code: 'integer_out_of_range', title: 'Bad Request', detail: UNPROCESSED, parameter });
  }
}

/** 400 "Invalid Version": the spec's row for an unknown attribute (fields, where, order, include, body). */
export class UnknownAttributeError extends HostError {
  constructor(parameter: string, detail: string) {
    super({ status: 400, code: 'unknown_attribute', title: 'Invalid Version', detail, parameter });
  }
}

/** 400 invalid_parameter: a known query parameter with a value of the wrong type. */
export class InvalidParameterError extends HostError {
  constructor(parameter: string, detail: string) {
    super({ status: 400, code: 'invalid_parameter', title: 'Bad Request', detail, parameter });
  }
}

/** 400 invalid_parameter: the URL's path or query string is not correctly percent-encoded. @see RFC 3986 §2.1 */
export class MalformedUrlError extends HostError {
  constructor() {
    super({
      status: 400,
      code: 'invalid_parameter',
      title: 'Bad Request',
      detail: 'The request URL is not correctly percent-encoded',
    });
  }
}

/** 400 invalid_parameter: a text value holds a NUL character, which no stored text may hold. */
export class NulCharacterError extends HostError {
  constructor() {
    super({
      status: 400,
      code: 'invalid_parameter',
      title: 'Bad Request',
      detail: 'Text values may not contain NUL characters',
    });
  }
}

/** 400 (or the status the HTTP layer chose): the request could not be read (broken body, client gone). */
export class UnreadableRequestError extends HostError {
  constructor(status = 400, detail = 'The request could not be read') {
    super({ status, title: STATUS_CODES[status] ?? 'Bad Request', detail });
  }
}

/** 400 invalid_json: the body is not JSON. */
export class InvalidJsonError extends HostError {
  constructor() {
    super({ status: 400, code: 'invalid_json', title: 'Bad Request', detail: UNPROCESSED });
  }
}

/** 400 invalid_resource_payload: JSON, but not `{data: {type, attributes}}` of the right type. */
export class InvalidResourcePayloadError extends HostError {
  constructor(detail: string) {
    super({ status: 400, code: 'invalid_resource_payload', title: 'Bad Request', detail });
  }
}

/** 401: no credentials, wrong credentials, or an expired/revoked token. */
export class UnauthorizedError extends HostError {
  /**
   * The `WWW-Authenticate` challenge sent with the 401.
   * @see RFC 6750 §3 (Bearer, `error="invalid_token"` for a bad token) and RFC 7617 §2 (Basic)
   */
  readonly challenge: string;

  constructor(
    detail = 'The authenticated user has no record in this application or the credentials are not valid',
    attempted: 'bearer' | 'basic' | 'none' = 'none',
  ) {
    super({ status: 401, title: 'Unauthorized', detail });
    this.challenge =
      attempted === 'bearer'
        ? `Bearer realm="${REALM}", error="invalid_token"`
        : attempted === 'basic'
          ? `Basic realm="${REALM}"`
          : `Bearer realm="${REALM}", Basic realm="${REALM}"`;
  }
}

const REALM = 'addon-kit';

/** 403 with `meta.description` saying why (missing scope, role, User-Agent). */
export class ForbiddenError extends HostError {
  constructor(description: string) {
    super({
      status: 403,
      title: 'Forbidden',
      detail: 'You do not have access to this resource',
      meta: { description },
    });
  }
}

/** 404: unknown, or belonging to another organization (never told apart). */
export class NotFoundError extends HostError {
  constructor() {
    super({ status: 404, title: 'Not Found', detail: 'The resource you requested could not be found' });
  }
}

/** 422 attribute_resource_not_found: an id attribute naming nothing this organization has. */
export class AttributeResourceNotFoundError extends HostError {
  constructor(parameter: string) {
    super({
      status: 422,
      code: 'attribute_resource_not_found',
      title: 'Attribute Resource Not Found',
      detail: `${parameter} does not name a record of this organization`,
      parameter,
    });
  }
}

/** 422 invalid_enum_value. */
export class InvalidEnumValueError extends HostError {
  constructor(parameter: string, allowed: readonly string[]) {
    super({
      status: 422,
      code: 'invalid_enum_value',
      title: 'Invalid Enum Value',
      detail: `${parameter} must be one of: ${allowed.join(', ')}`,
      parameter,
    });
  }
}

/** 422 invalid_payload: a value that cannot be read (e.g. an unparsable date). */
export class InvalidPayloadError extends HostError {
  constructor(detail: string, parameter?: string) {
    super({ status: 422, code: 'invalid_payload', title: 'Invalid Payload', detail, parameter });
  }
}

/** 422 Forbidden Attribute: a known attribute that may not be assigned (by this requester, when `detail` says why). */
export class ForbiddenAttributeError extends HostError {
  constructor(attribute: string, detail = `${attribute} cannot be assigned`) {
    super({ status: 422, title: 'Forbidden Attribute', detail, parameter: attribute });
  }
}

/** One failed validation: the attribute and the message. */
export interface ValidationProblem {
  parameter: string;
  detail: string;
}

/** 422 Validation Error: one entry per problem, each with `meta.resource`. */
export class ValidationError extends HostError {
  constructor(resource: string, problems: [ValidationProblem, ...ValidationProblem[]]) {
    const entry = (p: ValidationProblem): ErrorObject => ({
      status: '422',
      title: 'Validation Error',
      detail: p.detail,
      source: { parameter: p.parameter },
      meta: { resource, associated_resources: [] },
    });
    const [first, ...rest] = problems;
    super({
      status: 422,
      title: 'Validation Error',
      detail: first.detail,
      parameter: first.parameter,
      meta: { resource, associated_resources: [] },
      more: rest.map(entry),
    });
  }
}

/** 503 starting: the listener is open but the service is not attached yet (answered with `Retry-After`). */
export class ServiceStartingError extends HostError {
  constructor() {
    super({
      status: 503,
      code: 'starting',
      title: 'Service Unavailable',
      detail: 'The service is starting; retry in a moment',
    });
  }
}

/** 429 Too Many Requests, sent with `Retry-After` (rate limit, credential throttling). @see RFC 6585 §4 */
export class TooManyRequestsError extends HostError {
  constructor(
    readonly retryAfterSeconds: number,
    detail: string,
  ) {
    super({ status: 429, code: 'rate_limit_exceeded', title: 'Too Many Requests', detail });
  }
}

/** 500: what a client sees of an unexpected failure — nothing internal. */
export class InternalServerError extends HostError {
  constructor() {
    super({
      status: 500,
      title: 'Internal Server Error',
      detail: 'An internal error occurred. Please contact support if the problem persists.',
    });
  }
}
