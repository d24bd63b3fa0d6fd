-- Dashboard sessions (service/src/web/session.rs): a login with a token creates one; the
-- browser holds the random session id in an HttpOnly cookie, the database only its SHA-256.
-- The token is referenced, so revoking it ends its sessions.
CREATE TABLE web_sessions (
    id_sha256   BYTEA PRIMARY KEY,
    token_id    BIGINT NOT NULL REFERENCES api_tokens(id) ON DELETE CASCADE,
    csrf        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
