-- Root-cause clusters (docs/triage.md): a finding belongs to one cluster, keyed by its
-- explanation and the family it applies to (api::cluster::ClusterKey::key), or, unexplained,
-- by its form and mismatch class. Assigned at ingest; `ptxfuzz-server recluster` recomputes
-- every finding's cluster when the catalogue changes. Counts, first/last seen, forms and
-- devices are read from the cluster's findings, so they never drift from them.
CREATE TABLE clusters (
    id              BIGSERIAL PRIMARY KEY,
    key             TEXT NOT NULL UNIQUE,   -- 'bf16-as-f16~fma.bf16', 'unexplained~add.rn.f32~gross'
    explanation     TEXT,                   -- ptx::explain catalogue id; NULL: unexplained
    title           TEXT NOT NULL,
    sentence        TEXT NOT NULL,          -- the explanation in words
    example_hex     TEXT NOT NULL,          -- one worked example, from the cluster's first finding
    example_decimal TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'new' CHECK (status IN
                      ('new', 'confirmed-hardware', 'interpreter-bug', 'spec-ambiguity',
                       'wont-fix', 'fixed')),
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

ALTER TABLE findings ADD COLUMN cluster_id BIGINT REFERENCES clusters(id);
CREATE INDEX findings_cluster ON findings (cluster_id, last_seen DESC, id DESC);
