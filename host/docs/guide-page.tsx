/**
 * `/docs/guides/{slug}`: one guide (a section of the README or of docs/*.md, rendered by guides.ts) in the host's
 * frame, with the navigation across the references and the guides. The guide's HTML comes from markdown-it with
 * raw HTML disabled, so it holds no markup the Markdown did not describe.
 */
import type { VNode } from 'preact';
import { Layout, type Viewer } from '../pages/render.tsx';
import { DocsNav, type NavLink } from './docs-nav.tsx';

export interface GuidePageProps {
  title: string;
  html: string;
  current: string;
  apis: readonly NavLink[];
  guides: readonly NavLink[];
  viewer?: Viewer | undefined;
  stylesheets: readonly string[];
}

export function GuidePage(props: GuidePageProps): VNode {
  return (
    <Layout title={props.title} viewer={props.viewer} assets={{ stylesheets: props.stylesheets, scripts: [] }}>
      <DocsNav apis={props.apis} guides={props.guides} current={props.current} />
      <article class="ak-guide" dangerouslySetInnerHTML={{ __html: props.html }} />
    </Layout>
  );
}
