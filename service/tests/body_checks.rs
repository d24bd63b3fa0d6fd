//! Bodies that are well-formed but wrong are refused with a 422 (409 for a result posted by a
//! worker that does not hold the lease, 400 for an unknown reproducer field) that names the
//! field, the limit and what to do: string caps, client timestamps outside 2000-01-01 ..
//! now + 1 day, reproducers that contradict themselves, campaign fields and counters that
//! cannot be right, hex without `0x`, and sweep reports with an unknown form or a histogram
//! that contradicts max_ulps (service/src/validate/).

use crate::common::*;
use crate::support::reports::*;

use api::regressions::Leased;
use serde_json::{json, Value};

const SIG: &str = "add.rz.f32~rounding~normal.normal~sm90";

async fn put_campaign(s: &TestServer, body: &Value) -> reqwest::Response {
    s.put(&format!("/api/v1/campaigns/{}", uuid::Uuid::new_v4()), &s.worker).json(body).send().await.unwrap()
}

#[tokio::test]
async fn campaign_fields_that_cannot_be_right_are_refused_naming_the_field() {
    let s = TestServer::start().await;
    let good = serde_json::to_value(campaign("570.86.15")).unwrap();
    let with = |field: &str, v: Value| {
        let mut b = good.clone();
        b[field] = v;
        b
    };
    let long = "x".repeat(501);
    for (body, needle) in [
        (with("worker_host", json!(long)), "worker_host is 501 bytes long; at most 500 bytes"),
        (with("gpu_name", json!(long)), "gpu_name is 501 bytes long"),
        (with("device", json!(long)), "device is 501 bytes long"),
        (with("interpreter_commit", json!(long)), "interpreter_commit is 501 bytes long"),
        (with("sm", json!(0)), "sm: 0 is out of range"),
        (with("driver_version", json!("not a version")), "driver_version: 'not a version' is not a dotted version"),
        (with("driver_version", json!("")), "driver_version: '' is not a dotted version"),
        (with("cuda_version", json!("12.x")), "cuda_version"),
        (with("gpu_name", json!("")), "gpu_name: empty"),
        (with("interpreter_commit", json!(" ")), "interpreter_commit: empty"),
        (with("started_at", json!("9999-01-01T00:00:00Z")), "started_at: 9999-01-01"),
        (with("started_at", json!("0001-01-01T00:00:00Z")), "started_at: 0001-01-01"),
    ] {
        let d = expect_problem(put_campaign(&s, &body).await, 422).await;
        assert!(d.contains(needle), "'{d}' lacks '{needle}'");
    }
    let d = expect_problem(put_campaign(&s, &with("started_at", json!("9999-01-01T00:00:00Z"))).await, 422).await;
    assert!(d.contains("2000-01-01T00:00:00Z .. ") && d.contains("clock"), "{d}");
    // A CPU campaign as the worker registers it: no GPU, no driver, no CUDA.
    let mut cpu = with("gpu_name", Value::Null);
    cpu["driver_version"] = Value::Null;
    cpu["cuda_version"] = Value::Null;
    cpu["target"] = json!("host");
    cpu["device"] = json!("AMD EPYC 7B13");
    assert_eq!(put_campaign(&s, &cpu).await.status(), 201);
    assert_eq!(put_campaign(&s, &with("started_at", json!(chrono::Utc::now() + chrono::Duration::hours(20)))).await.status(), 201);
}

#[tokio::test]
async fn heartbeat_counters_that_contradict_each_other_are_refused() {
    let s = TestServer::start().await;
    let id = uuid::Uuid::new_v4();
    let path = format!("/api/v1/campaigns/{id}");
    assert_eq!(s.put(&path, &s.worker).json(&campaign("570.86")).send().await.unwrap().status(), 201);
    let hb = |cases: u64, isa: u64, compiled: u64, mismatches: u64, findings: u64| {
        json!({"counters": {"cases": cases, "programs": 1, "mismatches": mismatches, "findings": findings, "signatures": 1,
                            "engine_faults": 0, "cases_isa": isa, "cases_compiled": compiled}})
    };
    let send = |b: Value| s.post(&format!("{path}/heartbeat"), &s.worker).json(&b).send();
    let d = expect_problem(send(hb(100, 90, 20, 1, 1)).await.unwrap(), 422).await;
    assert!(d.contains("cases_isa (90) + cases_compiled (20) exceed cases (100)"), "{d}");
    let d = expect_problem(send(hb(100, 90, 10, 1, 2)).await.unwrap(), 422).await;
    assert!(d.contains("findings (2) exceed mismatches (1)"), "{d}");
    let d = expect_problem(send(hb(100, u64::MAX, 2, 1, 1)).await.unwrap(), 422).await;
    assert!(d.contains("cases_isa"), "{d}");
    assert_eq!(send(hb(100, 90, 10, 3, 2)).await.unwrap().status(), 200);
    // Workers older than the modes send neither (0 + 0).
    let old = json!({"counters": {"cases": 5, "programs": 1, "mismatches": 0, "findings": 0, "signatures": 0, "engine_faults": 0}});
    assert_eq!(send(old).await.unwrap().status(), 200);
}

