/**
 * What an add-on project remembers of the hosts it was pushed to: `.addon-kit.json` beside its
 * `addon.config.json` (git-ignored by the scaffold), holding per host the id of the add-on's OAuth application that
 * `addon dev` created there — so later pushes, `dev` and `doctor` need no variable. A file, not a `.addon-kit/`
 * folder, so it is never mistaken for a host's data directory.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** The file's name. */
export const PROJECT_FILE = '.addon-kit.json';

interface ProjectFile {
  hosts?: Record<string, { oauth_application_id?: number }>;
}

/** The project file of the config at `configPath`. */
export function projectFile(configPath: string): string {
  return join(dirname(configPath), PROJECT_FILE);
}

async function read(configPath: string): Promise<ProjectFile> {
  const text = await readFile(projectFile(configPath), 'utf8').catch(() => '{}');
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** The remembered application id of the add-on on `host`, if any. */
export async function rememberedApplicationId(configPath: string, host: string): Promise<string | undefined> {
  const id = (await read(configPath)).hosts?.[host]?.oauth_application_id;
  return Number.isInteger(id) && id! > 0 ? String(id) : undefined;
}

/** Remembers the add-on's application id on `host` (other hosts' are kept). */
export async function rememberApplicationId(configPath: string, host: string, id: string): Promise<void> {
  const file = await read(configPath);
  const hosts = { ...file.hosts, [host]: { ...file.hosts?.[host], oauth_application_id: Number(id) } };
  await writeFile(projectFile(configPath), `${JSON.stringify({ ...file, hosts }, null, 2)}\n`);
}
