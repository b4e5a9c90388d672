/**
 * Who in an organization may connect an OAuth application (ConnectedApplication.access_mode), and the
 * people listed for `specific_people`. The only module that issues SQL on `connected_application_settings`
 * (migration 003) and `connected_application_people_allowed` (migration 050). Every check reads the
 * person and the setting at the time of the request, so a role or mode change applies at once.
 */
import type { Queryable } from '../db/database.ts';
import { fromPeople, joinOrganization, joinPeople } from '../directory/index.ts';
import { APPLICATIONS_VIEW } from './applications.ts';
import { connectedInOrganization, connectedPeopleCount } from './mau.ts';

/** Who in an organization may connect an application; `anyone` when nothing is stored. */
export const ACCESS_MODES = ['anyone', 'admins_only', 'specific_people'] as const;

/** One of {@link ACCESS_MODES}. */
export type AccessMode = (typeof ACCESS_MODES)[number];

/** True for a value of {@link ACCESS_MODES}. */
export function isAccessMode(value: unknown): value is AccessMode {
  return typeof value === 'string' && (ACCESS_MODES as readonly string[]).includes(value);
}

/** Why a person may not connect an application: the mode of their organization that leaves them out. */
export interface AccessRefusal {
  mode: Exclude<AccessMode, 'anyone'>;
  organizationName: string;
  applicationName: string;
}

/** What {@link refusalOf} judges: the organization's mode for the application and the person's standing. */
export interface AccessRow {
  mode: AccessMode;
  site_administrator: boolean;
  listed: boolean;
  organization_name: string;
  application_name: string;
}

/**
 * The statement reading the {@link AccessRow} of the person and the application whose ids (person id,
 * client_id) the SQL expressions `person` and `client` give: no row for an unknown person or client.
 * For other modules' combined reads; the tables' SQL stays here.
 */
export function accessRowSql(person: string, client: string): string {
  // Aliases of their own: `person` and `client` may name columns of an enclosing statement (its `p.id`).
  return `SELECT COALESCE(access_s.access_mode, 'anyone') AS mode, access_p.site_administrator,
            access_o.name AS organization_name, access_a.name AS application_name,
            EXISTS (SELECT 1 FROM connected_application_people_allowed access_w
                    WHERE access_w.organization_id = access_p.organization_id AND access_w.application_id = access_a.id
                      AND access_w.person_id = access_p.id) AS listed
     ${fromPeople('access_p')}
     ${joinOrganization('access_o', 'access_p.organization_id')}
     JOIN ${APPLICATIONS_VIEW} access_a ON access_a.client_id = ${client}
     LEFT JOIN connected_application_settings access_s
       ON access_s.organization_id = access_p.organization_id AND access_s.application_id = access_a.id
     WHERE access_p.id = ${person}`;
}

/**
 * The refusal an {@link AccessRow} means, undefined when the organization's mode admits the person:
 * `admins_only` admits organization administrators (people.site_administrator), `specific_people` only
 * the people listed for the organization and application (administrators included only when listed).
 * No row (an unknown person or client) yields undefined: their existence is checked where they are loaded.
 */
export function refusalOf(row: AccessRow | undefined): AccessRefusal | undefined {
  if (!row || row.mode === 'anyone') return undefined;
  if (row.mode === 'admins_only' && row.site_administrator) return undefined;
  if (row.mode === 'specific_people' && row.listed) return undefined;
  return { mode: row.mode, organizationName: row.organization_name, applicationName: row.application_name };
}

/** The refusal for a person connecting (or using a connection to) the application with `clientId` ({@link refusalOf}). */
export async function findAccessRefusal(
  db: Queryable,
  who: { personId: string; clientId: string },
): Promise<AccessRefusal | undefined> {
  const { rows } = await db.query<AccessRow>(accessRowSql('$1', '$2'), [who.personId, who.clientId]);
  return refusalOf(rows[0]);
}

/**
 * The {@link AccessRow} of person `person` and the application whose integer id the SQL expression `applicationId`
 * gives, as one JSON value (null for an unknown person or application): for another module's combined read.
 */
export function accessRowJsonSql(person: string, applicationId: string): string {
  const client = `(SELECT v.client_id FROM ${APPLICATIONS_VIEW} v WHERE v.id = ${applicationId})`;
  return `(SELECT to_json(r) FROM (${accessRowSql(person, client)}) r)`;
}

/**
 * The OAuth `error_description` of a refusal: fixed ASCII text (RFC 6749 allows no `"` or `\` there,
 * and names of organizations and applications are free text). @see RFC 6749 §4.1.2.1
 */
export function refusalDescription(mode: AccessRefusal['mode']): string {
  return mode === 'admins_only'
    ? 'Your organization allows only its administrators to connect this application'
    : 'Your organization allows only the people its administrators chose to connect this application';
}