async fn ingest_json(s: &TestServer, body: &Value) -> reqwest::Response {
    s.post("/api/v1/findings/batch", &s.worker).json(body).send().await.unwrap()
}

/// One report of the fixture, changed by `f`, as an ingest body.
fn changed(f: impl FnOnce(&mut Value)) -> Value {
    let mut b = serde_json::to_value(batch(None, vec![report(SIG, 1, 1)])).unwrap();
    f(&mut b["findings"][0]);
    b
}

#[tokio::test]
async fn reports_that_contradict_themselves_or_exceed_a_cap_are_refused() {
    let s = TestServer::start().await;
    assert_eq!(ingest_json(&s, &changed(|_| {})).await.status(), 200, "the fixture itself is fine");
    let cases: Vec<(Value, &str)> = vec![
        (changed(|r| r["reproducer"]["failing_outputs"] = json!([])), "findings[0].reproducer.failing_outputs: empty"),
        (changed(|r| r["reproducer"]["failing_outputs"] = json!([3])), "failing_outputs: output 3 does not exist"),
        (changed(|r| r["reproducer"]["failing_outputs"] = json!([0, 0])), "output 0 is listed twice"),
        (changed(|r| r["reproducer"]["actual"] = json!(["0x3f000000"])), "failing_outputs: output 0 is listed as failing, but its actual 0x3f000000 is the one value expected"),
        (changed(|r| r["reproducer"]["program_text"] = json!("add.rn.f32 %f2, %f0, %f1;")), "findings[0].reproducer.program_text is not the text of program"),
        (changed(|r| r["reproducer"]["inputs_decimal"] = json!(["7", "3.0733e-8"])), "inputs_decimal[0]: '7' is not the decimal of inputs[0] (0x3f000000, which reads 0.5)"),
        (changed(|r| r["reproducer"]["inputs_decimal"] = json!(["0.5", "x"])), "inputs_decimal[1]"),
        (changed(|r| r["reproducer"]["inputs_decimal"] = json!(["0.5"])), "inputs_decimal: 1 value(s) for 2 input(s)"),
        (changed(|r| r["reproducer"]["target"] = json!("")), "findings[0].reproducer.target: empty"),
        (changed(|r| r["reproducer"]["target"] = json!("t".repeat(501))), "reproducer.target is 501 bytes long; at most 500 bytes"),
        (changed(|r| r["reproducer"]["device"] = json!("d".repeat(501))), "reproducer.device is 501 bytes long"),
        (changed(|r| r["ptx"] = json!("p".repeat((1 << 20) + 1))), "findings[0].ptx is 1048577 bytes long; at most 1048576 bytes"),
        (changed(|r| r["reproducer"]["found_at"] = json!("0001-01-01T00:00:00Z")), "reproducer.found_at: 0001-01-01"),
        (changed(|r| r["reproducer"]["found_at"] = json!("9999-01-01T00:00:00Z")), "reproducer.found_at: 9999-01-01"),
        (changed(|r| r["reproducer"]["inputs"] = json!(["3f000000", "0x33040000"])), "'3f000000' is not 0x-prefixed hex bits"),
    ];
    for (body, needle) in cases {
        let d = expect_problem(ingest_json(&s, &body).await, 422).await;
        assert!(d.contains(needle), "'{}' lacks '{needle}'", &d[..d.len().min(400)]);
    }
    // Unknown fields of the reproducer (which api::Reproducer itself would drop) are named.
    for (body, needle) in [
        (changed(|r| r["reproducer"]["found_att"] = json!(1)), "findings[0].reproducer.found_att: unknown field `found_att`"),
        (changed(|r| r["reproducer"]["original"] = json!({"program_text": "", "inputs": [], "seed": 1})), "findings[0].reproducer.original.seed"),
    ] {
        let d = expect_problem(ingest_json(&s, &body).await, 400).await;
        assert!(d.contains(needle), "'{d}' lacks '{needle}'");
    }
    // Other shape errors keep their path, as axum's own Json gave them.
    let d = expect_problem(ingest_json(&s, &changed(|r| r["hitz"] = json!(1))).await, 400).await;
    assert!(d.contains("findings[0]") && d.contains("unknown field `hitz`"), "{d}");
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM reproducers").fetch_one(&s.pool).await.unwrap();
    assert_eq!(n, 1, "only the fixture was stored");
}

