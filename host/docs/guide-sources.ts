/**
 * Which text each guide at `/docs/guides/{slug}` is: one section (its heading and everything under it, down to the
 * next heading of its level or above) of a Markdown file of this repository — the README, or docs/*.md where the
 * topic lives there. The guides are cut out of those files, never copied, so they cannot drift from them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface GuideSource {
  slug: string;
  /** The guide's title in the navigation and the page's `<title>`. */
  title: string;
  /** The file, relative to the repository's root. */
  file: string;
  /** The section's heading text, exactly as in the file (without the `#`s). */
  heading: string;
}

/** The guides, in the navigation's order. */
export const GUIDE_SOURCES: readonly GuideSource[] = [
  {
    slug: 'getting-started',
    title: 'Getting started with a personal access token',
    file: 'README.md',
    heading: 'Try the API with a personal access token',
  },
  {
    slug: 'oauth',
    title: 'OAuth with PKCE and OpenID Connect',
    file: 'docs/oauth.md',
    heading: 'OAuth with PKCE and OpenID Connect',
  },
  { slug: 'build-an-addon', title: 'Build an add-on', file: 'README.md', heading: 'Build your own add-on' },
  {
    slug: 'build-an-integrator',
    title: 'Build an integrator',
    file: 'README.md',
    heading: 'Build your own integrator',
  },
  { slug: 'limits-and-errors', title: 'Limits and errors', file: 'README.md', heading: 'Limits and errors' },
];

/**
 * Where the guides' Markdown is read: the repository's root, seen from this folder (host/docs, or host/dist/docs once
 * built), or, in a host installed from its package, the copy of the README and docs/*.md its build puts in
 * dist/guides (host/package.json's build). Undefined when neither is there.
 */
export function repositoryRoot(): string | undefined {
  const candidates = ['../../', '../../../'].map((up) => fileURLToPath(new URL(up, import.meta.url)));
  const inRepository = candidates.find(
    (root) => existsSync(`${root}host/package.json`) && existsSync(`${root}README.md`),
  );
  if (inRepository) return inRepository;
  const packaged = fileURLToPath(new URL('../guides/', import.meta.url));
  return existsSync(`${packaged}README.md`) ? packaged : undefined;
}

/** A Markdown heading line: its level and text (fenced code is skipped by the caller). */
function headingOf(line: string): { level: number; text: string } | undefined {
  const match = /^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/.exec(line);
  return match ? { level: match[1]!.length, text: match[2]!.trim() } : undefined;
}

/**
 * The section of `markdown` under the heading `heading`: the heading line and the lines after it up to the next
 * heading of the same or a higher level (lines inside fenced code blocks are never headings). Undefined when the
 * file has no such heading.
 */
export function sectionOf(markdown: string, heading: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  let fence: string | undefined;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opening && opening[1]!.startsWith(fence)) fence = undefined;
      continue;
    }
    if (opening) {
      fence = opening[1]!;
      continue;
    }
    const h = headingOf(line);
    if (!h) continue;
    if (start < 0) {
      if (h.text === heading) {
        start = i;
        level = h.level;
      }
    } else if (h.level <= level) {
      return lines.slice(start, i).join('\n').trimEnd() + '\n';
    }
  }
  return start < 0 ? undefined : lines.slice(start).join('\n').trimEnd() + '\n';
}

/** The Markdown of a guide, read from its file; undefined when the file or the heading is missing (a packed host). */
export function guideMarkdown(source: GuideSource, root: string): string | undefined {
  const path = `${root}${source.file}`;
  if (!existsSync(path)) return undefined;
  return sectionOf(readFileSync(path, 'utf8'), source.heading);
}
