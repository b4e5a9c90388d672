/** The frame of the developer-account pages: navigation and the logout form. */
import type { ComponentChildren, VNode } from 'preact';
import { CsrfField, Layout } from '../pages/render.tsx';

/** Layout of every developer-account page. */
export function DeveloperLayout(props: { title: string; csrfToken: string; children: ComponentChildren }): VNode {
  return (
    <Layout title={`${props.title} · Developer account`}>
      <nav>
        <a href="/developer">Developer account</a>
        <a href="/developer/personal-access-tokens">Personal access tokens</a>
        <a href="/developer/oauth-applications">OAuth applications</a>
        <a href="/developer/connected-applications">Connected applications</a>
      </nav>
      <form method="post" action="/logout">
        <CsrfField token={props.csrfToken} />
        <button type="submit">Log out</button>
      </form>
      <h1>{props.title}</h1>
      {props.children}
    </Layout>
  );
}