#[tokio::test]
async fn a_long_triage_note_is_refused() {
    let s = TestServer::start().await;
    let r = ingest_json(&s, &changed(|_| {})).await;
    let id = r.json::<Value>().await.unwrap()["finding_ids"][0].as_i64().unwrap();
    let path = format!("/api/v1/findings/{id}/triage");
    let r = s.post(&path, &s.triager).json(&json!({"status": "confirmed-hardware", "note": "n".repeat(10_001)})).send().await.unwrap();
    let d = expect_problem(r, 422).await;
    assert!(d.contains("note is 10001 bytes long; at most 10000 bytes"), "{d}");
    let r = s.post(&path, &s.triager).json(&json!({"status": "confirmed-hardware", "note": "n".repeat(10_000)})).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

fn sweep(name: &str, max_ulps: u64, histogram: Value, at: &str) -> Value {
    json!({"kind": "sweep", "name": name, "target": "interp", "device": "", "gpu_name": null, "driver_version": null,
           "interpreter_commit": "ptxfuzz 0.1.0", "inputs": 100, "exhaustive": false, "mismatches": 0, "max_ulps": max_ulps,
           "histogram": histogram, "bound_text": [], "bound_ulps": null, "at": at})
}

#[tokio::test]
async fn sweeps_with_an_unknown_form_a_contradicting_histogram_or_a_wrong_time_are_refused() {
    let s = TestServer::start().await;
    let h = |b: &[(u64, u64)]| Value::Array(b.iter().map(|&(lo, n)| json!({"label": lo.to_string(), "lo": lo, "count": n})).collect());
    let now = chrono::Utc::now().to_rfc3339();
    for (body, needle) in [
        (sweep("frobnicate.f99", 0, h(&[(0, 100)]), &now), "name: 'frobnicate.f99' is not an instruction form"),
        (sweep("rcp.approx.f32", 0, h(&[(0, 99), (1, 1)]), &now), "bucket '1' (lo 1) counts 1 error(s) above max_ulps (0)"),
        (sweep("rcp.approx.f32", 5, h(&[(0, 99), (1, 0), (4, 0)]), &now), "no bucket counts the largest error, max_ulps 5"),
        (sweep("rcp.approx.f32", 1, h(&[(0, 100)]), "9999-01-01T00:00:00Z"), "at: 9999-01-01"),
        (sweep("rcp.approx.f32", 0, h(&[(0, 100)]), "0001-01-01T00:00:00Z"), "at: 0001-01-01"),
    ] {
        let d = expect_problem(s.post("/api/v1/sweeps", &s.worker).json(&body).send().await.unwrap(), 422).await;
        assert!(d.contains(needle), "'{d}' lacks '{needle}'");
    }
    // Forms of every kind `ptxfuzz sweep` takes; a math check names a function.
    for name in ["rcp.approx.f32", "cvt.rn.f16.f32", "setp.lt.f32"] {
        let r = s.post("/api/v1/sweeps", &s.worker).json(&sweep(name, 5, h(&[(0, 90), (4, 10)]), &now)).send().await.unwrap();
        assert_eq!(r.status(), 201, "{name}: {}", r.text().await.unwrap());
    }
    let mut math = sweep("sinf", 2, h(&[(0, 90), (1, 8), (2, 2)]), &now);
    math["kind"] = json!("math-check");
    assert_eq!(s.post("/api/v1/sweeps", &s.worker).json(&math).send().await.unwrap().status(), 201);
}

#[tokio::test]
async fn a_result_from_a_worker_that_does_not_hold_the_lease_is_a_conflict_naming_the_holder() {
    let s = TestServer::start().await;
    let add = "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n";
    let body = json!({"source": {"raw": {"program": add, "inputs": ["0x3f800000", "0x40000000"]}}});
    assert_eq!(s.post("/api/v1/regressions", &s.triager).json(&body).send().await.unwrap().status(), 201);
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "w1", "max": 1, "lease_seconds": 60})).send().await.unwrap();
    let lease: Leased = r.json::<Vec<Leased>>().await.unwrap().remove(0);
    let result = |worker: &str, actual: &str| {
        json!({"worker": worker, "target": "cuda:0", "gpu_name": "H100", "driver_version": "570.86",
               "interpreter_commit": "ptxfuzz 0.1.0", "passed": true, "actual": [actual]})
    };
    let path = format!("/api/v1/leases/{}/result", lease.lease_id);
    let d = expect_problem(s.post(&path, &s.worker).json(&result("someone-else", "0x40400000")).send().await.unwrap(), 409).await;
    assert!(d.contains("held by worker 'w1', not 'someone-else'"), "{d}");
    // Bits without 0x are refused as at ingest, not read as hex.
    let d = expect_problem(s.post(&path, &s.worker).json(&result("w1", "40400000")).send().await.unwrap(), 422).await;
    assert!(d.contains("actual[0]: '40400000' is not 0x-prefixed hex bits"), "{d}");
    assert_eq!(s.post(&path, &s.worker).json(&result("w1", "0x40400000")).send().await.unwrap().status(), 201);
}
