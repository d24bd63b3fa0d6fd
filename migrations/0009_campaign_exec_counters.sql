-- Cases per execution mode (issue #12): a campaign on a GPU runs most programs on the
-- instruction VM (isa) and a share whole-program compiled; heartbeats carry each mode's
-- absolute count, kept like the other counters (the largest seen). Older workers send
-- neither: 0.
ALTER TABLE campaigns
    ADD COLUMN cases_isa BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN cases_compiled BIGINT NOT NULL DEFAULT 0;
