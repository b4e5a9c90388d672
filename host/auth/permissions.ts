/** Product roles, read at request time: viewer < editor < manager. */
import type { RequestHandler } from 'express';
import { ForbiddenError } from '../errors.ts';
import { authOf } from './authenticate.ts';
import type { PersonRecord, ProductRole } from './person.ts';

const RANK: Record<ProductRole, number> = { viewer: 1, editor: 2, manager: 3 };

/** Whether the person has at least `role` in `product`. */
export function hasRole(person: PersonRecord, product: string, role: ProductRole): boolean {
  const current = person.roles[product];
  return current !== undefined && RANK[current] >= RANK[role];
}

/** Refuses (403) a person without at least `role` in `product`. */
export function requireRole(product: string, role: ProductRole): RequestHandler {
  return (req, _res, next) => {
    if (!hasRole(authOf(req).person, product, role)) {
      throw new ForbiddenError(`This request needs the ${product} ${role} role or higher`);
    }
    next();
  };
}

/** Organization administrators: site administrators of their organization. */
export function isOrganizationAdministrator(person: PersonRecord): boolean {
  return person.site_administrator;
}
