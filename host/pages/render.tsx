/**
 * Server-rendered pages: preact to an HTML string, one page frame (header with the platform, the organization and
 * the signed-in person; the design system's stylesheet and favicon), a few shared pieces (banners, fields), and no
 * client JavaScript.
 */
import type { Response } from 'express';
import { createContext, type ComponentChildren, type VNode } from 'preact';
import { useContext } from 'preact/hooks';
import { renderToString } from 'preact-render-to-string';
import { displayName, type PersonRecord } from '../auth/person.ts';
import { CsrfField } from './components.tsx';
import { pageAssets, type PageAssets } from './page-assets.ts';

/** What the frame of every page needs from the app it is served by. */
export interface PageSite {
  /** The platform's name (config `platformName`). */
  platformName: string;
  assets: PageAssets;
}

/** The name pages show when the app set none (pages rendered outside a host, e.g. in unit tests). */
export const DEFAULT_PLATFORM_NAME = 'addon-kit';

const SiteContext = createContext<PageSite | null>(null);

function useSite(): PageSite {
  return useContext(SiteContext) ?? { platformName: DEFAULT_PLATFORM_NAME, assets: pageAssets() };
}

/** The platform's name, inside a page being rendered. */
export function usePlatformName(): string {
  return useSite().platformName;
}

/** The platform's mark (the favicon), decorative: the platform's name is always written beside it. */
export function PlatformMark(props: { size?: number }): VNode {
  const size = props.size ?? 28;
  return <img src={useSite().assets.favicon.path} alt="" width={size} height={size} />;
}

/** The platform's name as the app serving `res` was configured (`app.locals.platformName`). */
export function platformNameOf(res: Response): string {
  const name: unknown = res.app?.locals.platformName;
  return typeof name === 'string' && name ? name : DEFAULT_PLATFORM_NAME;
}

/**
 * The pages' Content-Security-Policy: no scripts, frames or foreign resources — their own stylesheet and images
 * (the favicon) only; forms post to the host (`formAction` adds where a form's redirects may go on to, e.g. an
 * OAuth client's redirect URIs: browsers apply form-action to the redirects that follow a submission too).
 * @see https://www.w3.org/TR/CSP3/#directive-form-action
 */
export function pageSecurityPolicy(formAction: readonly string[] = ["'self'"]): string {
  return `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction.join(' ')}; frame-ancestors 'none'; base-uri 'none'`;
}

/** The policy of a page whose forms post only to the host (and of pages without forms). */
export const PAGE_POLICY = pageSecurityPolicy();

/** The signed-in person as the header shows them; with a CSRF token the header offers Log out. */
export interface Viewer {
  name: string;
  email: string | null;
  organizationName: string;
  csrfToken?: string;
}

/** The viewer of a page from the person of its request. */
export function viewerOf(person: PersonRecord, csrfToken?: string): Viewer {
  const viewer: Viewer = { name: displayName(person), email: person.email, organizationName: person.organization_name };
  return csrfToken ? { ...viewer, csrfToken } : viewer;
}

/** The application sections the header links to. */
export type Section = 'lists' | 'developer';

const SECTIONS: { id: Section; href: string; label: string }[] = [
  { id: 'lists', href: '/demo/lists', label: 'Lists' },
  { id: 'developer', href: '/developer', label: 'Developer account' },
];

/** One or two capitals standing for a name (an avatar's text). */
export function initialsOf(name: string): string {
  const letters = name
    .split(/\s+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase());
  return (letters.length > 1 ? letters[0]! + letters.at(-1)! : (letters[0] ?? '?')).slice(0, 2);
}

function Header(props: { viewer?: Viewer | undefined; section?: Section | undefined; nav: boolean }): VNode {
  const { platformName } = useSite();
  const { viewer } = props;
  const brand = (
    <>
      <PlatformMark />
      <span>{platformName}</span>
    </>
  );
  return (
    <header class="ak-header">
      <div class="ak-header-inner">
        {viewer && props.nav ? (
          <a class="ak-brand" href="/">
            {brand}
          </a>
        ) : (
          <span class="ak-brand">{brand}</span>
        )}
        {viewer && props.nav ? (
          <nav class="ak-nav" aria-label="Main">
            {SECTIONS.map((s) => (
              <a key={s.id} href={s.href} {...(props.section === s.id ? { 'aria-current': 'page' } : {})}>
                {s.label}
              </a>
            ))}
          </nav>
        ) : null}
        {viewer ? (
          <div class="ak-account">
            <span class="ak-avatar" aria-hidden="true">
              {initialsOf(viewer.name)}
            </span>
            <span class="ak-account-who">
              <span class="ak-account-person" data-viewer="person">
                {viewer.name}
              </span>
              <span class="ak-account-organization" data-viewer="organization">
                {viewer.organizationName}
              </span>
            </span>
            {viewer.csrfToken ? (
              <form method="post" action="/logout">
                <CsrfField token={viewer.csrfToken} />
                <button type="submit" class="ak-button--small">
                  Log out
                </button>
              </form>
            ) : null}
          </div>
        ) : null}
      </div>
    </header>
  );
}