/** Who may connect, in words, for the person refused (pages). */
export function describeRefusal(refusal: AccessRefusal): string {
  const { organizationName: organization, applicationName: application } = refusal;
  return refusal.mode === 'admins_only'
    ? `${organization} allows only its organization administrators to connect ${application}.`
    : `${organization} allows only the people its organization administrators chose to connect ${application}, ` +
        'and you are not one of them.';
}

/** Where the person refused learns that it can change, in words (pages). */
export function whoCanChange(refusal: AccessRefusal): string {
  return (
    `An organization administrator of ${refusal.organizationName} can change who may connect it ` +
    'on the Connected applications page of the developer account.'
  );
}

/**
 * SQL for the organization's mode of an application, for other modules' queries (the table's SQL stays
 * here): `application` is the SQL of the application id, `organization` that of the organization id.
 */
export function accessModeSql(application: string, organization: string): string {
  return `COALESCE((SELECT s.access_mode FROM connected_application_settings s
    WHERE s.application_id = ${application} AND s.organization_id = ${organization}), 'anyone')`;
}

/** An application as the organization's "Connected applications" page lists it. */
export interface ApplicationAccess {
  id: string;
  name: string;
  description: string;
  /** The organization that owns the application (the organization itself, or another one). */
  owner_name: string;
  access_mode: AccessMode;
  /** People of the organization who authorized the application. */
  connected_people: number;
}

// The applications an organization decides about: those its people connected, and its own.
const ACCESS_FROM = `
  FROM ${APPLICATIONS_VIEW} a
  ${joinOrganization('owner', 'a.organization_id')}
  WHERE (a.organization_id = $1
         OR ${connectedInOrganization('a.id', '$1')})`;
const ACCESS_COLUMNS = `a.id::text, a.name, a.description, owner.name AS owner_name,
  ${accessModeSql('a.id', '$1')} AS access_mode,
  ${connectedPeopleCount('a.id', '$1')} AS connected_people`;

/** The applications people of the organization connected, and the organization's own, by name. */
export async function listApplicationAccess(db: Queryable, organizationId: string): Promise<ApplicationAccess[]> {
  return (
    await db.query<ApplicationAccess>(`SELECT ${ACCESS_COLUMNS} ${ACCESS_FROM} ORDER BY a.name, a.id`, [organizationId])
  ).rows;
}

/** One application of {@link listApplicationAccess}; undefined for any other id (another organization's, unknown). */
export async function findApplicationAccess(
  db: Queryable,
  organizationId: string,
  applicationId: string,
): Promise<ApplicationAccess | undefined> {
  const { rows } = await db.query<ApplicationAccess>(`SELECT ${ACCESS_COLUMNS} ${ACCESS_FROM} AND a.id = $2`, [
    organizationId,
    applicationId,
  ]);
  return rows[0];
}

/** Stores the organization's mode for the application. */
export async function setAccessMode(
  db: Queryable,
  setting: { organizationId: string; applicationId: string; mode: AccessMode },
): Promise<void> {
  await db.query(
    `INSERT INTO connected_application_settings (organization_id, application_id, access_mode) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, application_id) DO UPDATE SET access_mode = EXCLUDED.access_mode`,
    [setting.organizationId, setting.applicationId, setting.mode],
  );
}

/** A person listed for `specific_people`. */
export interface AllowedPerson {
  id: string;
  first_name: string;
  last_name: string;
  email: string | null;
}

/** The people listed for the organization and application, by name. */
export async function listAllowedPeople(
  db: Queryable,
  organizationId: string,
  applicationId: string,
): Promise<AllowedPerson[]> {
  const { rows } = await db.query<AllowedPerson>(
    `SELECT p.id::text, p.first_name, p.last_name, p.email
     FROM connected_application_people_allowed w ${joinPeople('p', 'w.person_id')}
     WHERE w.organization_id = $1 AND w.application_id = $2
     ORDER BY p.last_name, p.first_name, p.id`,
    [organizationId, applicationId],
  );
  return rows;
}

/** Identifies one entry of the people list. */
export interface AllowedEntry {
  organizationId: string;
  applicationId: string;
  personId: string;
}

/** Lists a person of the organization (listing again changes nothing); false when they are not of that organization. */
export async function allowPerson(db: Queryable, entry: AllowedEntry): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO connected_application_people_allowed (organization_id, application_id, person_id)
     SELECT p.organization_id, $2, p.id ${fromPeople('p')} WHERE p.id = $3 AND p.organization_id = $1
     ON CONFLICT (organization_id, application_id, person_id)
       DO UPDATE SET created_at = connected_application_people_allowed.created_at
     RETURNING person_id`,
    [entry.organizationId, entry.applicationId, entry.personId],
  );
  return rows.length === 1;
}

/** Takes a person off the list; false when they were not on it. */
export async function disallowPerson(db: Queryable, entry: AllowedEntry): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM connected_application_people_allowed WHERE organization_id = $1 AND application_id = $2 AND person_id = $3',
    [entry.organizationId, entry.applicationId, entry.personId],
  );
  return rowCount === 1;
}
