/**
 * Rules of the OpenAPI 3.1 specification that a JSON Schema compile does not check: references
 * resolve, path templates and path parameters match, operation ids are unique, security
 * requirements name declared schemes and scopes.
 * @see https://spec.openapis.org/oas/v3.1.0#paths-object
 */

type Json = Record<string, any>;

function walk(value: unknown, visit: (node: Json, pointer: string) => void, pointer = '#'): void {
  if (Array.isArray(value)) value.forEach((v, i) => walk(v, visit, `${pointer}/${i}`));
  else if (value && typeof value === 'object') {
    visit(value, pointer);
    for (const [k, v] of Object.entries(value))
      walk(v, visit, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

function resolvePointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Json)[key] : undefined), doc);
}

/** Every rule the document breaks, as readable lines (empty when it follows them all). */
export function openApiRuleViolations(doc: Json): string[] {
  const problems: string[] = [];
  if (!/^3\.1\.\d+$/.test(String(doc.openapi))) problems.push(`openapi is ${doc.openapi}, not 3.1.x`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string')
    problems.push('info needs title and version strings');

  walk(doc, (node, pointer) => {
    if (typeof node.$ref === 'string' && resolvePointer(doc, node.$ref) === undefined)
      problems.push(`${pointer}: $ref ${node.$ref} does not resolve`);
  });

  const schemes = (doc.components?.securitySchemes ?? {}) as Record<string, Json>;
  const checkSecurity = (requirements: unknown, where: string) => {
    for (const requirement of (requirements as Json[] | undefined) ?? []) {
      for (const [name, scopes] of Object.entries(requirement)) {
        const scheme = schemes[name];
        if (!scheme) {
          problems.push(`${where}: security names undeclared scheme ${name}`);
          continue;
        }
        const declared = new Set(
          Object.values((scheme.flows ?? {}) as Record<string, Json>).flatMap((f) => Object.keys(f.scopes ?? {})),
        );
        for (const scope of scopes as string[])
          if (scheme.type === 'oauth2' && !declared.has(scope))
            problems.push(`${where}: scope ${scope} is not declared by ${name}`);
      }
    }
  };
  checkSecurity(doc.security, '#/security');

  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    if (!path.startsWith('/')) problems.push(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (operationIds.has(operation.operationId))
        problems.push(`${where}: duplicate operationId ${operation.operationId}`);
      operationIds.add(operation.operationId);
      const parameters = ((operation.parameters ?? []) as Json[]).map((p) =>
        typeof p.$ref === 'string' ? (resolvePointer(doc, p.$ref) as Json) : p,
      );
      const seen = new Set<string>();
      for (const p of parameters) {
        const key = `${p.in}:${p.name}`;
        if (seen.has(key)) problems.push(`${where}: parameter ${key} appears twice`);
        seen.add(key);
        if (p.in === 'path' && (!p.required || !templated.includes(p.name)))
          problems.push(`${where}: path parameter ${p.name} must be required and in the template`);
        if (!p.schema) problems.push(`${where}: parameter ${key} has no schema`);
      }
      for (const name of templated)
        if (!parameters.some((p) => p.in === 'path' && p.name === name))
          problems.push(`${where}: {${name}} has no path parameter`);
      if (!operation.responses || Object.keys(operation.responses).length === 0)
        problems.push(`${where}: no responses`);
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        if (!/^([1-5][0-9X]{2}|default)$/.test(status)) problems.push(`${where}: response key ${status}`);
        const resolved =
          typeof response.$ref === 'string' ? (resolvePointer(doc, response.$ref) as Json | undefined) : response;
        if (typeof resolved?.description !== 'string')
          problems.push(`${where} ${status}: response needs a description`);
      }
      checkSecurity(operation.security, where);
    }
  }
  return problems;
}
