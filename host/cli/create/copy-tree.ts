/** Copies a folder's files into a scaffold, skipping what is built or installed there. */
import { cp } from 'node:fs/promises';
import { basename } from 'node:path';

/** Folders and files never copied into a new project. */
const SKIPPED = new Set(['node_modules', 'dist', 'package.json', 'tsconfig.build.json', '.addon-kit']);

/** Copies `from` into `to` (created when missing), leaving out build output, installs and the package manifest. */
export async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true, filter: (source) => source === from || !SKIPPED.has(basename(source)) });
}