/** Props of the page frame. */
export interface LayoutProps {
  title: string;
  /** The signed-in person, when there is one (the login page has none). */
  viewer?: Viewer | undefined;
  /** The section the page belongs to (highlighted in the header's navigation). */
  section?: Section | undefined;
  /** Show the header's navigation (default: whenever there is a viewer). Off in popups and OAuth interactions. */
  nav?: boolean;
  /** `narrow`: one centred card (sign-in, consent, messages); `wide` (default): an application page. */
  width?: 'narrow' | 'wide';
  /** Stylesheets after the host's and scripts at the end of the body (the reference UI's; own paths only). */
  assets?: { stylesheets?: readonly string[]; scripts?: readonly string[] };
  children: ComponentChildren;
}

/** The page frame every host page shares. */
export function Layout(props: LayoutProps): VNode {
  const { platformName, assets } = useSite();
  const narrow = props.width === 'narrow';
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${props.title} · ${platformName}`}</title>
        <link rel="stylesheet" href={assets.stylesheet.path} />
        {(props.assets?.stylesheets ?? []).map((href) => (
          <link rel="stylesheet" href={href} />
        ))}
        <link rel="icon" type="image/svg+xml" href={assets.favicon.path} />
      </head>
      <body>
        <a class="ak-skip-link" href="#main">
          Skip to content
        </a>
        <Header viewer={props.viewer} section={props.section} nav={props.nav ?? true} />
        <main id="main" class={narrow ? 'ak-main ak-main--narrow' : 'ak-main'}>
          {narrow ? <div class="ak-card ak-card--spacious">{props.children}</div> : props.children}
        </main>
        {(props.assets?.scripts ?? []).map((src) => (
          <script src={src} />
        ))}
      </body>
    </html>
  );
}

/** A page's `<!doctype html>` text, its frame knowing the platform's name. */
export function renderPage(page: VNode, platformName: string = DEFAULT_PLATFORM_NAME): string {
  const site: PageSite = { platformName, assets: pageAssets() };
  return `<!doctype html>${renderToString(<SiteContext.Provider value={site}>{page}</SiteContext.Provider>)}`;
}

/**
 * Sends a page. Pages never embed scripts, frames or foreign resources, and are never cached (they
 * can show one-time secrets and carry CSRF tokens).
 */
export function sendPage(
  res: Response,
  status: number,
  page: VNode,
  options: { formAction?: readonly string[] } = {},
): void {
  res
    .status(status)
    .set('Content-Type', 'text/html; charset=utf-8')
    .set('Cache-Control', 'no-store')
    .set('Content-Security-Policy', pageSecurityPolicy(options.formAction))
    .set('X-Frame-Options', 'DENY')
    // Not no-referrer: browsers then send `Origin: null` on the page's own form posts, which requireCsrf refuses.
    .set('Referrer-Policy', 'same-origin')
    .send(renderPage(page, platformNameOf(res)));
}

/** What a message page may add: the signed-in person, and a link onwards. */
export interface MessageOptions {
  viewer?: Viewer | undefined;
  link?: { href: string; label: string };
}

/** The viewer of a request that passed `requireHostLogin` (its header then names the person), else undefined. */
export function requestViewer(res: Response): Viewer | undefined {
  const person = res.req?.hostPerson;
  return person ? viewerOf(person) : undefined;
}

/**
 * A page with one heading and one paragraph (errors, notices); behind the host login its header names the person.
 */
export function sendMessagePage(
  res: Response,
  status: number,
  title: string,
  message: string,
  options: MessageOptions = {},
): void {
  sendPage(
    res,
    status,
    <Layout title={title} viewer={options.viewer ?? requestViewer(res)} width="narrow">
      <MessageBody status={status} title={title} message={message} link={options.link} />
    </Layout>,
  );
}

/** The inside of a message page: a status line for errors, the heading, the message, the link onwards. */
export function MessageBody(props: {
  status: number;
  title: string;
  message: ComponentChildren;
  link?: { href: string; label: string } | undefined;
}): VNode {
  return (
    <>
      {props.status >= 400 ? <p class="ak-eyebrow">Error {props.status}</p> : null}
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      {props.link ? (
        <p class="ak-actions">
          <a class="ak-button" href={props.link.href}>
            {props.link.label}
          </a>
        </p>
      ) : null}
    </>
  );
}

// The shared pieces of a page body live in components.tsx; pages import them from here, with the frame.
export { Banner, CsrfField, Field, shownTime, Table, type BannerTone } from './components.tsx';
