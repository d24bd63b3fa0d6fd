//! Root-cause clusters on the H100 campaign (../shared/hw/h100-sm90/campaign-60s.tar.gz, 281
//! finding folders): assigned at import, listed and read by the API, the findings list's
//! `cluster` filter, idempotent re-import, `recluster` restoring the assignment, cluster
//! triage, and the 4xx answers to bad input.

use std::collections::{BTreeMap, BTreeSet};

use api::findings::{FindingDetail, FindingPage, FindingSummary, Status};
use crate::common::*;
use crate::support::private_server::{campaign, Tmp};
use service::db::clusters::recluster::recluster;
use service::db::clusters::{Cluster, ClusterPage};

async fn all_findings(s: &TestServer, query: &str) -> Vec<FindingSummary> {
    let mut items = Vec::new();
    let mut after = String::new();
    loop {
        let page: FindingPage =
            s.get(&format!("/api/v1/findings?limit=100{query}{after}")).send().await.unwrap().json().await.unwrap();
        items.extend(page.items);
        match page.next {
            Some(n) => after = format!("&after={n}"),
            None => return items,
        }
    }
}

async fn all_clusters(s: &TestServer) -> Vec<Cluster> {
    let mut items = Vec::new();
    let mut after = String::new();
    loop {
        // limit=3: the test pages through the clusters too.
        let r = s.get(&format!("/api/v1/clusters?limit=3{after}")).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        let page: ClusterPage = r.json().await.unwrap();
        items.extend(page.items);
        match page.next {
            Some(n) => after = format!("&after={n}"),
            None => return items,
        }
    }
}

/// signature -> cluster key, from the API.
async fn assignment(s: &TestServer) -> BTreeMap<String, String> {
    let keys: BTreeMap<i64, String> = all_clusters(s).await.into_iter().map(|c| (c.id, c.key)).collect();
    all_findings(s, "")
        .await
        .into_iter()
        .map(|f| {
            let id = f.cluster_id.unwrap_or_else(|| panic!("{} has no cluster_id", f.signature));
            (f.signature, keys[&id].clone())
        })
        .collect()
}

fn bf16_directed_fma(f: &FindingSummary) -> bool {
    f.opcode == "fma"
        && (f.ty == "bf16" || f.ty == "bf16x2")
        && f.modifiers.iter().any(|m| ["rz", "rm", "rp"].contains(&m.as_str()))
}

