/**
 * The repository's Markdown reads on its own: every relative link of every tracked `.md` file names a file or folder
 * of the repository that exists (a clone has nothing beside it), and no text sends the reader to the specification
 * folder that sits beside the checkout on the team's machines (`../shared/…`), which a clone does not have.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { stdout } = await promisify(execFile)('git', ['ls-files', '-co', '--exclude-standard', '*.md'], { cwd: ROOT });
const files = stdout.split('\n').filter((f) => f && existsSync(join(ROOT, f)));

/** The targets of inline links and images, `[text](target "title")`, outside fenced code blocks. */
function relativeTargets(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^(?:[a-z][a-z0-9+.-]*:|#|\/\/)/i.test(t));
}

describe('Markdown files of the repository', () => {
  it('are found (the README and the folders’ READMEs at least)', () => {
    expect(files).toContain('README.md');
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files)('%s links only to files of the repository that exist', async (file) => {
    const text = await readFile(join(ROOT, file), 'utf8');
    const broken = relativeTargets(text)
      .map((target) => ({ target, path: resolve(ROOT, dirname(file), decodeURI(target.split('#')[0]!)) }))
      .filter(({ path }) => relative(ROOT, path).startsWith('..') || !existsSync(path))
      .map(({ target }) => target);
    expect(broken).toEqual([]);
    expect(text).not.toMatch(/\.\.\/shared\//);
  });
});
