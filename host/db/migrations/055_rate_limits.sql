-- Counters of the rate limits and sign-in throttles (host/limits), shared by every host process on this
-- database: rate-limiter-flexible's PostgreSQL store layout. Keys are SHA-256 digests (fixed length, no
-- e-mail address or client id in clear); expire is Unix milliseconds. UNLOGGED: counters are worth no
-- WAL write and fsync per API request (losing them in a crash only resets the limits).
CREATE UNLOGGED TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
CREATE INDEX rate_limits_expire ON rate_limits (expire);
