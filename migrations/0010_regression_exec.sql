-- The execution mode a regression runs in (issue #12): a finding found on the instruction VM
-- (isa) is re-run there, one found whole-program compiled is compiled again. Regressions
-- filed before the modes existed were compiled, the only mode there was.
ALTER TABLE regressions
    ADD COLUMN exec TEXT NOT NULL DEFAULT 'compiled' CHECK (exec IN ('compiled', 'isa'));
