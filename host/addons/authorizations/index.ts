/** The owner of `addon_authorizations`: its state machine and its store (the only SQL on the table). */
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
