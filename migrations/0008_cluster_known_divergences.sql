-- A known divergence can cover one root-cause cluster (issue #13: triage applies to a whole
-- cluster): a rule with cluster_id covers the findings of that cluster whose signature also
-- matches its pattern ('*' for all of them). When `recluster` removes an emptied cluster, its
-- rules go with it (the findings now belong to other clusters, which the rule never named).
ALTER TABLE known_divergences ADD COLUMN cluster_id BIGINT REFERENCES clusters (id) ON DELETE CASCADE;
CREATE INDEX known_divergences_cluster ON known_divergences (cluster_id) WHERE cluster_id IS NOT NULL;
