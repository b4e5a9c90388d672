/** The usage lines of `addon-kit addon` (apart, so `main` can print them without loading the command). */
export const ADDON_USAGE = [
  'addon-kit addon build [--entry src/index.tsx] [--out dist/addon.js] [--budget-kb 40]',
  'addon-kit addon dev [--entry src/index.tsx] [--out dist/addon.js] [--budget-kb 40] [--config addon.config.json] [--host URL]',
  'addon-kit addon push --env development|beta|production [--config addon.config.json] [--bundle dist/addon.js] [--host URL]',
  'addon-kit addon promote <from> <to> [--config addon.config.json] [--host URL]',
  '  credentials: ADDON_KIT_PAT_CLIENT_ID and ADDON_KIT_PAT_SECRET (a personal access token of an organization administrator)',
].join('\n  ');
