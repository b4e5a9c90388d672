/** Server-rendered HTML pages of the integrator (preact, no client JavaScript). */
import { h, type ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';
import type { PageSite } from './site.ts';

/** A whole HTML document around `body`: the integrator's top bar, then one sheet. */
export function renderPage(site: PageSite, title: string, body: ComponentChildren): string {
  return (
    '<!doctype html>' +
    render(
      h('html', { lang: 'en' }, [
        h('head', null, [
          h('meta', { charset: 'utf-8' }),
          h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
          // A page named like the site (its home) is not named twice.
          h('title', null, title === site.name ? title : `${title} · ${site.name}`),
          h('link', { rel: 'stylesheet', href: site.stylesheet.path }),
          h('link', { rel: 'icon', type: 'image/svg+xml', href: site.favicon.path }),
        ]),
        h('body', null, [
          h('header', { class: 'topbar' }, [
            h('img', { src: site.favicon.path, alt: '', width: 26, height: 26 }),
            h('span', null, site.name),
          ]),
          h('main', null, h('div', { class: 'sheet' }, body)),
        ]),
      ]),
    )
  );
}

/** Hidden form fields. */
export function hiddenFields(fields: Record<string, string>): ComponentChildren[] {
  return Object.entries(fields).map(([name, value]) => h('input', { type: 'hidden', name, value }));
}

/** A page that explains a failure and what to do. */
export function messagePage(site: PageSite, title: string, detail: string): string {
  return renderPage(site, title, [h('h1', null, title), h('p', null, detail)]);
}
