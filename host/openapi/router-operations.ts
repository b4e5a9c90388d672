/**
 * The operations an Express router serves, read from its stack: each route's method, its path as an
 * OpenAPI template (`:id` → `{id}`, nested routers' mount paths joined) and the handlers it runs. The
 * OpenAPI documents are built from the mounted routers themselves, so a route cannot go undescribed.
 */
import type { Router } from 'express';

/** One method of one route. */
export interface RouterOperation {
  method: string;
  /** OpenAPI path template relative to where the router is mounted, e.g. `/lists/{list_id}/run`. */
  path: string;
  /** Every handler the route runs for this method, in order. */
  handlers: unknown[];
}

interface StackLayer {
  rawPath?: unknown;
  route?: { path: unknown; stack: { method?: string; handle: unknown }[] };
  handle: unknown;
}

function stackOf(handle: unknown): StackLayer[] | undefined {
  const stack = (handle as { stack?: unknown } | null)?.stack;
  return Array.isArray(stack) ? (stack as StackLayer[]) : undefined;
}

function templateOf(path: unknown): string {
  if (typeof path !== 'string')
    throw new Error(`a route path that is not a string cannot be described: ${String(path)}`);
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** `prefix` (a mount path, '' at the root) followed by `path`; `/` alone only when both are empty. */
function join(prefix: string, path: string): string {
  return `${prefix}${path === '/' ? '' : path}` || '/';
}

/** Every operation of `router` (middleware without routes is skipped), in mounting order. */
export function routerOperations(router: Router, prefix = ''): RouterOperation[] {
  const out: RouterOperation[] = [];
  for (const layer of stackOf(router) ?? []) {
    if (layer.route) {
      const path = join(prefix, templateOf(layer.route.path));
      const byMethod = new Map<string, unknown[]>();
      for (const step of layer.route.stack) {
        if (!step.method) continue;
        byMethod.set(step.method, [...(byMethod.get(step.method) ?? []), step.handle]);
      }
      for (const [method, handlers] of byMethod) out.push({ method, path, handlers });
      continue;
    }
    const nested = stackOf(layer.handle);
    if (nested) {
      const mount = templateOf(layer.rawPath ?? '/');
      out.push(...routerOperations(layer.handle as Router, mount === '/' ? prefix : `${prefix}${mount}`));
    }
  }
  return out;
}
