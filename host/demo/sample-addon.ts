/**
 * The sample add-on as `start` sets it up: an OAuth application of Demo Church whose redirect URI is the
 * template integrator's completion URL, and a development version registered from the repository's
 * `addon.config.json` and the freshly built sample bundle — in-process, through the registry's own
 * function. A restart finds the application and reuses the live version unless the bundle or settings changed.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { COMPLETION_PATH, DEVELOPMENT_DEFAULTS } from '@addon-kit/integrator-template';
import {
  findLiveVersion,
  parseAddonConfigText,
  registerAddonVersion,
  withIntegratorAt,
  type AddonConfig,
} from '../addons/index.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import { DEMO_ORGANIZATION } from './seed/demo.ts';
import { firstAdministratorOf } from '../directory/index.ts';
import { createOAuthApplication, findOrganizationApplicationByName, setRedirectUris } from '../oauth/applications.ts';

/** Name of the sample add-on's OAuth application (how a restart finds it). */
export const SAMPLE_ADDON_NAME = 'Send Message (sample add-on)';
/** The insertion point the sample add-on fills. */
export const SAMPLE_EXTENSION = 'people.list.send_message';
/**
 * The sample add-on's config: the repository's `addon.config.json`, which the host package's build copies
 * beside the built demo (`dist/demo/addon.config.json`), so one file is the source of both.
 */
export const SAMPLE_ADDON_CONFIG = fileURLToPath(
  new URL(import.meta.url.endsWith('.ts') ? '../../addon.config.json' : './addon.config.json', import.meta.url),
);

/** What `ensureSampleAddon` needs. */
export interface SampleAddonOptions {
  /** The template integrator's public base URL; the config's integrator URLs are moved onto it. */
  integratorUrl: string;
  /** The built sample add-on (classic script). */
  bundle: string;
  /** Placeholder variables (default process.env); INTEGRATOR_CLIENT_ID/SECRET default to the template's development values. */
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** The sample add-on as registered. */
export interface SampleAddon {
  oauthApplicationId: string;
  versionId: string;
  /** `created`: first start; `updated`: a new version (bundle or settings changed); `reused`: nothing to do. */
  outcome: 'created' | 'updated' | 'reused';
}

/** Finds or creates the sample add-on and makes its live development version match this start. */
export async function ensureSampleAddon(
  db: Database,
  box: SecretBox,
  options: SampleAddonOptions,
): Promise<SampleAddon> {
  const log = options.log ?? (() => {});
  const completeUrl = `${options.integratorUrl.replace(/\/+$/, '')}${COMPLETION_PATH}`;
  const owner = await firstAdministratorOf(db, DEMO_ORGANIZATION.slug);
  if (!owner) throw new Error('the demo organization is missing: seed the demo data first');

  const existing = await findOrganizationApplicationByName(db, owner.organization_id, SAMPLE_ADDON_NAME);
  let applicationId = existing?.id;
  const created = !applicationId;
  if (!applicationId) {
    applicationId = (
      await createOAuthApplication(db, box, {
        organizationId: owner.organization_id,
        name: SAMPLE_ADDON_NAME,
        description:
          'The sample add-on of addon-kit: sends a message to the people of a List through the template integrator.',
        redirectUris: [completeUrl],
        addOnScopes: 'people',
        createdById: owner.person_id,
      })
    ).id;
    log(`addon-kit: created the OAuth application "${SAMPLE_ADDON_NAME}" (id ${applicationId})`);
  } else if (existing!.redirect_uris.length !== 1 || existing!.redirect_uris[0] !== completeUrl) {
    // Step 1 redirects to the integrator's completion URL, which moves when the integrator's port does.
    await setRedirectUris(db, applicationId, [completeUrl]);
  }

  const config = await sampleConfig(applicationId, options.integratorUrl, options.env ?? process.env);
  const live = await findLiveVersion(db, box, applicationId, 'development');
  if (live && live.matches(config, options.bundle))
    return { oauthApplicationId: applicationId, versionId: live.row.id, outcome: 'reused' };
  const row = await registerAddonVersion(db, box, {
    application: { id: applicationId, organization_id: owner.organization_id },
    environment: 'development',
    config,
    bundle: options.bundle,
    personId: owner.person_id,
  });
  log(`addon-kit: registered the sample add-on's development version ${row.version}`);
  return { oauthApplicationId: applicationId, versionId: row.id, outcome: created ? 'created' : 'updated' };
}

/** `addon.config.json`'s development environment with its placeholders filled and its integrator URLs on `integratorUrl`. */
export async function sampleConfig(
  applicationId: string,
  integratorUrl: string,
  env: NodeJS.ProcessEnv,
): Promise<AddonConfig> {
  const nonEmpty = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const config = parseAddonConfigText(await readFile(SAMPLE_ADDON_CONFIG, 'utf8'), {
    env: {
      INTEGRATOR_CLIENT_ID: DEVELOPMENT_DEFAULTS.clientId,
      INTEGRATOR_CLIENT_SECRET: DEVELOPMENT_DEFAULTS.clientSecret,
      ...nonEmpty,
      ADDON_OAUTH_APPLICATION_ID: applicationId,
    },
    only: 'development',
  });
  return withIntegratorAt(config, 'development', integratorUrl);
}
