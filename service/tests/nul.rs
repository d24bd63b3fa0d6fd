//! A NUL character (`\u0000`) in any JSON string is refused with a 422 naming the field, on
//! every endpoint that takes a body: PostgreSQL text cannot store NUL, so before the check in
//! `http::Json` these reached an INSERT and came back as a 500 `database error`.

use crate::common::*;

use api::regressions::Leased;
use serde_json::{json, Value};

const ADD: &str = "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n";

/// `body` with the string at `field` (a top-level key) replaced by one holding a NUL.
fn with_nul(body: &Value, field: &str) -> Value {
    let mut b = body.clone();
    b[field] = json!("a\u{0}b");
    b
}

async fn refused(r: reqwest::Response, field: &str) {
    let detail = expect_problem(r, 422).await;
    assert!(detail.starts_with(&format!("{field}: contains a NUL character")), "{field}: {detail}");
}

#[tokio::test]
async fn a_nul_in_a_lease_request_worker_is_a_422_naming_it() {
    let s = TestServer::start().await;
    let body = json!({"worker": "w", "max": 1, "lease_seconds": 10});
    refused(s.post("/api/v1/leases", &s.worker).json(&with_nul(&body, "worker")).send().await.unwrap(), "worker").await;
}

#[tokio::test]
async fn a_nul_in_a_lease_result_is_a_422_naming_the_field() {
    let s = TestServer::start().await;
    let filed = json!({"source": {"raw": {"program": ADD, "inputs": ["0x3f800000", "0x3f800000"]}}});
    assert_eq!(s.post("/api/v1/regressions", &s.triager).json(&filed).send().await.unwrap().status(), 201);
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "w", "max": 1, "lease_seconds": 60})).send().await.unwrap();
    let leases: Vec<Leased> = r.json().await.unwrap();
    let path = format!("/api/v1/leases/{}/result", leases[0].lease_id);
    let body = json!({"worker": "w", "target": "cuda:0", "gpu_name": "H100", "driver_version": "550.54.14",
                      "interpreter_commit": "abc", "passed": true, "actual": ["0x40000000"], "message": "ok"});
    for field in ["worker", "gpu_name", "message"] {
        refused(s.post(&path, &s.worker).json(&with_nul(&body, field)).send().await.unwrap(), field).await;
    }
    // Nothing was stored: the clean result is still the first one.
    assert_eq!(s.post(&path, &s.worker).json(&body).send().await.unwrap().status(), 201);
}

#[tokio::test]
async fn a_nul_in_a_regression_title_is_a_422_naming_it() {
    let s = TestServer::start().await;
    let body = json!({"title": "t", "source": {"raw": {"program": ADD, "inputs": ["0x0", "0x0"]}}});
    refused(s.post("/api/v1/regressions", &s.triager).json(&with_nul(&body, "title")).send().await.unwrap(), "title").await;
    // Nested strings are named by their path.
    let mut nested = body.clone();
    nested["source"]["raw"]["inputs"][1] = json!("0x\u{0}");
    refused(s.post("/api/v1/regressions", &s.triager).json(&nested).send().await.unwrap(), "source.raw.inputs[1]").await;
}

#[tokio::test]
async fn a_nul_in_a_known_divergence_is_a_422_naming_the_field() {
    let s = TestServer::start().await;
    let body = json!({"pattern": "add.rz.*", "target_pattern": "*", "reason": "accepted"});
    for field in ["pattern", "reason", "target_pattern"] {
        let r = s.post("/api/v1/known-divergences", &s.triager).json(&with_nul(&body, field)).send().await.unwrap();
        refused(r, field).await;
    }
    assert_eq!(s.post("/api/v1/known-divergences", &s.triager).json(&body).send().await.unwrap().status(), 201);
}

#[tokio::test]
async fn an_escaped_backslash_before_u0000_is_text_not_a_nul() {
    let s = TestServer::start().await;
    let body = json!({"pattern": "add.rz.*", "target_pattern": "*", "reason": "the text \\u0000 is fine"});
    let r = s.post("/api/v1/known-divergences", &s.triager).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 201);
}
