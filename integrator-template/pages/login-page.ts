/** The integrator's sign-in form. */
import { h } from 'preact';
import { hiddenFields, renderPage } from './page.ts';
import type { PageSite } from './site.ts';

/** Sign-in page; `returnTo` is where a successful login continues. */
export function loginPage(
  site: PageSite,
  opts: { csrf: string; returnTo: string; error?: string; username?: string },
): string {
  return renderPage(site, 'Sign in', [
    h('h1', null, `Sign in to ${site.name}`),
    h('p', { class: 'soft' }, `Use your ${site.name} username and password.`),
    opts.error ? h('p', { class: 'alert', role: 'alert' }, opts.error) : null,
    h('form', { method: 'post', action: '/login' }, [
      ...hiddenFields({ csrf_token: opts.csrf, return_to: opts.returnTo }),
      h('label', { for: 'username' }, 'Username'),
      h('input', {
        id: 'username',
        name: 'username',
        type: 'text',
        autocomplete: 'username',
        required: true,
        value: opts.username ?? '',
      }),
      h('label', { for: 'password' }, 'Password'),
      h('input', {
        id: 'password',
        name: 'password',
        type: 'password',
        autocomplete: 'current-password',
        required: true,
      }),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')),
    ]),
  ]);
}
