-- The list filter on the whole instruction (`GET /api/v1/findings?instruction=fma.rn.f64`) had no
-- index of its own: at 1 M findings, combined with a weak filter (sm, status) PostgreSQL walked
-- that filter's index in list order and dropped ~24,000 rows per page (190 ms, docs/benchmarks.md
-- "Service"). With this one it reads the instruction's findings in list order (< 1 ms).
CREATE INDEX findings_instruction ON findings (instruction, last_seen DESC, id DESC);
