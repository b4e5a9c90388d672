/**
 * The page of the `connect_access` interaction: the person's organization does not let them connect
 * the application. It says who may, that an organization administrator can change it, and its one
 * button sends the browser back to the application with `access_denied`.
 */
import type { VNode } from 'preact';
import type { AccessRefusal } from './application-access.ts';
import { CsrfField, Layout } from '../pages/render.tsx';

/** Path of the page's form: finishes the interaction with `access_denied`. */
export function accessRefusedAction(uid: string): string {
  return `/oauth/interaction/${uid}/refused`;
}

/** Who may connect, in words. */
export function whoMayConnect(mode: AccessRefusal['mode'], organizationName: string, applicationName: string): string {
  return mode === 'admins_only'
    ? `${organizationName} allows only its organization administrators to connect ${applicationName}.`
    : `${organizationName} allows only the people its organization administrators chose to connect ${applicationName}, and you are not one of them.`;
}

/** The refusal page (sent with status 403). */
export function AccessRefusedPage(props: { uid: string; csrfToken: string; mode: AccessRefusal['mode']; organizationName: string; applicationName: string }): VNode {
  return (
    <Layout title={`You cannot connect ${props.applicationName}`}>
      <h1>You cannot connect {props.applicationName}</h1>
      <p data-access-mode={props.mode}>{whoMayConnect(props.mode, props.organizationName, props.applicationName)}</p>
      <p>
        An organization administrator of {props.organizationName} can change who may connect it on the Connected applications page of the
        developer account.
      </p>
      <form method="post" action={accessRefusedAction(props.uid)}>
        <CsrfField token={props.csrfToken} />
        <button type="submit">Back to {props.applicationName}</button>
      </form>
    </Layout>
  );
}
