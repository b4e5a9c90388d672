/**
 * The page of the `connect_access` interaction: the person's organization does not let them connect
 * the application. It says who may, that an organization administrator can change it, and its one
 * button sends the browser back to the application with `access_denied`.
 */
import type { VNode } from 'preact';
import { Banner, CsrfField, Layout, type Viewer } from '../pages/render.tsx';
import { describeRefusal, whoCanChange, type AccessRefusal } from './application-access.ts';

/** Path of the page's form: finishes the interaction with `access_denied`. */
export function accessRefusedAction(uid: string): string {
  return `/oauth/interaction/${uid}/refused`;
}

/** The refusal page (sent with status 403). */
export function AccessRefusedPage(props: {
  uid: string;
  csrfToken: string;
  refusal: AccessRefusal;
  viewer?: Viewer;
}): VNode {
  const { refusal } = props;
  return (
    <Layout title={`You cannot connect ${refusal.applicationName}`} viewer={props.viewer} nav={false} width="narrow">
      <p class="ak-eyebrow">Not allowed by {refusal.organizationName}</p>
      <h1>You cannot connect {refusal.applicationName}</h1>
      <Banner tone="warning">
        <p data-access-mode={refusal.mode}>{describeRefusal(refusal)}</p>
      </Banner>
      <p>{whoCanChange(refusal)}</p>
      <form method="post" action={accessRefusedAction(props.uid)} class="ak-actions">
        <CsrfField token={props.csrfToken} />
        <button type="submit" class="ak-button--primary">
          Back to {refusal.applicationName}
        </button>
      </form>
    </Layout>
  );
}
