/**
 * The navigation of `/docs`: the APIs' references and the guides, on every page of the documentation; the page
 * shown is marked `aria-current`.
 */
import type { VNode } from 'preact';

export interface NavLink {
  href: string;
  title: string;
}

export function DocsNav(props: { apis: readonly NavLink[]; guides: readonly NavLink[]; current: string }): VNode {
  const list = (label: string, className: string, links: readonly NavLink[]) => (
    <nav class={className} aria-label={label}>
      <p class="ak-docs-nav-title">{label}</p>
      <ul>
        {links.map((l) => (
          <li>
            <a href={l.href} aria-current={l.href === props.current ? 'page' : undefined}>
              {l.title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
  return (
    <div class="ak-docs-navs">
      {list('APIs', 'ak-docs-nav', props.apis)}
      {props.guides.length > 0 ? list('Guides', 'ak-docs-guides', props.guides) : null}
    </div>
  );
}
