/**
 * Renders a guide's Markdown to HTML with markdown-it: raw HTML in the Markdown is shown as text, never passed
 * through (`html: false`), and markdown-it refuses `javascript:`, `vbscript:`, `file:` and `data:` links. On top of
 * that: headings get GitHub's ids (so the README's own `#anchors` work) and start at `<h1>`; a link to a section
 * that is (in) a guide goes to that guide; a link to a file of the repository, which the host does not serve,
 * keeps its words but loses its target; images show their alternative text (the page loads no foreign image);
 * code blocks and tables scroll sideways on their own, reachable by keyboard, instead of widening the page.
 */
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

/** Marks a link whose target is dropped (its words stay). */
const isDropped = (token: Token | undefined): boolean =>
  (token?.meta as { dropped?: boolean } | null)?.dropped === true;

/** Where a link of a guide leads: a URL, or nothing (the words stay, the link goes). */
export type LinkResolver = (href: string) => string | undefined;

/** GitHub's heading id: lower case, punctuation dropped, spaces to hyphens. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The plain text of a heading's inline token (its words and inline code). */
function inlineText(token: Token | undefined): string {
  return (token?.children ?? [])
    .filter((c) => c.type === 'text' || c.type === 'code_inline')
    .map((c) => c.content)
    .join('');
}

/** The ids of a Markdown text's headings, in order, made unique as GitHub does (`-1`, `-2`…). */
export function headingIds(markdown: string): string[] {
  return headingsOf(new MarkdownIt({ html: false }).parse(markdown, {}));
}

function headingsOf(tokens: Token[]): string[] {
  const seen = new Map<string, number>();
  const ids: string[] = [];
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const base = headingId(inlineText(tokens[i + 1]));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.push(n === 0 ? base : `${base}-${n}`);
  });
  return ids;
}

/** The guide's HTML. `resolveLink` decides every link that is not to an http(s) or mailto URL. */
export function renderGuideHtml(markdown: string, resolveLink: LinkResolver): string {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

  md.core.ruler.push('addon_kit_guide', (state) => {
    const ids = headingsOf(state.tokens);
    const first = state.tokens.find((t) => t.type === 'heading_open');
    const shift = first ? Number(first.tag.slice(1)) - 1 : 0;
    let h = 0;
    for (const token of state.tokens) {
      if (token.type === 'heading_open' || token.type === 'heading_close') {
        token.tag = `h${Math.max(1, Number(token.tag.slice(1)) - shift)}`;
        if (token.type === 'heading_open') token.attrSet('id', ids[h++]!);
      }
      if (token.type !== 'inline' || !token.children) continue;
      const open: Token[] = [];
      for (const child of token.children) {
        if (child.type === 'link_open') {
          const href = child.attrGet('href') ?? '';
          const target = /^(https?:|mailto:)/i.test(href) ? href : resolveLink(href);
          if (target === undefined) child.meta = { dropped: true };
          else child.attrSet('href', target);
          open.push(child);
        } else if (child.type === 'link_close') {
          const opening = open.pop();
          if (isDropped(opening)) child.meta = { dropped: true };
        }
      }
    }
  });

  const rules = md.renderer.rules;
  const linkOpen = rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  const linkClose = rules.link_close ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  rules.link_open = (tokens, idx, options, env, self) =>
    isDropped(tokens[idx]) ? '' : linkOpen(tokens, idx, options, env, self);
  rules.link_close = (tokens, idx, options, env, self) =>
    isDropped(tokens[idx]) ? '' : linkClose(tokens, idx, options, env, self);
  rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx]!.content);

  const fence = rules.fence!;
  rules.fence = (tokens, idx, options, env, self) =>
    fence(tokens, idx, options, env, self).replace(/^<pre>/, '<pre tabindex="0">');
  const codeBlock = rules.code_block!;
  rules.code_block = (tokens, idx, options, env, self) =>
    codeBlock(tokens, idx, options, env, self).replace(/^<pre>/, '<pre tabindex="0">');
  rules.table_open = () => '<div class="ak-guide-table" tabindex="0">\n<table>\n';
  rules.table_close = () => '</table>\n</div>\n';

  return md.render(markdown);
}
