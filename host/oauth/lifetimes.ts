/** Lifetimes of the spec's Limits section, in seconds. */
export const TOKEN_LIFETIMES = {
  /** expires_in 7200. */
  accessToken: 2 * 60 * 60,
  /** ID tokens expire one hour after issue. */
  idToken: 60 * 60,
  /** A refresh token is honoured 90 days after the access token issued with it. */
  refreshToken: 90 * 24 * 60 * 60,
  /** Codes are short-lived and single use. */
  authorizationCode: 60,
  interaction: 60 * 60,
  session: 14 * 24 * 60 * 60,
} as const;
