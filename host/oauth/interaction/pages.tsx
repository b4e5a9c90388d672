/** The interaction pages themselves: the consent page and the account chooser (the login form is the host's). */
import type { VNode } from 'preact';
import { displayName, type PersonRecord } from '../../auth/person.ts';
import { CsrfField, Field, initialsOf, Layout, PlatformMark, usePlatformName, viewerOf } from '../../pages/render.tsx';
import { isProviderScope, SCOPE_DESCRIPTIONS } from '../scopes.ts';

/** Consent page: names the application and the platform, and says what each scope allows. */
export function ConsentPage(props: {
  action: string;
  csrfToken: string;
  applicationName: string;
  person: PersonRecord;
  scopes: string[];
}): VNode {
  const platform = usePlatformName();
  const { applicationName: name, person } = props;
  return (
    <Layout title={`Authorize ${name}`} viewer={viewerOf(person)} nav={false} width="narrow">
      <ConnectionMark from={name} />
      <h1>Authorize {name}</h1>
      <p class="ak-lede">
        <strong>{name}</strong> asks to access your {platform} account ({displayName(person)},{' '}
        {person.organization_name}).
      </p>
      <h2 class="ak-scopes-heading">It will be able to:</h2>
      <ul class="ak-scopes">
        {props.scopes.map((scope) => (
          <li key={scope} data-scope={scope}>
            {isProviderScope(scope) ? SCOPE_DESCRIPTIONS[scope] : scope}
          </li>
        ))}
      </ul>
      <form method="post" action={props.action} class="ak-decision">
        <CsrfField token={props.csrfToken} />
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
        <button type="submit" name="decision" value="allow" class="ak-button--primary">
          Allow
        </button>
      </form>
      <p class="ak-small ak-subdued ak-consent-note">
        Allow only if you trust {name} with this access. Deny sends you back without it.
      </p>
    </Layout>
  );
}

/** The application's initial beside the platform's mark: who asks to connect to what. */
function ConnectionMark(props: { from: string }): VNode {
  return (
    <div class="ak-consent-parties" aria-hidden="true">
      <span class="ak-monogram">{(props.from.trim()[0] ?? '?').toUpperCase()}</span>
      <span class="ak-consent-link">•••</span>
      <span class="ak-monogram">
        <PlatformMark />
      </span>
    </div>
  );
}

/** Account chooser: continue as the person logged in to the host, or log in as someone else. */
export function AccountChooser(props: {
  uid: string;
  csrfToken: string;
  applicationName: string;
  person: PersonRecord;
}): VNode {
  const { person } = props;
  return (
    <Layout title="Choose an account" viewer={viewerOf(person)} nav={false} width="narrow">
      <h1>Choose an account</h1>
      <p class="ak-lede">Which account should {props.applicationName} use?</p>
      <form method="post" action={`/oauth/interaction/${props.uid}/select`}>
        <CsrfField token={props.csrfToken} />
        <button type="submit" name="account" value={person.id} class="ak-account-choice">
          <span class="ak-avatar" aria-hidden="true">
            {initialsOf(displayName(person))}
          </span>
          <span class="ak-account-choice-text">
            <span>
              Continue as {displayName(person)} ({person.email})
            </span>
            <span class="ak-subdued ak-small">{person.organization_name}</span>
          </span>
        </button>
      </form>
      <h2>Use another account</h2>
      <form method="post" action={`/oauth/interaction/${props.uid}/login`}>
        <CsrfField token={props.csrfToken} />
        <Field id="email" label="E-mail">
          {(aria) => <input {...aria} type="email" name="email" autoComplete="username" required value="" />}
        </Field>
        <Field id="password" label="Password">
          {(aria) => <input {...aria} type="password" name="password" autoComplete="current-password" required />}
        </Field>
        <button type="submit" class="ak-button--block">
          Log in
        </button>
      </form>
    </Layout>
  );
}
