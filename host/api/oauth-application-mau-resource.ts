/**
 * OauthApplicationMau: unique people issued a token for an application in one month. The id is the
 * month as `YYYYMM` (there is one record per application and month).
 */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** The resource definition; `oauth_application` is both a relationship and a fields value. */
export const oauthApplicationMauResource: ResourceDefinition = {
  type: 'OauthApplicationMau',
  description:
    'Monthly active users of an OAuth application: people issued a token in that month. The id is the month as YYYYMM.',
  attributes: {
    count: { type: 'integer', description: 'Total number of unique active users for the application.' },
    month: { type: 'integer', description: 'Month (1 to 12) the statistic was recorded for.' },
    year: { type: 'integer', description: 'Year the statistic was recorded for.' },
  },
  fields: ['count', 'month', 'year', 'oauth_application'],
  relationships: {
    oauth_application: {
      type: 'OauthApplication',
      id: (row) => row.application_id as string,
      related: (row, base) => `${base}/api/v2/oauth_applications/${String(row.application_id)}`,
    },
  },
  id: (row) => mauId(Number(row.year), Number(row.month)),
  links: (row, base) => ({
    self: `${base}/api/v2/oauth_applications/${String(row.application_id)}/mau/${mauId(Number(row.year), Number(row.month))}`,
  }),
};

/** `YYYYMM` of a month. */
export function mauId(year: number, month: number): string {
  return `${year}${String(month).padStart(2, '0')}`;
}
