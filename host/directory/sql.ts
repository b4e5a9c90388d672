/**
 * SQL pieces for other domains' set-based statements that read people alongside their own tables (a list's
 * matching people, an application's connected people…): the one place outside this folder's reads where the
 * directory's tables are named. Each returns text to splice in; values stay `$n` parameters of the caller.
 */

/** `FROM people <alias>`: the people rows a caller filters itself (its condition names `<alias>.organization_id`). */
export function fromPeople(alias: string): string {
  return `FROM people ${alias}`;
}

/** `JOIN people <alias>` on the person id the SQL expression `personId` gives. */
export function joinPeople(alias: string, personId: string): string {
  return `JOIN people ${alias} ON ${alias}.id = ${personId}`;
}

/** `JOIN organizations <alias>` on the organization id the SQL expression `organizationId` gives. */
export function joinOrganization(alias: string, organizationId: string): string {
  return `JOIN organizations ${alias} ON ${alias}.id = ${organizationId}`;
}

/** SQL condition: the person `personId` (an SQL expression) holds `role` in `product` (SQL literals or parameters). */
export function holdsProductRole(personId: string, product: string, role: string): string {
  return `EXISTS (SELECT 1 FROM person_product_roles pr WHERE pr.person_id = ${personId} AND pr.product = ${product} AND pr.role = ${role})`;
}

/**
 * SQL condition: the person `personId` (an SQL expression) is active and has any role in `product` (an SQL
 * literal or parameter), i.e. may still see that product's data.
 */
export function activeInProduct(personId: string, product: string): string {
  return `EXISTS (SELECT 1 FROM people p JOIN person_product_roles r ON r.person_id = p.id AND r.product = ${product}
               WHERE p.id = ${personId} AND p.status = 'active')`;
}
