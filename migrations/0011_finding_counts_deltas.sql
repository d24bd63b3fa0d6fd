-- The overview's counts are kept by appending deltas, so that keeping them locks nothing.
--
-- Why: 0004's triggers upserted one counter row per (status, opcode, day). Every ingest that
-- inserted findings locked those rows until it committed, and a `first_seen` move (an update of
-- a finding row, whose trigger then locks two counter rows) took the same locks in the other
-- order, so the move had to run apart from the batch, with a short lock_timeout and a bounded
-- number of retries. Under eight concurrent workers on the 2-core CI machine every retry could
-- fail, and `first_seen` was left late (service/tests/concurrency.rs failed in CI on
-- 2026-11-27: first_seen 01:36:52 where the earliest report said 00:58:39).
--
-- Now the triggers only INSERT signed counts into `finding_count_deltas`: no key, no upsert, no
-- row that another transaction can wait for. `db::overview::compact_finding_counts` folds the
-- deltas into `finding_counts` after ingests (one compactor at a time, under an advisory lock;
-- it is the only writer of `finding_counts`, and it moves only the deltas its snapshot sees).
-- A count is the sum of its rows in both tables, which `finding_count_totals` reads.
CREATE TABLE finding_count_deltas (
    status  TEXT NOT NULL,
    opcode  TEXT NOT NULL,
    day     DATE NOT NULL,
    n       BIGINT NOT NULL
);

CREATE VIEW finding_count_totals AS
    SELECT status, opcode, day, n FROM finding_counts
    UNION ALL
    SELECT status, opcode, day, n FROM finding_count_deltas;

CREATE OR REPLACE FUNCTION finding_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO finding_count_deltas (status, opcode, day, n)
    SELECT status, opcode, (first_seen AT TIME ZONE 'UTC')::date, count(*)
    FROM new_rows GROUP BY 1, 2, 3;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION finding_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO finding_count_deltas (status, opcode, day, n)
    SELECT status, opcode, (first_seen AT TIME ZONE 'UTC')::date, -count(*)
    FROM old_rows GROUP BY 1, 2, 3;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION finding_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO finding_count_deltas (status, opcode, day, n)
    VALUES (OLD.status, OLD.opcode, (OLD.first_seen AT TIME ZONE 'UTC')::date, -1),
           (NEW.status, NEW.opcode, (NEW.first_seen AT TIME ZONE 'UTC')::date, 1);
    RETURN NULL;
END $$;
