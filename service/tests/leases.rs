//! Leasing regression work: concurrent workers never share a regression, an expired lease
//! returns to the pool, each lease takes one result (retries are no-ops, late results after a
//! re-lease are refused), the server re-judges results, and the matrix shows fixes.

use crate::common::*;

use std::collections::HashSet;

use api::regressions::{Leased, Regression, RegressionRun};
use serde_json::json;

const ADD: &str = "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n";

/// File `n` regressions of 1.0 + x (x = 1.0, 2.0, ...); the sum's bits are `sum_bits(i)`.
async fn file(s: &TestServer, n: usize) -> Vec<Regression> {
    let mut out = Vec::new();
    for i in 0..n {
        let x = format!("0x{:08x}", (1.0f32 + i as f32).to_bits());
        let body = json!({"source": {"raw": {"program": ADD, "inputs": ["0x3f800000", x]}}});
        let r = s.post("/api/v1/regressions", &s.triager).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 201);
        out.push(r.json().await.unwrap());
    }
    out
}

fn sum_hex(i: usize) -> String {
    format!("0x{:08x}", (2.0f32 + i as f32).to_bits())
}

async fn lease(s: &TestServer, worker: &str, max: u32) -> Vec<Leased> {
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": worker, "max": max, "lease_seconds": 10})).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

fn result(gpu: &str, driver: &str, passed: bool, actual: &[String]) -> serde_json::Value {
    json!({"worker": "w1", "target": "cuda:0", "gpu_name": gpu, "driver_version": driver,
           "interpreter_commit": "abc123", "passed": passed, "actual": actual})
}

async fn post_result(s: &TestServer, lease: &Leased, body: &serde_json::Value) -> reqwest::Response {
    s.post(&format!("/api/v1/leases/{}/result", lease.lease_id), &s.worker).json(body).send().await.unwrap()
}

/// Expire every lease now (instead of sleeping out lease_seconds).
async fn expire_leases(s: &TestServer) {
    sqlx::query("UPDATE regressions SET leased_until = now() - interval '1 second' WHERE lease_id IS NOT NULL")
        .execute(&s.pool)
        .await
        .unwrap();
}

#[tokio::test]
async fn concurrent_workers_never_lease_the_same_regression() {
    let s = TestServer::start().await;
    let filed = file(&s, 30).await;
    let mut tasks = Vec::new();
    for w in 0..8 {
        let (url, token) = (s.url.clone(), s.worker.clone());
        tasks.push(tokio::spawn(async move {
            let c = reqwest::Client::new();
            let r = c.post(format!("{url}/api/v1/leases")).bearer_auth(token)
                .json(&json!({"worker": format!("w{w}"), "max": 6, "lease_seconds": 60}))
                .send().await.unwrap();
            assert_eq!(r.status(), 200);
            r.json::<Vec<Leased>>().await.unwrap()
        }));
    }
    let mut ids = Vec::new();
    let mut leases = HashSet::new();
    for t in tasks {
        for l in t.await.unwrap() {
            ids.push(l.regression_id);
            assert!(leases.insert(l.lease_id));
        }
    }
    let unique: HashSet<i64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "a regression was leased twice: {ids:?}");
    // 8 x 6 asked for 30 free: all of them are out, and nothing is left for a ninth worker.
    assert_eq!(unique, filed.iter().map(|r| r.id).collect());
    assert!(lease(&s, "late", 10).await.is_empty());
}

#[tokio::test]
async fn leased_work_carries_program_and_expectation() {
    let s = TestServer::start().await;
    let filed = file(&s, 1).await;
    let l = lease(&s, "w1", 5).await;
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].regression_id, filed[0].id);
    assert_eq!(l[0].expected, filed[0].expected);
    assert_eq!(l[0].inputs, filed[0].inputs);
    assert_eq!(l[0].sm, filed[0].sm);
    let p = ptx::program::Program::from_json(&l[0].program.to_string()).unwrap();
    assert_eq!(p.to_string(), filed[0].program_text);
    assert!(l[0].leased_until > chrono::Utc::now());
}

