/**
 * The person a request runs as, loaded fresh on every request so role changes apply at once. The reads are the
 * directory's (host/directory owns people, organizations and roles); auth adds the display name.
 */
export type { PersonRecord, ProductRole } from '../directory/index.ts';
export { loadPerson, loadPersonByEmail, personSql } from '../directory/index.ts';

/** Full display name. */
export function displayName(person: { first_name: string; last_name: string }): string {
  return `${person.first_name} ${person.last_name}`.trim();
}
