/**
 * A throw-away add-on project outside the repository, as an author has one: its own directory with `src/`,
 * and `node_modules` (a link to this repository's, where vite, preact and the SDK's dependencies are).
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of a file of the SDK (what a project imports by package name once it is packaged). */
export const sdkPath = (path: string) => fileURLToPath(new URL(`../../../addon-sdk/${path}`, import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../../../node_modules', import.meta.url));

export interface TempProject {
  dir: string;
  write(path: string, content: string): Promise<void>;
  remove(): Promise<void>;
}

/** Creates the project with `files` (path → content). */
export async function createTempProject(files: Record<string, string> = {}): Promise<TempProject> {
  const dir = await mkdtemp(join(tmpdir(), 'addon-project-'));
  await symlink(NODE_MODULES, join(dir, 'node_modules'), 'dir');
  const project: TempProject = {
    dir,
    async write(path, content) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  for (const [path, content] of Object.entries(files)) await project.write(path, content);
  return project;
}

/** An add-on source that renders one Text, importing the SDK from this repository. */
export function textAddon(text: string, extra = ''): string {
  return `import { render, Text } from ${JSON.stringify(sdkPath('worker/index.ts'))};\n${extra}\nrender(<Text>${text}</Text>);\n`;
}
