-- Every lease ever handed out. `regressions.lease_id` names only the current one; this history
-- lets a late result tell "no such lease" (404) from "your lease expired and the regression was
-- leased again" (409).
CREATE TABLE regression_leases (
    lease_id        UUID PRIMARY KEY,
    regression_id   BIGINT NOT NULL REFERENCES regressions(id),
    worker          TEXT NOT NULL,
    leased_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    leased_until    TIMESTAMPTZ NOT NULL
);
CREATE INDEX regression_leases_regression ON regression_leases (regression_id, leased_at);
