/**
 * Each person's authorization of an installation: the handshake's state machine, the token vault (both grants'
 * tokens sealed at rest) and the refresh leases. The one owner of `addon_authorizations` (its only SQL is in
 * store.ts's statement files, lease.ts and person-authorizations.ts).
 */
export {
  AUTHORIZATION_STATES,
  AUTHORIZATION_TRANSITIONS,
  IllegalTransitionError,
  assertTransition,
  canTransition,
  sourcesOf,
  type AuthorizationState,
} from './states.ts';
export {
  SEALED_COLUMNS,
  authorizationJsonSql,
  authorizationRowOf,
  createAuthorizationStore,
  type AuthorizationRow,
  type AuthorizationRowJson,
  type AuthorizationStore,
  type HandshakeRow,
  type ReadOptions,
  type SealedColumn,
  type SealedTokens,
} from './store.ts';
export {
  listPersonAuthorizations,
  type InstallationLabelSql,
  type PersonAuthorization,
} from './person-authorizations.ts';
export { createTokenVault, keyIdOf, type TokenSet, type TokenVault, type VaultRecord } from './token-vault.ts';
export {
  claimRefreshLease,
  integratorTokensDue,
  releaseRefreshLease,
  requireReauthorization,
  writeRefreshedTokens,
  type LeasedTokens,
  type RefreshSide,
  type SealedRefresh,
} from './lease.ts';
