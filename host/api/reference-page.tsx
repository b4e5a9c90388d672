/**
 * The human-readable API reference, rendered from the OpenAPI document itself (never written by
 * hand), so it says what the description says.
 */
import type { ComponentChildren } from 'preact';
import type { OpenApiDocument } from './openapi-document.ts';
import { RELEASE_EXTENSION } from './openapi-document.ts';
import { Layout } from '../pages/render.tsx';

type Json = Record<string, unknown>;

/** A description or other string member of the document; '' when absent. */
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A facet value (pattern, bound, default): strings as they are, anything else as JSON. */
const facet = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** `**bold**` and `` `code` `` of the document's descriptions, as elements (no raw HTML). */
function Inline({ text }: { text: string }) {
  const parts: ComponentChildren[] = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let last = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    parts.push(text.slice(last, m.index));
    parts.push(m[1] !== undefined ? <strong>{m[1]}</strong> : <code>{m[2]}</code>);
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}

function Paragraphs({ text }: { text: string }) {
  return (
    <>
      {text.split(/\n\n+/).map((p) => (
        <p>
          <Inline text={p} />
        </p>
      ))}
    </>
  );
}

/** A schema in a few words: `integer`, `string (date-time)`, `one of: a, b`, a link to a component. */
function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() ?? '';
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const type = Array.isArray(schema.type)
    ? schema.type.join(' or ')
    : typeof schema.type === 'string'
      ? schema.type
      : 'any';
  if (schema.type === 'array' && schema.items) return `array of ${typeOf(schema.items as Json)}`;
  const facets = [
    schema.format,
    schema.pattern ? `pattern ${facet(schema.pattern)}` : undefined,
    schema.minimum !== undefined ? `min ${facet(schema.minimum)}` : undefined,
    schema.maximum !== undefined ? `max ${facet(schema.maximum)}` : undefined,
    schema.default !== undefined ? `default ${facet(schema.default)}` : undefined,
  ].filter(Boolean);
  return facets.length ? `${type} (${facets.join(', ')})` : type;
}

function resolve(doc: OpenApiDocument, value: Json): Json {
  if (typeof value.$ref !== 'string') return value;
  const [, kind, name] = value.$ref.replace('#/components/', '/').split('/');
  return ((doc.components[kind ?? ''] ?? {}) as Record<string, Json>)[name ?? ''] ?? {};
}

function Operation({ doc, path, method, op }: { doc: OpenApiDocument; path: string; method: string; op: Json }) {
  const parameters = ((op.parameters as Json[]) ?? []).map((p) => resolve(doc, p));
  const responses = Object.entries((op.responses as Record<string, Json>) ?? {});
  return (
    <section id={String(op.operationId)}>
      <h3>
        <span class="method">{method.toUpperCase()}</span> <code>{path}</code>
      </h3>
      <p>
        <strong>{String(op.summary)}</strong>. <Inline text={str(op.description)} />
      </p>
      <table>
        <thead>
          <tr>
            <th>Parameter</th>
            <th>In</th>
            <th>Required</th>
            <th>Schema</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {parameters.map((p) => (
            <tr>
              <td>
                <code>{String(p.name)}</code>
              </td>
              <td>{String(p.in)}</td>
              <td>{p.required ? 'yes' : 'no'}</td>
              <td>{typeOf(p.schema as Json)}</td>
              <td>
                <Inline text={str(p.description)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <table>
        <thead>
          <tr>
            <th>Status</th>
            <th>Body</th>
            <th>Meaning</th>
          </tr>
        </thead>
        <tbody>
          {responses.map(([status, raw]) => {
            const response = resolve(doc, raw);
            const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
            const schema = media?.schema as Json | undefined;
            const name = typeOf(schema);
            return (
              <tr>
                <td>{status}</td>
                <td>{name ? <a href={`#schema-${name}`}>{name}</a> : ''}</td>
                <td>
                  <Inline text={str(response.description)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function Schema({ name, schema }: { name: string; schema: Json }) {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return (
    <section id={`schema-${name}`}>
      <h3>{name}</h3>
      {schema.description ? <p>{str(schema.description)}</p> : null}
      <table>
        <thead>
          <tr>
            <th>Member</th>
            <th>Required</th>
            <th>Schema</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(properties).flatMap(([prop, sub]) => {
            const nested =
              sub.type === 'object' && sub.properties ? Object.entries(sub.properties as Record<string, Json>) : [];
            const subRequired = new Set((sub.required as string[] | undefined) ?? []);
            return [
              <tr>
                <td>
                  <code>{prop}</code>
                </td>
                <td>{required.has(prop) ? 'yes' : 'no'}</td>
                <td>{nested.length ? 'object' : typeOf(sub)}</td>
                <td>{str(sub.description)}</td>
              </tr>,
              ...nested.map(([inner, innerSchema]) => (
                <tr>
                  <td>
                    <code>{`${prop}.${inner}`}</code>
                  </td>
                  <td>{subRequired.has(inner) ? 'yes' : 'no'}</td>
                  <td>{innerSchema.type === 'object' ? 'object' : typeOf(innerSchema)}</td>
                  <td>{str(innerSchema.description)}</td>
                </tr>
              )),
            ];
          })}
        </tbody>
      </table>
    </section>
  );
}

/** The whole reference page for one OpenAPI document. */
export function ReferencePage({ document: doc }: { document: OpenApiDocument }) {
  const schemes = Object.entries((doc.components.securitySchemes ?? {}) as Record<string, Json>);
  return (
    <Layout title={`${doc.info.title} ${doc.info.version}`}>
      <div class="ak-reference">
        <h1>{doc.info.title}</h1>
        <p>
          Version <code>{doc.info.version}</code>, platform release <code>{String(doc.info[RELEASE_EXTENSION])}</code>.
          Machine-readable:{' '}
          <a href={`/api/v2/open_api/${doc.info.version}`}>{`/api/v2/open_api/${doc.info.version}`}</a>.
        </p>
        <Paragraphs text={doc.info.description} />
        <h2>Authentication</h2>
        <ul>
          {schemes.map(([name, scheme]) => {
            const flow = ((scheme.flows as Record<string, Json> | undefined) ?? {}).authorizationCode;
            return (
              <li>
                <code>{name}</code>: {str(scheme.description)}
                {flow ? (
                  <span>
                    {' '}
                    Authorize at <code>{String(flow.authorizationUrl)}</code>, token at{' '}
                    <code>{String(flow.tokenUrl)}</code>, refresh at <code>{String(flow.refreshUrl)}</code>; scopes:{' '}
                    {Object.keys(flow.scopes as Json).join(', ')}.
                  </span>
                ) : null}
              </li>
            );
          })}
        </ul>
        <h2>Endpoints</h2>
        {Object.entries(doc.paths).flatMap(([path, item]) =>
          Object.entries(item).map(([method, op]) => (
            <Operation doc={doc} path={path} method={method} op={op as unknown as Json} />
          )),
        )}
        <h2>Schemas</h2>
        {Object.entries((doc.components.schemas ?? {}) as Record<string, Json>).map(([name, schema]) => (
          <Schema name={name} schema={schema} />
        ))}
      </div>
    </Layout>
  );
}
