//! `/api/v1/sweeps` and the `/sweeps` page: workers post sweep and math-check reports (bad
//! ones are 4xx problems that say why), the list and the page show the latest per name and
//! target with the histogram and the documented bound.

use crate::common::*;

use api::sweeps::{StoredSweep, SweepList};
use serde_json::{json, Value};

fn report(name: &str, max_ulps: u64, bound: Option<u64>) -> Value {
    // No error above max_ulps (the server refuses a histogram that contradicts it).
    let histogram: Vec<Value> = [(0u64, 90), (1, 8), (2, 2)].iter().filter(|b| b.0 <= max_ulps)
        .map(|&(lo, count)| json!({"label": lo.to_string(), "lo": lo, "count": count})).collect();
    json!({
        "kind": "sweep", "name": name, "target": "interp", "device": "reference interpreter",
        "gpu_name": null, "driver_version": null, "interpreter_commit": "ptxfuzz 0.1.0 (abc)",
        "inputs": 100, "exhaustive": false, "mismatches": 0, "max_ulps": max_ulps,
        "histogram": histogram,
        "bound_text": ["rcp.approx.f32: 1 ulp (\"maximum relative error\")"], "bound_ulps": bound,
        "at": "2025-05-01T12:00:00Z"
    })
}

#[tokio::test]
async fn a_posted_report_is_listed_as_the_latest_of_its_name_and_target() {
    let s = TestServer::start().await;
    let r = s.post("/api/v1/sweeps", &s.worker).json(&report("rcp.approx.f32", 2, Some(1))).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let first: StoredSweep = r.json().await.unwrap();
    assert_eq!(first.reported_by, "test-worker");
    assert_eq!(first.report.max_ulps, 2);
    let mut newer = report("rcp.approx.f32", 1, Some(1));
    newer["at"] = json!("2025-05-02T12:00:00Z");
    assert_eq!(s.post("/api/v1/sweeps", &s.worker).json(&newer).send().await.unwrap().status(), 201);
    // u64 errors beyond i64 round-trip (stored as NUMERIC).
    let mut huge = report("ex2.approx.f16", u64::MAX, None);
    huge["kind"] = json!("math-check");
    assert_eq!(s.post("/api/v1/sweeps", &s.admin).json(&huge).send().await.unwrap().status(), 201);

    let list: SweepList = s.get("/api/v1/sweeps").send().await.unwrap().json().await.unwrap();
    assert_eq!(list.items.len(), 2, "{list:?}");
    let rcp = list.items.iter().find(|i| i.report.name == "rcp.approx.f32").unwrap();
    assert_eq!(rcp.report.max_ulps, 1, "the newer report wins");
    assert!(rcp.report.passed());
    let ex2 = list.items.iter().find(|i| i.report.name == "ex2.approx.f16").unwrap();
    assert_eq!(ex2.report.max_ulps, u64::MAX);
    let only: SweepList = s.get("/api/v1/sweeps?kind=math-check").send().await.unwrap().json().await.unwrap();
    assert_eq!(only.items.len(), 1);
    expect_problem(s.get("/api/v1/sweeps?kind=fuzz").send().await.unwrap(), 400).await;
}

#[tokio::test]
async fn bad_reports_are_refused_with_the_reason() {
    let s = TestServer::start().await;
    let post = |body: Value| s.post("/api/v1/sweeps", &s.worker).json(&body).send();
    let mut empty = report("", 0, None);
    assert!(expect_problem(post(empty.clone()).await.unwrap(), 422).await.contains("name"));
    empty["name"] = json!("x");
    empty["histogram"] = json!((0..257).map(|i| json!({"label": i.to_string(), "lo": i, "count": 0})).collect::<Vec<_>>());
    assert!(expect_problem(post(empty).await.unwrap(), 422).await.contains("256"));
    let mut over = report("x", 2, None);
    over["histogram"][0]["count"] = json!(1000);
    assert!(expect_problem(post(over).await.unwrap(), 422).await.contains("inputs"));
    let mut overflow = report("x", 2, None);
    overflow["histogram"][0]["count"] = json!(u64::MAX);
    assert!(expect_problem(post(overflow).await.unwrap(), 422).await.contains("inputs"));
    let mut unordered = report("x", 2, None);
    unordered["histogram"][1]["lo"] = json!(0);
    assert!(expect_problem(post(unordered).await.unwrap(), 422).await.contains("order"));
    let mut nul = report("x", 2, None);
    nul["target"] = json!("a\u{0}b");
    assert!(expect_problem(post(nul).await.unwrap(), 422).await.contains("NUL"));
    let mut unknown = report("x", 2, None);
    unknown["colour"] = json!("red");
    expect_problem(post(unknown).await.unwrap(), 400).await;
    let mut kind = report("x", 2, None);
    kind["kind"] = json!("campaign");
    expect_problem(post(kind).await.unwrap(), 400).await;
    let list: SweepList = s.get("/api/v1/sweeps").send().await.unwrap().json().await.unwrap();
    assert!(list.items.is_empty(), "nothing refused was stored");
}

#[tokio::test]
async fn posting_needs_a_worker_token() {
    let s = TestServer::start().await;
    let r = s.http.post(format!("{}/api/v1/sweeps", s.url)).json(&report("x", 2, None)).send().await.unwrap();
    expect_problem(r, 401).await;
    let r = s.post("/api/v1/sweeps", &s.triager).json(&report("x", 2, None)).send().await.unwrap();
    assert!(expect_problem(r, 403).await.contains("worker"));
}

#[tokio::test]
async fn the_page_has_one_section_per_name_with_histogram_bound_and_verdict() {
    let s = TestServer::start().await;
    let page = s.get("/sweeps").send().await.unwrap().text().await.unwrap();
    assert!(page.contains("No sweeps"));
    // A math check: its name is not checked against the instruction forms.
    let mut sqrt = report("<i>sqrt</i>", 0, Some(0));
    sqrt["kind"] = json!("math-check");
    for body in [report("rcp.approx.f32", 2, Some(1)), sqrt] {
        assert_eq!(s.post("/api/v1/sweeps", &s.worker).json(&body).send().await.unwrap().status(), 201);
    }
    let page = s.get("/sweeps").send().await.unwrap().text().await.unwrap();
    let sections: Vec<&str> = page.split("<section class=\"sweep\"").skip(1).map(|p| &p[..p.find("</section>").unwrap()]).collect();
    assert_eq!(sections.len(), 2);
    assert!(!page.contains("<i>sqrt</i>") && page.contains("&lt;i&gt;sqrt&lt;/i&gt;"), "names are escaped");
    let rcp = sections.iter().find(|p| p.contains("<code>rcp.approx.f32</code>")).unwrap();
    assert!(rcp.contains("<svg") && rcp.contains("class=\"bound\""), "{rcp}");
    assert!(rcp.contains("bound 1 ulp") && rcp.contains("maximum relative error"), "{rcp}");
    assert!(rcp.contains("verdict fail"), "2 ulp against a 1 ulp bound fails: {rcp}");
    let sqrt = sections.iter().find(|p| p.contains("<code>&lt;i&gt;sqrt")).unwrap();
    assert!(sqrt.contains("verdict pass"), "{sqrt}");
}
