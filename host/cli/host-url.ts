/** The host a command talks to: `--host`, else ADDON_KIT_BASE_URL, else the default `start` listens on. */
export function hostUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return (flag ?? (env.ADDON_KIT_BASE_URL || 'http://localhost:4000')).replace(/\/+$/, '');
}
