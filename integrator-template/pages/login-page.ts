/** The integrator's sign-in form. */
import { h } from 'preact';
import { hiddenFields, renderPage } from './page.ts';

/** Sign-in page; `returnTo` is where a successful login continues. */
export function loginPage(opts: { csrf: string; returnTo: string; error?: string; username?: string }): string {
  return renderPage('Sign in', [
    h('h1', null, 'Sign in to the integrator'),
    opts.error ? h('p', { class: 'error', role: 'alert' }, opts.error) : null,
    h('form', { method: 'post', action: '/login' }, [
      ...hiddenFields({ csrf_token: opts.csrf, return_to: opts.returnTo }),
      h('label', { for: 'username' }, 'Username'),
      h('input', { id: 'username', name: 'username', type: 'text', autocomplete: 'username', required: true, value: opts.username ?? '' }),
      h('label', { for: 'password' }, 'Password'),
      h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
      h('button', { type: 'submit' }, 'Sign in'),
    ]),
  ]);
}
