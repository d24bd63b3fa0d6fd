//! Auth per role on the findings and campaigns endpoints: writes need a token of the right
//! role (401 without one, 403 with another role), reads are public unless the server is
//! private.

use api::campaigns::{Counters, Heartbeat};
use crate::common::*;
use crate::support::reports::*;
use serde_json::json;

#[tokio::test]
async fn ingest_needs_a_worker_token() {
    let s = TestServer::start().await;
    let b = batch(None, vec![report("add.rz.f32~rounding~normal.normal~sm90", 1, 1)]);
    let url = format!("{}/api/v1/findings/batch", s.url);
    expect_problem(s.http.post(&url).json(&b).send().await.unwrap(), 401).await;
    expect_problem(s.http.post(&url).bearer_auth("ptxf_not_a_token").json(&b).send().await.unwrap(), 401).await;
    let d = expect_problem(s.post("/api/v1/findings/batch", &s.triager).json(&b).send().await.unwrap(), 403).await;
    assert!(d.contains("worker"), "{d}");
    assert_eq!(s.post("/api/v1/findings/batch", &s.worker).json(&b).send().await.unwrap().status(), 200);
    assert_eq!(s.post("/api/v1/findings/batch", &s.admin).json(&b).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn triage_needs_a_triager_token() {
    let s = TestServer::start().await;
    let b = batch(None, vec![report("add.rz.f32~rounding~normal.normal~sm90", 1, 1)]);
    s.post("/api/v1/findings/batch", &s.worker).json(&b).send().await.unwrap();
    let body = json!({"status": "wont-fix"});
    let path = "/api/v1/findings/1/triage";
    expect_problem(s.http.post(format!("{}{path}", s.url)).json(&body).send().await.unwrap(), 401).await;
    expect_problem(s.post(path, &s.worker).json(&body).send().await.unwrap(), 403).await;
    assert_eq!(s.post(path, &s.triager).json(&body).send().await.unwrap().status(), 200);
    assert_eq!(s.post(path, &s.admin).json(&body).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn campaign_writes_need_a_worker_token() {
    let s = TestServer::start().await;
    let id = uuid::Uuid::new_v4();
    let path = format!("/api/v1/campaigns/{id}");
    expect_problem(s.http.put(format!("{}{path}", s.url)).json(&campaign("1")).send().await.unwrap(), 401).await;
    expect_problem(s.put(&path, &s.triager).json(&campaign("1")).send().await.unwrap(), 403).await;
    assert_eq!(s.put(&path, &s.worker).json(&campaign("1")).send().await.unwrap().status(), 201);
    let hb = Heartbeat { counters: Counters::default(), ended: false };
    let hb_path = format!("{path}/heartbeat");
    expect_problem(s.post(&hb_path, &s.triager).json(&hb).send().await.unwrap(), 403).await;
    assert_eq!(s.post(&hb_path, &s.worker).json(&hb).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn reads_are_public_by_default() {
    let s = TestServer::start().await;
    for path in ["/api/v1/findings", "/api/v1/campaigns"] {
        assert_eq!(s.get(path).send().await.unwrap().status(), 200, "{path}");
    }
}

#[tokio::test]
async fn reads_need_a_token_on_a_private_server() {
    let s = TestServer::start_with(true).await;
    for path in ["/api/v1/findings", "/api/v1/campaigns", "/api/v1/findings/1"] {
        expect_problem(s.get(path).send().await.unwrap(), 401).await;
    }
    for token in [&s.worker, &s.triager, &s.admin] {
        let r = s.get("/api/v1/findings").bearer_auth(token).send().await.unwrap();
        assert_eq!(r.status(), 200);
    }
    let r = s.get("/api/v1/campaigns").bearer_auth("ptxf_wrong").send().await.unwrap();
    expect_problem(r, 401).await;
}

#[tokio::test]
async fn a_revoked_token_is_refused_and_listed_as_revoked() {
    use service::auth::{create_token, list_tokens, revoke, Role, TokenSelector};
    let s = TestServer::start().await;
    let b = batch(None, vec![report("add.rz.f32~rounding~normal.normal~sm90", 1, 1)]);
    // Two live tokens share a name: revoking by name ends both, and no other.
    let revoked = revoke(&s.pool, &TokenSelector::Name("gpu-host-1".into())).await.unwrap();
    assert_eq!(revoked.len(), 0, "no token of that name yet");
    let twin = create_token(&s.pool, "gpu-host-1", Role::Worker).await.unwrap();
    let first = create_token(&s.pool, "gpu-host-1", Role::Worker).await.unwrap();
    let revoked = revoke(&s.pool, &TokenSelector::Name("gpu-host-1".into())).await.unwrap();
    assert_eq!(revoked.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["gpu-host-1", "gpu-host-1"]);
    assert!(revoked.iter().all(|t| t.role == Role::Worker && t.revoked_at.is_some()), "{revoked:?}");
    for token in [&twin, &first] {
        expect_problem(s.post("/api/v1/findings/batch", token).json(&b).send().await.unwrap(), 401).await;
    }
    assert_eq!(s.post("/api/v1/findings/batch", &s.worker).json(&b).send().await.unwrap().status(), 200);
    // Revoking again finds nothing live; by secret and by id reach one token each.
    assert!(revoke(&s.pool, &TokenSelector::Name("gpu-host-1".into())).await.unwrap().is_empty());
    let by_secret = revoke(&s.pool, &TokenSelector::Secret(s.triager.clone())).await.unwrap();
    assert_eq!(by_secret.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["test-triager"]);
    let admin_id = list_tokens(&s.pool).await.unwrap().into_iter().find(|t| t.name == "test-admin").unwrap().id;
    assert_eq!(revoke(&s.pool, &TokenSelector::Id(admin_id)).await.unwrap()[0].id, admin_id);
    assert!(revoke(&s.pool, &TokenSelector::Id(admin_id)).await.unwrap().is_empty());
    let live: Vec<_> = list_tokens(&s.pool).await.unwrap().into_iter().filter(|t| t.revoked_at.is_none()).map(|t| t.name).collect();
    assert_eq!(live, ["test-worker"]);
    assert_eq!(list_tokens(&s.pool).await.unwrap().len(), 5, "revoked tokens stay listed");
}
