/** Server-rendered HTML pages of the integrator (preact, no client JavaScript). */
import { h, type ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.75rem 0 .25rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
button{margin:1rem .5rem 0 0;padding:.45rem 1rem}.error{color:#a00}ul{padding-left:1.2rem}`;

/** A whole HTML document around `body`. */
export function renderPage(title: string, body: ComponentChildren): string {
  return (
    '<!doctype html>' +
    render(
      h('html', { lang: 'en' }, [
        h('head', null, [h('meta', { charset: 'utf-8' }), h('meta', { name: 'viewport', content: 'width=device-width' }), h('title', null, title), h('style', null, STYLE)]),
        h('body', null, body),
      ]),
    )
  );
}

/** Hidden form fields. */
export function hiddenFields(fields: Record<string, string>): ComponentChildren[] {
  return Object.entries(fields).map(([name, value]) => h('input', { type: 'hidden', name, value }));
}

/** A page that explains a failure and what to do. */
export function messagePage(title: string, detail: string): string {
  return renderPage(title, [h('h1', null, title), h('p', null, detail)]);
}