#[tokio::test]
async fn an_expired_lease_returns_the_regression_to_the_pool() {
    let s = TestServer::start().await;
    file(&s, 2).await;
    let first = lease(&s, "dead-worker", 10).await;
    assert_eq!(first.len(), 2);
    assert!(lease(&s, "w2", 10).await.is_empty(), "held leases are not handed out");
    expire_leases(&s).await;
    let again = lease(&s, "w2", 10).await;
    assert_eq!(again.len(), 2);
    let old: HashSet<_> = first.iter().map(|l| l.lease_id).collect();
    assert!(again.iter().all(|l| !old.contains(&l.lease_id)), "a new lease gets a new id");
}

#[tokio::test]
async fn a_retried_result_is_a_no_op_returning_the_same_run() {
    let s = TestServer::start().await;
    file(&s, 1).await;
    let l = &lease(&s, "w1", 1).await[0];
    let body = result("H100", "550.54", true, &[sum_hex(0)]);
    let r = post_result(&s, l, &body).await;
    assert_eq!(r.status(), 201);
    let run: RegressionRun = r.json().await.unwrap();
    assert!(run.passed);
    assert_eq!(run.lease_id, l.lease_id);
    let r = post_result(&s, l, &body).await;
    assert_eq!(r.status(), 200);
    let again: RegressionRun = r.json().await.unwrap();
    assert_eq!(again, run);
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM regression_runs").fetch_one(&s.pool).await.unwrap();
    assert_eq!(n, 1);
    // The lease is cleared and the regression ran: it is free again, at the back of the queue.
    let (leased, ran): (Option<uuid::Uuid>, bool) =
        sqlx::query_as("SELECT lease_id, last_run_at IS NOT NULL FROM regressions").fetch_one(&s.pool).await.unwrap();
    assert_eq!((leased, ran), (None, true));
    assert_eq!(lease(&s, "w2", 1).await.len(), 1);
}

#[tokio::test]
async fn a_late_result_for_a_re_leased_regression_is_a_conflict() {
    let s = TestServer::start().await;
    file(&s, 1).await;
    let old = lease(&s, "slow", 1).await.remove(0);
    expire_leases(&s).await;
    let new = lease(&s, "fast", 1).await.remove(0);
    let by = |worker: &str| {
        let mut b = result("H100", "550.54", true, &[sum_hex(0)]);
        b["worker"] = worker.into();
        b
    };
    let d = expect_problem(post_result(&s, &old, &by("slow")).await, 409).await;
    assert!(d.contains("leased again"), "{d}");
    assert_eq!(post_result(&s, &new, &by("fast")).await.status(), 201);
    // An expired lease nobody took over still takes its result.
    file(&s, 1).await;
    let lone = lease(&s, "slow", 1).await.remove(0);
    expire_leases(&s).await;
    assert_eq!(post_result(&s, &lone, &by("slow")).await.status(), 201);
}

#[tokio::test]
async fn unknown_leases_and_malformed_results_are_refused() {
    let s = TestServer::start().await;
    file(&s, 1).await;
    let l = lease(&s, "w1", 1).await.remove(0);
    let r = s.post(&format!("/api/v1/leases/{}/result", uuid::Uuid::new_v4()), &s.worker)
        .json(&result("H100", "550", true, &[sum_hex(0)])).send().await.unwrap();
    expect_problem(r, 404).await;
    let r = s.post("/api/v1/leases/not-a-uuid/result", &s.worker).json(&result("H100", "550", true, &[sum_hex(0)])).send().await.unwrap();
    expect_problem(r, 400).await;
    for (body, needle) in [
        (result("H100", "550", true, &["0x0".into(), "0x0".into()]), "1 output(s)"),
        (result("H100", "550", true, &["xyz".into()]), "not 0x-prefixed hex"),
        (result("H100", "550", true, &["0x100000000".into()]), "32-bit"),
        (result("", "550", true, &[sum_hex(0)]), "gpu_name"),
    ] {
        let d = expect_problem(post_result(&s, &l, &body).await, 422).await;
        assert!(d.contains(needle), "'{d}' lacks '{needle}'");
    }
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM regression_runs").fetch_one(&s.pool).await.unwrap();
    assert_eq!(n, 0);
}

