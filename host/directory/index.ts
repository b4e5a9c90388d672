/**
 * The directory: organizations, their people and each person's product roles. Every statement on
 * `organizations`, `people` and `person_product_roles` is in this folder; other domains call its functions,
 * or splice its SQL pieces (`sql.ts`) into their own set-based statements.
 */
export type { PersonRecord, ProductRole } from './person-record.ts';
export { loadPerson, loadPersonByEmail, personSql } from './person-record.ts';
export { passwordHashOf, setPasswordHash } from './passwords.ts';
export { firstAdministratorOf, organizationIdBySlug } from './organizations.ts';
export { peopleOfOrganization, personIdRange } from './people-rows.ts';
export { activeInProduct, fromPeople, holdsProductRole, joinOrganization, joinPeople } from './sql.ts';
export {
  addLoginPerson,
  addPeople,
  ensureOrganization,
  firstAdministratorIdOf,
  personIdsOf,
  type LoginPerson,
  type PeopleColumns,
} from './bulk-writes.ts';