#[tokio::test]
async fn the_h100_campaign_imports_into_few_clusters_that_recluster_restores_and_triage_moves_whole() {
    let tmp = Tmp::new("clusters");
    let out = campaign(&tmp);
    let s = TestServer::start().await;
    let first = service::import::import(&s.pool, &out).await.unwrap();
    assert_eq!((first.folders, first.new), (281, 281));

    let findings = all_findings(&s, "").await;
    assert_eq!(findings.len(), 281);
    let clusters = all_clusters(&s).await;
    for c in &clusters {
        println!("{:4} {:4} {:40} {}", c.id, c.signatures, c.key, c.explanation.example.decimal);
    }
    assert!(!clusters.is_empty() && clusters.len() <= 12, "{} clusters", clusters.len());
    assert_eq!(clusters.iter().map(|c| c.signatures).sum::<i64>(), 281);
    let by_id: BTreeMap<i64, &Cluster> = clusters.iter().map(|c| (c.id, c)).collect();
    // Every bf16 directed-rounding fma finding is explained as ptxas 13.5 lowers its form
    // (docs/triage.md): a scalar one computed as f16 (through f32), a packed one as bf16
    // rounded to nearest.
    let (mut scalar, mut packed) = (0, 0);
    for f in &findings {
        let c = by_id[&f.cluster_id.unwrap_or_else(|| panic!("{} has no cluster_id", f.signature))];
        if bf16_directed_fma(f) {
            let (want, n) = if f.ty == "bf16" { ("bf16-as-f16", &mut scalar) } else { ("other-rounding", &mut packed) };
            assert_eq!(c.explanation.model.as_deref(), Some(want), "{} is in {}", f.signature, c.key);
            assert_eq!(c.key, format!("{want}~fma.bf16"));
            *n += 1;
        }
    }
    assert_eq!((scalar, packed), (213, 62));
    let big = clusters.iter().max_by_key(|c| c.signatures).unwrap();
    assert_eq!((big.key.as_str(), big.signatures), ("bf16-as-f16~fma.bf16", 213));
    assert!(big.explanation.example.hex.contains("0x") && big.explanation.example.hex.starts_with("fma."), "{:?}", big.explanation);
    assert!(big.explanation.sentence.contains("computed as f16"), "the explanation says computed as f16: {}", big.explanation.sentence);
    assert!(big.forms.iter().all(|f| f.ends_with(".bf16")), "{:?}", big.forms);
    assert!(big.first_seen.is_some() && big.first_seen <= big.last_seen);
    // The findings list's cluster filter lists exactly the cluster's findings.
    for c in &clusters {
        let members = all_findings(&s, &format!("&cluster={}", c.id)).await;
        assert_eq!(members.len() as i64, c.signatures, "{}", c.key);
        assert!(members.iter().all(|f| f.cluster_id == Some(c.id)));
    }
    let one: Cluster = s.get(&format!("/api/v1/clusters/{}", big.id)).send().await.unwrap().json().await.unwrap();
    assert_eq!(&one, big);

    // Importing again adds nothing: no finding, no cluster, the same assignment.
    let before = assignment(&s).await;
    let again = service::import::import(&s.pool, &out).await.unwrap();
    assert_eq!((again.new, again.present), (0, 281));
    assert_eq!(all_clusters(&s).await.len(), clusters.len());
    assert_eq!(assignment(&s).await, before);

    // Recluster, from nothing and in small batches, restores the same assignment.
    sqlx::query("UPDATE findings SET cluster_id = NULL").execute(&s.pool).await.unwrap();
    sqlx::query("DELETE FROM clusters").execute(&s.pool).await.unwrap();
    let mut batches = 0;
    let p = recluster(&s.pool, 50, |_| batches += 1).await.unwrap();
    assert_eq!((p.findings, p.moved, p.clusters_before, p.clusters_after), (281, 281, 0, clusters.len() as i64));
    assert_eq!(batches, 6);
    assert_eq!(assignment(&s).await, before);
    // A second recluster moves nothing and removes a cluster left empty.
    sqlx::query("INSERT INTO clusters (key, title, sentence, example_hex, example_decimal) VALUES ('unexplained~x~y', 't', 's', 'h', 'd')")
        .execute(&s.pool)
        .await
        .unwrap();
    let p = recluster(&s.pool, 1000, |_| {}).await.unwrap();
    assert_eq!((p.moved, p.removed, p.clusters_after), (0, 1, clusters.len() as i64));

    // Triage of a cluster sets every one of its findings' status, and only theirs.
    let clusters = all_clusters(&s).await;
    let small = clusters.iter().filter(|c| c.signatures > 1).min_by_key(|c| c.signatures).unwrap();
    let body = serde_json::json!({ "status": "confirmed-hardware", "note": "the whole family" });
    let r = s.post(&format!("/api/v1/clusters/{}/triage", small.id), &s.worker).json(&body).send().await.unwrap();
    expect_problem(r, 403).await;
    let r = s.post(&format!("/api/v1/clusters/{}/triage", small.id), &s.triager).json(&body).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let after: Cluster = r.json().await.unwrap();
    assert_eq!(after.status, Status::ConfirmedHardware);
    let findings = all_findings(&s, "").await;
    let changed: BTreeSet<i64> =
        findings.iter().filter(|f| f.status == Status::ConfirmedHardware).map(|f| f.id).collect();
    let members: BTreeSet<i64> = findings.iter().filter(|f| f.cluster_id == Some(small.id)).map(|f| f.id).collect();
    assert_eq!(changed, members);
    let id = *members.iter().next().unwrap();
    let d: FindingDetail = s.get(&format!("/api/v1/findings/{id}")).send().await.unwrap().json().await.unwrap();
    let e = d.history.last().unwrap();
    assert_eq!((e.actor.as_str(), e.to, e.note.as_str()), ("test-triager", Status::ConfirmedHardware, "the whole family"));
    let listed: ClusterPage =
        s.get("/api/v1/clusters?status=confirmed-hardware").send().await.unwrap().json().await.unwrap();
    assert_eq!(listed.items.iter().map(|c| c.id).collect::<Vec<_>>(), [small.id]);

    // A known divergence for one cluster marks its findings, and only theirs (without the
    // shipped H100 rules, which cover most of this campaign by signature).
    sqlx::query("DELETE FROM known_divergences").execute(&s.pool).await.unwrap();
    let rule = serde_json::json!({ "pattern": "*", "reason": "seen on the H100", "cluster": small.id });
    let r = s.post("/api/v1/known-divergences", &s.triager).json(&rule).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let k: api::findings::KnownDivergence = r.json().await.unwrap();
    assert_eq!(k.rule.cluster, Some(small.id));
    let known: BTreeSet<i64> = all_findings(&s, "").await.iter().filter(|f| f.known == Some(k.id)).map(|f| f.id).collect();
    assert_eq!(known, members);
    let nowhere = serde_json::json!({ "pattern": "*", "reason": "r", "cluster": 999999 });
    let r = s.post("/api/v1/known-divergences", &s.triager).json(&nowhere).send().await.unwrap();
    assert!(expect_problem(r, 422).await.contains("cluster 999999"));
}

