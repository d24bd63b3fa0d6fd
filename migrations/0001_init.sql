-- ptxfuzz service schema (docs/service.md). One migration per change; never edit an applied one.

-- Who may call the API. Tokens are stored as SHA-256 of the secret; the secret is shown once,
-- by `ptxfuzz-server token create`.
CREATE TABLE api_tokens (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('worker', 'triager', 'admin')),
    secret_sha256 BYTEA NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at  TIMESTAMPTZ
);

-- One run of `ptxfuzz campaign`. The worker picks the id (a UUID) so that it can spool
-- heartbeats and findings while the server is away; counters are absolute and only grow.
CREATE TABLE campaigns (
    id                  UUID PRIMARY KEY,
    worker_host         TEXT NOT NULL,
    target              TEXT NOT NULL,
    device              TEXT NOT NULL DEFAULT '',
    gpu_name            TEXT,
    sm                  INTEGER,
    driver_version      TEXT,
    cuda_version        TEXT,
    interpreter_commit  TEXT NOT NULL,
    seed                BIGINT,
    started_at          TIMESTAMPTZ NOT NULL,
    ended_at            TIMESTAMPTZ,
    last_heartbeat_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    cases               BIGINT NOT NULL DEFAULT 0,
    programs            BIGINT NOT NULL DEFAULT 0,
    mismatches          BIGINT NOT NULL DEFAULT 0,
    findings            BIGINT NOT NULL DEFAULT 0,
    signatures          BIGINT NOT NULL DEFAULT 0,
    engine_faults       BIGINT NOT NULL DEFAULT 0
);

-- A finding: every report of one signature (api::Signature key). The parts of the key are
-- columns, for the list filters.
CREATE TABLE findings (
    id              BIGSERIAL PRIMARY KEY,
    signature       TEXT NOT NULL UNIQUE,
    instruction     TEXT NOT NULL,          -- 'add.rz.ftz.f32', or 'input'
    opcode          TEXT NOT NULL,          -- 'add'
    type            TEXT NOT NULL,          -- 'f32' ('' for 'input')
    modifiers       TEXT[] NOT NULL,        -- {'rz','ftz'}
    class           TEXT NOT NULL,          -- api::MismatchClass name
    operand_classes TEXT NOT NULL,          -- 'normal.subnormal'
    sm              INTEGER,                -- NULL: a target without sm (host, exec)
    status          TEXT NOT NULL DEFAULT 'new' CHECK (status IN
                      ('new', 'confirmed-hardware', 'interpreter-bug', 'spec-ambiguity',
                       'duplicate', 'wont-fix', 'fixed')),
    duplicate_of    BIGINT REFERENCES findings(id),
    first_seen      TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_seen       TIMESTAMPTZ NOT NULL DEFAULT now(),
    occurrences     BIGINT NOT NULL DEFAULT 0,
    reproducers     BIGINT NOT NULL DEFAULT 0,
    CHECK ((status = 'duplicate') = (duplicate_of IS NOT NULL))
);
CREATE INDEX findings_last_seen ON findings (last_seen DESC, id DESC);
CREATE INDEX findings_instruction ON findings (instruction, last_seen DESC, id DESC);
CREATE INDEX findings_opcode ON findings (opcode, last_seen DESC, id DESC);
CREATE INDEX findings_type ON findings (type, last_seen DESC, id DESC);
CREATE INDEX findings_class ON findings (class, last_seen DESC, id DESC);
CREATE INDEX findings_status ON findings (status, last_seen DESC, id DESC);
CREATE INDEX findings_sm ON findings (sm, last_seen DESC, id DESC);
CREATE INDEX findings_modifiers ON findings USING GIN (modifiers);

-- One reported case of a finding. `content_sha256` (of the canonical JSON of the report) makes
-- ingest idempotent: a retried batch inserts nothing new.
CREATE TABLE reproducers (
    id              BIGSERIAL PRIMARY KEY,
    finding_id      BIGINT NOT NULL REFERENCES findings(id),
    campaign_id     UUID REFERENCES campaigns(id),
    content_sha256  BYTEA NOT NULL UNIQUE,
    received_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    target          TEXT NOT NULL,
    device          TEXT NOT NULL,
    driver_version  TEXT,                   -- from the campaign, for the driver filter
    hits            BIGINT NOT NULL,
    program_text    TEXT NOT NULL,
    reproducer      JSONB NOT NULL,         -- api::Reproducer as the worker wrote it
    ptx             TEXT,
    sass            TEXT
);
CREATE INDEX reproducers_finding ON reproducers (finding_id, id);
CREATE INDEX reproducers_driver ON reproducers (driver_version, finding_id);

-- Triage history: every status change, with who and why.
CREATE TABLE triage_events (
    id           BIGSERIAL PRIMARY KEY,
    finding_id   BIGINT NOT NULL REFERENCES findings(id),
    at           TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor        TEXT NOT NULL,             -- the token's name
    from_status  TEXT NOT NULL,
    to_status    TEXT NOT NULL,
    duplicate_of BIGINT REFERENCES findings(id),
    note         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX triage_events_finding ON triage_events (finding_id, at);

-- Divergences known and accepted: matching findings are still counted, and shown as known.
CREATE TABLE known_divergences (
    id              BIGSERIAL PRIMARY KEY,
    pattern         TEXT NOT NULL,          -- a signature glob: '*' any run of characters
    target_pattern  TEXT NOT NULL DEFAULT '*',
    driver_min      TEXT,                   -- inclusive, compared as dotted versions
    driver_max      TEXT,
    reason          TEXT NOT NULL,
    expires_at      TIMESTAMPTZ,
    created_by      TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A regression: a case with its expected results, re-run by workers on every GPU and driver.
CREATE TABLE regressions (
    id              BIGSERIAL PRIMARY KEY,
    finding_id      BIGINT REFERENCES findings(id),
    title           TEXT NOT NULL,
    program         JSONB NOT NULL,         -- ptx::program JSON, validated by the server
    program_text    TEXT NOT NULL,
    inputs          TEXT[] NOT NULL,        -- hex
    expected        TEXT[] NOT NULL,        -- the interpreter's allowed sets, as eval --accept prints
    sm              INTEGER NOT NULL,
    created_by      TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    -- Lease: a worker holds it until `leased_until`; afterwards it is back in the pool.
    leased_by       TEXT,
    leased_until    TIMESTAMPTZ,
    lease_id        UUID,
    last_run_at     TIMESTAMPTZ
);
CREATE INDEX regressions_pool ON regressions (last_run_at NULLS FIRST, id);

-- One run of a regression on one GPU/driver/interpreter commit.
CREATE TABLE regression_runs (
    id                  BIGSERIAL PRIMARY KEY,
    regression_id       BIGINT NOT NULL REFERENCES regressions(id),
    lease_id            UUID NOT NULL UNIQUE,   -- one result per lease: retries are idempotent
    at                  TIMESTAMPTZ NOT NULL DEFAULT now(),
    worker              TEXT NOT NULL,
    target              TEXT NOT NULL,
    gpu_name            TEXT NOT NULL,
    driver_version      TEXT NOT NULL,
    interpreter_commit  TEXT NOT NULL,
    passed              BOOLEAN NOT NULL,
    actual              TEXT[] NOT NULL,
    message             TEXT NOT NULL DEFAULT ''
);
CREATE INDEX regression_runs_matrix ON regression_runs (regression_id, gpu_name, driver_version, at DESC);
