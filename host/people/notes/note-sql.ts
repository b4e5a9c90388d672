/** SQL pieces for other people-product statements that read notes beside their own rows (a List rule on notes). */

/**
 * SQL condition: the person `personId` (an SQL expression) has a note in the category named `categoryName` (an SQL
 * expression, compared case-insensitively) of the organization `organizationId` (an SQL expression).
 */
export function hasNoteInCategory(personId: string, organizationId: string, categoryName: string): string {
  return `EXISTS (SELECT 1 FROM notes rn JOIN note_categories rc ON rc.id = rn.note_category_id
        WHERE rn.person_id = ${personId} AND rc.organization_id = ${organizationId} AND lower(rc.name) = lower(${categoryName}))`;
}
