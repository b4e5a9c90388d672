/**
 * The guides, read and rendered once when the docs router is built: each source's section cut out of its file
 * (guide-sources.ts) and rendered (guide-markdown.ts), with links between sections resolved to the guides that hold
 * them. A guide whose file or heading is missing (a packed host ships no README of the repository) is left out.
 */
import { posix } from 'node:path';
import { GUIDE_SOURCES, guideMarkdown, repositoryRoot, type GuideSource } from './guide-sources.ts';
import { headingId, headingIds, renderGuideHtml } from './guide-markdown.ts';

export interface Guide {
  slug: string;
  title: string;
  /** The rendered section. */
  html: string;
}

/** The guides in the navigation's order; none without a repository (`root` null). */
export function loadGuides(
  sources: readonly GuideSource[] = GUIDE_SOURCES,
  root: string | null = repositoryRoot() ?? null,
): Guide[] {
  if (root === null) return [];
  const read = sources.flatMap((source) => {
    const markdown = guideMarkdown(source, root);
    return markdown === undefined ? [] : [{ source, markdown, ids: new Set(headingIds(markdown)) }];
  });
  return read.map(({ source, markdown }) => {
    const resolve = (href: string): string | undefined => {
      const hash = href.indexOf('#');
      const path = hash < 0 ? href : href.slice(0, hash);
      const anchor = hash < 0 ? '' : href.slice(hash + 1);
      if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || anchor === '') return undefined;
      const file = path === '' ? source.file : posix.normalize(posix.join(posix.dirname(source.file), path));
      const holder = read.find((r) => r.source.file === file && r.ids.has(anchor));
      if (!holder) return undefined;
      if (holder.source.slug === source.slug) return `#${anchor}`;
      const top = headingId(holder.source.heading) === anchor;
      return `/docs/guides/${holder.source.slug}${top ? '' : `#${anchor}`}`;
    };
    return { slug: source.slug, title: source.title, html: renderGuideHtml(markdown, resolve) };
  });
}
