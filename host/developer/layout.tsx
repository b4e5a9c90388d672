/** The frame of the developer-account pages: the host's header (with Log out), the page's heading and the tabs. */
import type { ComponentChildren, VNode } from 'preact';
import type { PersonRecord } from '../auth/person.ts';
import { isOrganizationAdministrator } from '../auth/permissions.ts';
import { Layout, viewerOf } from '../pages/render.tsx';

/** The developer account's sections. */
export type DeveloperTab = 'overview' | 'tokens' | 'applications' | 'connected' | 'webhooks' | 'account';

const TABS: { id: DeveloperTab; href: string; label: string; adminsOnly?: boolean }[] = [
  { id: 'overview', href: '/developer', label: 'Overview' },
  { id: 'tokens', href: '/developer/personal-access-tokens', label: 'Personal access tokens' },
  { id: 'applications', href: '/developer/oauth-applications', label: 'OAuth applications' },
  { id: 'connected', href: '/developer/connected-applications', label: 'Connected applications', adminsOnly: true },
  { id: 'webhooks', href: '/developer/webhooks', label: 'Webhooks' },
  { id: 'account', href: '/developer/account', label: 'Account' },
];

/** Layout of every developer-account page. */
export function DeveloperLayout(props: {
  title: string;
  /** One line under the heading: what the page is for. */
  lede?: ComponentChildren;
  person: PersonRecord;
  csrfToken: string;
  /** The tab the page belongs to. */
  tab: DeveloperTab;
  children: ComponentChildren;
}): VNode {
  const admin = isOrganizationAdministrator(props.person);
  return (
    <Layout
      // The account page itself is not named twice.
      title={props.title === 'Developer account' ? props.title : `${props.title} · Developer account`}
      viewer={viewerOf(props.person, props.csrfToken)}
      section="developer"
    >
      <nav aria-label="Developer account">
        <ul class="ak-tabs">
          {TABS.filter((t) => admin || !t.adminsOnly).map((t) => (
            <li key={t.id}>
              <a href={t.href} {...(props.tab === t.id ? { 'aria-current': 'page' } : {})}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="ak-page-header">
        <h1>{props.title}</h1>
        {props.lede ? <p class="ak-lede">{props.lede}</p> : null}
      </div>
      {props.children}
    </Layout>
  );
}
