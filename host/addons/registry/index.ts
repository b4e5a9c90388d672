/**
 * The registry: add-ons, their versions (pushed and promoted through `/addons/v1`) and their installations (an
 * environment as one organization sees it), with the routes the host page reads them through. The one owner of
 * the tables `addons`, `addon_versions` and `addon_installations`.
 */
export { administeredApplication, registryRouter, type AddonPages, type RegistryDeps } from './registry.ts';
export { registerAddonVersion, type NewAddonVersion, type VersionRow } from './versions.ts';
export { registryApplicationsRouter } from './registry-applications.ts';
export { requireRegistryCredentials } from './registry-credentials.ts';
export { bundleDigest, findLiveVersion, type LiveVersion, type LiveVersionRow } from './live-version.ts';
export {
  bundleByHash,
  findInstallation,
  installationBundle,
  installationApplicationIdSql,
  installationJsonSql,
  installationLabelSql,
  installationNotFound,
  installationOfJson,
  integratorClientSecret,
  isInstallationId,
  listInstallations,
  loadInstallation,
  type Installation,
  type InstallationJson,
  type IntegratorApiSettings,
  type IntegratorOAuthSettings,
  type UiExtension,
} from './installations.ts';
export {
  installationBundleRoute,
  installationOf,
  installationStateRoute,
  listInstallationsRoute,
  type InstallationRouteDeps,
} from './installation-routes.ts';
