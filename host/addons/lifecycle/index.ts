/** Add-on lifecycle events for integrators (README.md): recorded in the transaction of the change they report. */
export {
  ADDON_LIFECYCLE_EVENTS,
  integratorSubjectOf,
  lifecyclePayload,
  recordAddonLifecycleEvent,
  type AddonLifecycleEvent,
  type AddonLifecyclePayload,
  type LifecycleChange,
} from './lifecycle-events.ts';
export { authorizedAddons } from './authorized-addons.ts';
export { revokeAuthorization, type RevokeDeps } from './revoke-authorization.ts';
export { revokeAuthorizationRoute, type RevokeRouteDeps } from './revoke-route.ts';