#[tokio::test]
async fn the_server_re_judges_the_workers_claim() {
    let s = TestServer::start().await;
    file(&s, 2).await;
    let ls = lease(&s, "w1", 2).await;
    // Claims a pass with wrong bits: stored as a failure, with a note.
    let run: RegressionRun = post_result(&s, &ls[0], &result("H100", "550", true, &["0x7fc00000".into()])).await.json().await.unwrap();
    assert!(!run.passed);
    assert!(run.message.contains("the worker said passed"), "{}", run.message);
    // Claims a failure with right bits: stored as a pass. Which regression got which lease
    // follows the queue order, so find the right answer by id.
    let i = if ls[1].regression_id > ls[0].regression_id { 1 } else { 0 };
    let right = sum_hex(i);
    let run: RegressionRun = post_result(&s, &ls[1], &json!({"worker": "w1", "target": "cuda:0", "gpu_name": "H100",
        "driver_version": "550", "interpreter_commit": "abc", "passed": false, "actual": [right], "message": "flaky?"}))
        .await.json().await.unwrap();
    assert!(run.passed, "{run:?}");
    assert!(run.message.starts_with("flaky?; server:"), "{}", run.message);
    // An engine fault: no results, a failure.
    file(&s, 1).await;
    let l = lease(&s, "w1", 1).await.remove(0);
    let run: RegressionRun = post_result(&s, &l, &result("H100", "550", false, &[])).await.json().await.unwrap();
    assert!(!run.passed);
}

#[tokio::test]
async fn the_matrix_shows_a_fix_after_fail_then_pass_on_the_same_gpu_and_driver() {
    let s = TestServer::start().await;
    let reg = file(&s, 1).await.remove(0);
    let wrong = vec!["0x00000000".to_string()];
    let right = vec![sum_hex(0)];
    for (gpu, driver, actual) in [
        ("H100", "550.54", &wrong),
        ("H100", "560.1", &right),
        ("H100", "550.54", &right),
        ("A100", "550.54", &wrong),
    ] {
        let l = lease(&s, "w1", 1).await.remove(0);
        assert_eq!(post_result(&s, &l, &result(gpu, driver, actual == &right, actual)).await.status(), 201);
    }
    let got: Regression = s.get(&format!("/api/v1/regressions/{}", reg.id)).send().await.unwrap().json().await.unwrap();
    let cell = |g: &str, d: &str| got.matrix.iter().find(|c| c.gpu_name == g && c.driver_version == d).unwrap().clone();
    assert_eq!(got.matrix.len(), 3);
    let h = cell("H100", "550.54");
    assert!(h.passed && h.fixed, "{h:?}");
    let n = cell("H100", "560.1");
    assert!(n.passed && !n.fixed, "passing with no earlier failure is not a fix: {n:?}");
    let a = cell("A100", "550.54");
    assert!(!a.passed && !a.fixed, "{a:?}");
    // Failing again after the fix: no longer fixed.
    let l = lease(&s, "w1", 1).await.remove(0);
    post_result(&s, &l, &result("H100", "550.54", false, &wrong)).await;
    let got: Regression = s.get(&format!("/api/v1/regressions/{}", reg.id)).send().await.unwrap().json().await.unwrap();
    let h = got.matrix.iter().find(|c| c.gpu_name == "H100" && c.driver_version == "550.54").unwrap();
    assert!(!h.passed && !h.fixed, "{h:?}");
}

#[tokio::test]
async fn lease_limits_and_roles_are_enforced() {
    let s = TestServer::start().await;
    for (max, secs) in [(0, 60), (1001, 60), (1, 9), (1, 3601)] {
        let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "w", "max": max, "lease_seconds": secs})).send().await.unwrap();
        expect_problem(r, 422).await;
    }
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "", "max": 1, "lease_seconds": 60})).send().await.unwrap();
    expect_problem(r, 422).await;
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "w", "max": -1, "lease_seconds": 60})).send().await.unwrap();
    expect_problem(r, 400).await;
    let r = s.post("/api/v1/leases", &s.triager).json(&json!({"worker": "w", "max": 1, "lease_seconds": 60})).send().await.unwrap();
    expect_problem(r, 403).await;
    file(&s, 1).await;
    let l = lease(&s, "w1", 1).await.remove(0);
    let r = s.post(&format!("/api/v1/leases/{}/result", l.lease_id), &s.triager).json(&result("H100", "550", true, &[sum_hex(0)])).send().await.unwrap();
    expect_problem(r, 403).await;
    let r = s.post("/api/v1/leases", &s.admin).json(&json!({"worker": "w", "max": 1, "lease_seconds": 60})).send().await.unwrap();
    assert_eq!(r.status(), 200);
}
