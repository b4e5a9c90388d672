import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { routeTemplate } from '#host/metrics/index.ts';

const req = (originalUrl: string, routePath?: string) =>
  ({ originalUrl, route: routePath === undefined ? undefined : { path: routePath } }) as unknown as Request;

describe('routeTemplate()', () => {
  it.each([
    ['/people/v2/lists/17?per_page=5', '/lists/:id', 200, '/people/v2/lists/:id'],
    ['/people/v2/lists/17/run', '/lists/:id/run', 500, '/people/v2/lists/:id/run'],
    ['/addons/installations/42/fetch/integrator', '/fetch/:side', 200, '/addons/installations/:id/fetch/:side'],
    ['/people/v2/lists', '/', 200, '/people/v2/lists'],
    ['/oauth/interaction/Xk2pQ9aLmN0bVc7dRt5sW', undefined, 200, '/oauth/interaction/:id'],
    ['/assets/host-3f9a1c2b.css', undefined, 200, '/assets/:id'],
    ['/oauth/token', undefined, 400, '/oauth/token'],
    ['/wp-admin/install.php', undefined, 404, 'unmatched'],
  ])('%s (route %s, %i) → %s', (url, route, status, template) => {
    expect(routeTemplate(req(url, route), status)).toBe(template);
  });
});
