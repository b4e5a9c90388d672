/**
 * The console-token control of `/docs`: for a signed-in person, a button that asks the host for a console token
 * for the API shown (`assets/reference.js` posts it and authorizes Swagger UI with the answer); for anyone else,
 * a link to sign in and come back to this API. The OAuth endpoints' reference has none (they take no such token).
 */
import type { VNode } from 'preact';
import { CSRF_HEADER } from '../auth/csrf.ts';
import { CONSOLE_TOKEN_TTL_MINUTES } from '../auth/console-tokens.ts';
import { CsrfField } from '../pages/render.tsx';

/** Who is reading: a signed-in person (with their session's CSRF token) or nobody. */
export type ConsoleReader = { csrfToken: string } | undefined;

export function ConsoleTokenControl(props: {
  api: { id: string; title: string; console: { apiPrefix: string; scope: string | null } };
  reader: ConsoleReader;
  action: string;
}): VNode {
  const { api, reader } = props;
  if (!reader) {
    const login = `/login?return_to=${encodeURIComponent(`/docs?api=${api.id}`)}`;
    return (
      <p class="ak-console-token" data-console-token="signed-out">
        To try requests without pasting a token, <a href={login}>sign in</a> and use a console token for this API.
      </p>
    );
  }
  const reach = api.console.scope
    ? `${api.console.apiPrefix} with the ${api.console.scope} scope`
    : api.console.apiPrefix;
  return (
    <form
      method="post"
      action={props.action}
      class="ak-console-token"
      data-console-token="signed-in"
      data-csrf-header={CSRF_HEADER}
    >
      <CsrfField token={reader.csrfToken} />
      <input type="hidden" name="api" value={api.id} />
      <button type="submit" class="ak-button--primary" aria-describedby="console-token-hint">
        Use a console token for this API
      </button>
      <p id="console-token-hint" class="ak-subdued">
        Authorizes Try it out as you for {CONSOLE_TOKEN_TTL_MINUTES} minutes, on {reach} only. Your console tokens are
        listed on your <a href="/developer/account">account page</a>, where you can revoke them.
      </p>
      <p class="ak-console-token-status" role="status" data-console-status></p>
    </form>
  );
}
