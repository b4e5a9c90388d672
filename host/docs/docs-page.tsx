/**
 * `/docs`: the API reference, rendered by Swagger UI (swagger-ui-dist, served by the host: nothing is fetched from
 * elsewhere) from the OpenAPI document of the API chosen in the page's navigation. Its try-it console sends real
 * requests to this host with the credentials pasted into Authorize (a personal access token as HTTP Basic, or an
 * OAuth access token), or with a console token the host issues to the signed-in person. The page is the host's frame (header with the signed-in person) around the UI.
 */
import type { VNode } from 'preact';
import { Layout, type Viewer } from '../pages/render.tsx';
import { ConsoleTokenControl, type ConsoleReader } from './console-token-control.tsx';
import { DocsNav, type NavLink } from './docs-nav.tsx';

/** One API of the navigation. */
export interface DocumentLink {
  /** The `api` query value, e.g. `people`. */
  id: string;
  title: string;
  url: string;
  /** Where a console token for this API is accepted, and its scope there; absent: the API offers none. */
  console?: { apiPrefix: string; scope: string | null };
}

export interface DocsPageProps {
  documents: readonly DocumentLink[];
  current: DocumentLink;
  /** The guides, for the navigation. */
  guides: readonly NavLink[];
  viewer?: Viewer | undefined;
  /** The reader of the console-token control (signed in: their CSRF token), and where it posts. */
  console: { reader: ConsoleReader; action: string };
  assets: { stylesheets: readonly string[]; scripts: readonly string[] };
}

export function DocsPage(props: DocsPageProps): VNode {
  return (
    <Layout title={`API reference: ${props.current.title}`} viewer={props.viewer} assets={props.assets}>
      <h1>API reference</h1>
      <DocsNav
        apis={props.documents.map((d) => ({ href: `/docs?api=${d.id}`, title: d.title }))}
        guides={props.guides}
        current={`/docs?api=${props.current.id}`}
      />
      <p class="ak-subdued">
        The OpenAPI document: <a href={props.current.url}>{props.current.url}</a>. To try a request, choose Authorize
        and paste a personal access token (its client ID as user name, its secret as password) or an OAuth access token.
      </p>
      {props.current.console ? (
        <ConsoleTokenControl
          api={{ ...props.current, console: props.current.console }}
          reader={props.console.reader}
          action={props.console.action}
        />
      ) : null}
      <div id="reference" data-document={props.current.url}>
        <noscript>The reference needs JavaScript; the OpenAPI document above says the same.</noscript>
      </div>
    </Layout>
  );
}
