/** The consent prompt of the authorization endpoint. */
import { h } from 'preact';
import { hiddenFields, renderPage } from './page.ts';
import type { PageSite } from './site.ts';

/**
 * Names the add-on and the platform it runs in (from the registered client: `name` and `host_name`, never from the
 * request, which anyone can craft) and each requested scope; Allow and Deny post back to /oauth/authorize.
 */
export function consentPage(
  site: PageSite,
  opts: {
    /** Unset: the add-on has no name the integrator knows, and the page says "an add-on". */
    addonName: string | undefined;
    hostName: string;
    userName: string;
    scopes: { name: string; description: string }[];
    fields: Record<string, string>;
  },
): string {
  return renderPage(site, 'Authorize access', [
    h('h1', null, `Allow ${opts.addonName ?? 'an add-on'} to use your account?`),
    h('p', null, [
      ...(opts.addonName === undefined ? ['An add-on'] : ['The add-on ', h('strong', null, opts.addonName)]),
      ' in ',
      h('strong', null, opts.hostName),
      ` asks to act for you on ${site.name}.`,
    ]),
    h('div', { class: 'request' }, [
      h('p', { class: 'soft' }, `Signed in as ${opts.userName}. It asks for:`),
      h(
        'ul',
        null,
        opts.scopes.map((s) => h('li', null, [h('strong', null, s.name), ` — ${s.description}`])),
      ),
    ]),
    h('form', { method: 'post', action: '/oauth/authorize' }, [
      ...hiddenFields(opts.fields),
      h('div', { class: 'buttons' }, [
        h('button', { type: 'submit', name: 'decision', value: 'deny' }, 'Deny'),
        h('button', { type: 'submit', name: 'decision', value: 'allow', class: 'primary' }, 'Allow'),
      ]),
    ]),
    h(
      'p',
      { class: 'footnote' },
      `${opts.hostName} never sees your ${site.name} password; it gets a token for these scopes only.`,
    ),
  ]);
}
