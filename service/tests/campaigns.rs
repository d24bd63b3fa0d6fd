//! Campaigns: idempotent registration, heartbeats (counters only grow, the end is recorded
//! once), the newest-first list and its cursor.

use std::collections::HashSet;

use api::campaigns::{Campaign, CampaignPage, Counters, Heartbeat};
use crate::common::*;
use crate::support::reports::*;
use serde_json::json;

#[tokio::test]
async fn registering_is_idempotent_and_another_body_conflicts() {
    let s = TestServer::start().await;
    let id = uuid::Uuid::new_v4();
    let body = campaign("550.54");
    let path = format!("/api/v1/campaigns/{id}");
    let r = s.put(&path, &s.worker).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let created: Campaign = r.json().await.unwrap();
    assert_eq!((created.id, created.start.seed, created.counters), (id, Some(u64::MAX - 1), Counters::default()));
    let r = s.put(&path, &s.worker).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200, "the same body again is a retry");
    let again: Campaign = r.json().await.unwrap();
    assert_eq!(again, created);
    let mut other = body.clone();
    other.driver_version = Some("560.1".into());
    let d = expect_problem(s.put(&path, &s.worker).json(&other).send().await.unwrap(), 409).await;
    assert!(d.contains("new id"), "{d}");
    let got: Campaign = s.get(&path).send().await.unwrap().json().await.unwrap();
    assert_eq!(got, created);
}

#[tokio::test]
async fn heartbeats_keep_the_largest_counters_and_record_the_end_once() {
    let s = TestServer::start().await;
    let id = uuid::Uuid::new_v4();
    s.put(&format!("/api/v1/campaigns/{id}"), &s.worker).json(&campaign("550.54")).send().await.unwrap();
    let hb = |cases: u64, findings: u64, ended: bool| Heartbeat {
        counters: Counters {
            cases,
            programs: cases / 10,
            mismatches: 5,
            findings,
            signatures: 2,
            engine_faults: 0,
            cases_isa: cases - cases / 10,
            cases_compiled: cases / 10,
        },
        ended,
    };
    let path = format!("/api/v1/campaigns/{id}/heartbeat");
    let send = |h: Heartbeat| s.post(&path, &s.worker).json(&h).send();
    let c: Campaign = send(hb(1000, 3, false)).await.unwrap().json().await.unwrap();
    assert_eq!((c.counters.cases, c.counters.findings, c.ended_at), (1000, 3, None));
    // A late, replayed heartbeat moves nothing back.
    let c: Campaign = send(hb(500, 4, false)).await.unwrap().json().await.unwrap();
    assert_eq!((c.counters.cases, c.counters.programs, c.counters.findings), (1000, 100, 4));
    assert_eq!((c.counters.cases_isa, c.counters.cases_compiled), (900, 100), "per-mode counts are kept like the others");
    let ended: Campaign = send(hb(2000, 4, true)).await.unwrap().json().await.unwrap();
    let end = ended.ended_at.expect("ended");
    assert_eq!(ended.counters.cases, 2000);
    let later: Campaign = send(hb(2001, 4, true)).await.unwrap().json().await.unwrap();
    assert_eq!(later.ended_at, Some(end), "the end is recorded once");
    assert!(later.last_heartbeat_at >= ended.last_heartbeat_at);
    let r = s.post(&path, &s.worker).json(&json!({"counters": {"cases": 1}})).send().await.unwrap();
    expect_problem(r, 400).await;
    // A worker older than the execution modes sends no per-mode counts: they stay as they are.
    let old = json!({"counters": {"cases": 3000, "programs": 300, "mismatches": 5, "findings": 4, "signatures": 2, "engine_faults": 0}});
    let c: Campaign = s.post(&path, &s.worker).json(&old).send().await.unwrap().json().await.unwrap();
    assert_eq!((c.counters.cases, c.counters.cases_isa, c.counters.cases_compiled), (3000, 1801, 200));
}

#[tokio::test]
async fn heartbeat_of_an_unknown_campaign_is_404_saying_to_register() {
    let s = TestServer::start().await;
    let id = uuid::Uuid::new_v4();
    let hb = Heartbeat { counters: Counters::default(), ended: false };
    let r = s.post(&format!("/api/v1/campaigns/{id}/heartbeat"), &s.worker).json(&hb).send().await.unwrap();
    let d = expect_problem(r, 404).await;
    assert!(d.contains("PUT /api/v1/campaigns"), "{d}");
    expect_problem(s.get(&format!("/api/v1/campaigns/{id}")).send().await.unwrap(), 404).await;
    expect_problem(s.get("/api/v1/campaigns/not-a-uuid").send().await.unwrap(), 400).await;
}

#[tokio::test]
async fn list_is_newest_first_and_pages_through_everything_once() {
    let s = TestServer::start().await;
    let base = chrono::Utc::now();
    let mut ids = Vec::new();
    for k in 0..7i64 {
        let id = uuid::Uuid::new_v4();
        let mut body = campaign("550.54");
        // Two campaigns per start time: the id breaks the tie.
        body.started_at = base + chrono::Duration::seconds(k / 2);
        let r = s.put(&format!("/api/v1/campaigns/{id}"), &s.worker).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 201);
        ids.push(id);
    }
    let mut seen: Vec<Campaign> = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let q = next.as_ref().map(|c| format!("&after={c}")).unwrap_or_default();
        let p: CampaignPage = s.get(&format!("/api/v1/campaigns?limit=3{q}")).send().await.unwrap().json().await.unwrap();
        seen.extend(p.items);
        match p.next {
            Some(n) => next = Some(n),
            None => break,
        }
    }
    assert_eq!(seen.len(), 7);
    assert_eq!(seen.iter().map(|c| c.id).collect::<HashSet<_>>(), ids.iter().copied().collect());
    assert!(seen.windows(2).all(|w| (w[0].start.started_at, w[0].id) > (w[1].start.started_at, w[1].id)));
    expect_problem(s.get("/api/v1/campaigns?after=nope").send().await.unwrap(), 400).await;
    expect_problem(s.get("/api/v1/campaigns?limit=9999").send().await.unwrap(), 400).await;
}

#[tokio::test]
async fn bad_campaign_bodies_are_4xx() {
    let s = TestServer::start().await;
    let path = format!("/api/v1/campaigns/{}", uuid::Uuid::new_v4());
    let mut body = serde_json::to_value(campaign("1")).unwrap();
    body["colour"] = json!("red");
    expect_problem(s.put(&path, &s.worker).json(&body).send().await.unwrap(), 400).await;
    let mut c = campaign("1");
    c.sm = Some(u32::MAX);
    expect_problem(s.put(&path, &s.worker).json(&c).send().await.unwrap(), 422).await;
    let mut c = campaign("1");
    c.worker_host = "a\0b".into();
    expect_problem(s.put(&path, &s.worker).json(&c).send().await.unwrap(), 422).await;
}
