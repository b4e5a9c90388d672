/** Building an add-on: the vite plugin for an author's own config, and `buildAddon()` for tools and the CLI. */
export { addonKit, DEFAULT_ADDON_OUT_FILE, type AddonKitOptions, type AddonBuildResult } from './addon-kit.ts';
export { buildAddon, type AddonBuildOptions, type AddonWatchOptions, type AddonWatcher } from './build-addon.ts';
export { ADDON_BUDGET_BYTES, formatSizeReport, type SizeReport } from './size-report.ts';
