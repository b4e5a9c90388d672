/**
 * The page of the `connect_access` interaction: the person's organization does not let them connect
 * the application. It says who may, that an organization administrator can change it, and its one
 * button sends the browser back to the application with `access_denied`.
 */
import type { VNode } from 'preact';
import { CsrfField, Layout } from '../pages/render.tsx';
import { describeRefusal, whoCanChange, type AccessRefusal } from './application-access.ts';

/** Path of the page's form: finishes the interaction with `access_denied`. */
export function accessRefusedAction(uid: string): string {
  return `/oauth/interaction/${uid}/refused`;
}

/** The refusal page (sent with status 403). */
export function AccessRefusedPage(props: { uid: string; csrfToken: string; refusal: AccessRefusal }): VNode {
  const { refusal } = props;
  return (
    <Layout title={`You cannot connect ${refusal.applicationName}`}>
      <h1>You cannot connect {refusal.applicationName}</h1>
      <p data-access-mode={refusal.mode}>{describeRefusal(refusal)}</p>
      <p>{whoCanChange(refusal)}</p>
      <form method="post" action={accessRefusedAction(props.uid)}>
        <CsrfField token={props.csrfToken} />
        <button type="submit">Back to {refusal.applicationName}</button>
      </form>
    </Layout>
  );
}
