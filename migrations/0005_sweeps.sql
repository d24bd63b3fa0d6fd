-- Dashboard support (issue 7): sweep and math-check reports, and the overview's counters.

-- One report of `ptxfuzz sweep INSTR` or `ptxfuzz math-check FUNC` (api::sweeps::SweepReport).
-- The page and `GET /api/v1/sweeps` show the latest per (kind, name, target).
CREATE TABLE sweeps (
    id                  BIGSERIAL PRIMARY KEY,
    kind                TEXT NOT NULL CHECK (kind IN ('sweep', 'math-check')),
    name                TEXT NOT NULL,          -- 'rcp.approx.f32', 'sinf'
    target              TEXT NOT NULL,          -- engine spec ('cuda:0', 'interp')
    device              TEXT NOT NULL DEFAULT '',
    gpu_name            TEXT,
    driver_version      TEXT,
    interpreter_commit  TEXT NOT NULL,
    flags               TEXT NOT NULL DEFAULT '',
    inputs              BIGINT NOT NULL,
    exhaustive          BOOLEAN NOT NULL DEFAULT false,
    mismatches          BIGINT NOT NULL,
    max_ulps            NUMERIC(20, 0) NOT NULL, -- u64
    histogram           JSONB NOT NULL,         -- [{"label": "4-7", "lo": 4, "count": 12}, ...]
    bound_text          TEXT[] NOT NULL,
    bound_ulps          BIGINT,                 -- the documented bound in ulps, when it is one
    reported_by         TEXT NOT NULL,          -- the token's name
    at                  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX sweeps_latest ON sweeps (kind, name, target, at DESC, id DESC);
CREATE INDEX sweeps_at ON sweeps (at DESC, id DESC);

-- The overview's counts: findings per (status, opcode, day of first_seen), kept by triggers so
-- that the overview reads a few thousand rows instead of grouping every finding. Measured on a
-- scratch database with 1 M findings: GROUP BY status/opcode/day over `findings` takes
-- 250-550 ms each (index-only scans too: every row is visited), this table a few ms. Its size
-- grows with days x statuses x opcodes (at most 7 x the instruction families per day).
--
-- Inserts are counted per statement (the ingest inserts a batch's findings in one statement),
-- upserting in key order, so concurrent ingests lock counter rows in the same order and cannot
-- deadlock; a status change (triage, one row) moves one count between two rows.
CREATE TABLE finding_counts (
    status  TEXT NOT NULL,
    opcode  TEXT NOT NULL,
    day     DATE NOT NULL,
    n       BIGINT NOT NULL,
    PRIMARY KEY (status, opcode, day)
);
CREATE INDEX finding_counts_day ON finding_counts (day);

INSERT INTO finding_counts (status, opcode, day, n)
SELECT status, opcode, (first_seen AT TIME ZONE 'UTC')::date, count(*) FROM findings GROUP BY 1, 2, 3;

CREATE FUNCTION finding_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO finding_counts AS c (status, opcode, day, n)
    SELECT status, opcode, (first_seen AT TIME ZONE 'UTC')::date, count(*)
    FROM new_rows GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (status, opcode, day) DO UPDATE SET n = c.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION finding_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE finding_counts c SET n = c.n - d.n
    FROM (SELECT status, opcode, (first_seen AT TIME ZONE 'UTC')::date AS day, count(*) AS n
          FROM old_rows GROUP BY 1, 2, 3) d
    WHERE (c.status, c.opcode, c.day) = (d.status, d.opcode, d.day);
    RETURN NULL;
END $$;

CREATE FUNCTION finding_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE finding_counts SET n = n - 1
    WHERE (status, opcode, day) = (OLD.status, OLD.opcode, (OLD.first_seen AT TIME ZONE 'UTC')::date);
    INSERT INTO finding_counts AS c (status, opcode, day, n)
    VALUES (NEW.status, NEW.opcode, (NEW.first_seen AT TIME ZONE 'UTC')::date, 1)
    ON CONFLICT (status, opcode, day) DO UPDATE SET n = c.n + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER finding_counts_insert AFTER INSERT ON findings
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION finding_counts_insert();
CREATE TRIGGER finding_counts_delete AFTER DELETE ON findings
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION finding_counts_delete();
CREATE TRIGGER finding_counts_update AFTER UPDATE OF status, opcode, first_seen ON findings
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.opcode IS DISTINCT FROM NEW.opcode
                       OR OLD.first_seen IS DISTINCT FROM NEW.first_seen)
    EXECUTE FUNCTION finding_counts_update();

-- The overview's live campaigns and recent regression runs.
CREATE INDEX campaigns_live ON campaigns (last_heartbeat_at DESC) WHERE ended_at IS NULL;
CREATE INDEX regression_runs_at ON regression_runs (at DESC);
