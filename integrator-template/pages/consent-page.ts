/** The consent prompt of the authorization endpoint. */
import { h } from 'preact';
import { hiddenFields, renderPage } from './page.ts';

/** Names the client and each requested scope; Allow and Deny post back to /oauth/authorize. */
export function consentPage(opts: {
  clientName: string;
  userName: string;
  scopes: { name: string; description: string }[];
  fields: Record<string, string>;
}): string {
  return renderPage('Authorize access', [
    h('h1', null, `Allow ${opts.clientName} to access your account?`),
    h('p', null, `Signed in as ${opts.userName}. ${opts.clientName} asks for:`),
    h(
      'ul',
      null,
      opts.scopes.map((s) => h('li', null, [h('strong', null, s.name), ` — ${s.description}`])),
    ),
    h('form', { method: 'post', action: '/oauth/authorize' }, [
      ...hiddenFields(opts.fields),
      h('button', { type: 'submit', name: 'decision', value: 'allow' }, 'Allow'),
      h('button', { type: 'submit', name: 'decision', value: 'deny' }, 'Deny'),
    ]),
  ]);
}