#[tokio::test]
async fn unknown_clusters_are_404_and_bad_parameters_400() {
    let s = TestServer::start().await;
    let r = s.get("/api/v1/clusters/999999").send().await.unwrap();
    assert!(expect_problem(r, 404).await.contains("999999"));
    let body = serde_json::json!({ "status": "fixed" });
    let r = s.post("/api/v1/clusters/999999/triage", &s.triager).json(&body).send().await.unwrap();
    expect_problem(r, 404).await;
    for bad in ["/api/v1/clusters/abc", "/api/v1/clusters?status=bogus", "/api/v1/clusters?after=x", "/api/v1/clusters?limit=0",
        "/api/v1/clusters?color=red", "/api/v1/findings?cluster=abc"]
    {
        let r = s.get(bad).send().await.unwrap();
        expect_problem(r, 400).await;
    }
    let dup = serde_json::json!({ "status": "duplicate" });
    let r = s.post("/api/v1/clusters/1/triage", &s.triager).json(&dup).send().await.unwrap();
    expect_problem(r, 422).await;
    let page: ClusterPage = s.get("/api/v1/clusters").send().await.unwrap().json().await.unwrap();
    assert!(page.items.is_empty() && page.next.is_none());
}

#[tokio::test]
async fn openapi_documents_the_cluster_routes_and_the_findings_cluster_filter() {
    let s = TestServer::start().await;
    let doc: serde_json::Value = s.get("/api/openapi.json").send().await.unwrap().json().await.unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for (path, method) in
        [("/api/v1/clusters", "get"), ("/api/v1/clusters/{id}", "get"), ("/api/v1/clusters/{id}/triage", "post")]
    {
        assert!(paths.get(path).and_then(|p| p.get(method)).is_some(), "{method} {path} missing");
    }
    let params = crate::common::get_parameters(&doc, "/api/v1/findings");
    assert!(params.contains(&"cluster"), "{params:?}");
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for name in ["Cluster", "ClusterPage", "ClusterTriage", "ClusterExplanation", "WorkedExample"] {
        assert!(schemas.contains_key(name), "schema {name} missing");
    }
    assert!(schemas["FindingSummary"]["properties"].get("cluster_id").is_some());
}
