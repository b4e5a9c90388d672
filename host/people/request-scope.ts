/** Who is asking and for which organization: every people route is scoped by these. */
import type { Request } from 'express';
import { authOf } from '../auth/authenticate.ts';
import { hasRole } from '../auth/permissions.ts';

/** The requester and their organization, as every people query is scoped. */
export interface RequestScope {
  organizationId: string;
  personId: string;
  /** People managers manage every list of the organization. */
  isManager: boolean;
}

/** The scope of an authenticated request. */
export function scopeOf(req: Request): RequestScope {
  const { person } = authOf(req);
  return {
    organizationId: person.organization_id,
    personId: person.id,
    isManager: hasRole(person, 'people', 'manager'),
  };
}

/** The Organization parent of organization-level collections. */
export function organizationParent(req: Request): { id: string; type: string } {
  return { id: scopeOf(req).organizationId, type: 'Organization' };
}
