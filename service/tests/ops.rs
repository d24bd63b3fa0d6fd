//! Ops endpoints and the behaviour every endpoint shares: health, metrics, the OpenAPI
//! document, problem+json for unknown paths.

mod common;
use common::*;

#[tokio::test]
async fn healthz_answers_ok_when_the_database_does() {
    let s = TestServer::start().await;
    let r = s.get("/healthz").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "ok\n");
}

#[tokio::test]
async fn unknown_path_is_a_problem_404() {
    let s = TestServer::start().await;
    let r = s.get("/api/v1/nope").send().await.unwrap();
    let detail = expect_problem(r, 404).await;
    assert!(detail.contains("openapi.json"), "{detail}");
}

#[tokio::test]
async fn metrics_are_prometheus_text() {
    let s = TestServer::start().await;
    let _ = s.get("/healthz").send().await.unwrap();
    let r = s.get("/metrics").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let text = r.text().await.unwrap();
    assert!(text.contains("# TYPE ptxfuzz_http_requests_total counter"), "{text}");
    assert!(text.contains("ptxfuzz_reproducers 0"), "{text}");
}

#[tokio::test]
async fn openapi_document_is_served() {
    let s = TestServer::start().await;
    let doc: serde_json::Value = s.get("/api/openapi.json").send().await.unwrap().json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."), "{doc}");
    assert_eq!(doc["info"]["title"], "ptxfuzz-server");
}
