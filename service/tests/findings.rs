//! Findings: ingest (grouping, idempotent retries), the list's filters and pagination, one
//! finding's detail, triage, and the 4xx answers to bad input.

use std::collections::{BTreeSet, HashSet};

use api::findings::{FindingDetail, FindingPage, FindingSummary, IngestBatch, IngestResult, MAX_BATCH};
use crate::common::*;
use crate::support::reports::*;
use serde_json::json;

const A: &str = "add.rz.f32~rounding~normal.normal~sm90";
const B: &str = "add.rn.ftz.f32~ftz~subnormal.normal~sm80";
const C: &str = "mul.rz.f64~rounding~normal.normal~sm90";
const D: &str = "fma.rn.f32~signed-zero~zero.zero.normal~sm90";
const E: &str = "input~gross~~sm-";

async fn ingest(s: &TestServer, b: &IngestBatch) -> IngestResult {
    let r = s.post("/api/v1/findings/batch", &s.worker).json(b).send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    assert_eq!(status, 200, "{text}");
    serde_json::from_str(&text).unwrap()
}

async fn page(s: &TestServer, query: &str) -> FindingPage {
    let r = s.get(&format!("/api/v1/findings?{query}")).send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    assert_eq!(status, 200, "{query}: {text}");
    serde_json::from_str(&text).unwrap()
}

/// The signatures a filter lists (one page of up to 500).
async fn signatures(s: &TestServer, query: &str) -> BTreeSet<String> {
    page(s, &format!("limit=500&{query}")).await.items.into_iter().map(|f| f.signature).collect()
}

fn set(sigs: &[&str]) -> BTreeSet<String> {
    sigs.iter().map(|s| s.to_string()).collect()
}

async fn detail(s: &TestServer, id: i64) -> FindingDetail {
    let r = s.get(&format!("/api/v1/findings/{id}")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

async fn count(s: &TestServer, table: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}"))).fetch_one(&s.pool).await.unwrap()
}

async fn register(s: &TestServer, driver: &str) -> uuid::Uuid {
    let id = uuid::Uuid::new_v4();
    let r = s.put(&format!("/api/v1/campaigns/{id}"), &s.worker).json(&campaign(driver)).send().await.unwrap();
    assert_eq!(r.status(), 201);
    id
}

#[tokio::test]
async fn reports_of_one_signature_make_one_finding_with_summed_occurrences() {
    let s = TestServer::start().await;
    let res = ingest(&s, &batch(None, vec![report(A, 1, 2), report(B, 2, 1), report(A, 3, 3)])).await;
    assert_eq!((res.received, res.inserted, res.duplicates), (3, 3, 0));
    assert_eq!(res.finding_ids[0], res.finding_ids[2]);
    assert_ne!(res.finding_ids[0], res.finding_ids[1]);
    let items = page(&s, "").await.items;
    assert_eq!(items.len(), 2);
    let a = items.iter().find(|f| f.signature == A).unwrap();
    assert_eq!((a.occurrences, a.reproducers), (5, 2));
    assert_eq!((a.opcode.as_str(), a.ty.as_str(), a.class.as_str()), ("add", "f32", "rounding"));
    assert_eq!(a.modifiers, ["rz"]);
    assert_eq!((a.operand_classes.as_str(), a.sm), ("normal.normal", Some(90)));
    let b = items.iter().find(|f| f.signature == B).unwrap();
    assert_eq!(b.modifiers, ["rn", "ftz"]);
    assert_eq!((b.occurrences, b.reproducers, b.id), (1, 1, res.finding_ids[1]));
}

#[tokio::test]
async fn retried_batch_inserts_nothing_twice() {
    let s = TestServer::start().await;
    let b = batch(None, vec![report(A, 1, 2), report(B, 2, 1), report(A, 3, 3)]);
    let first = ingest(&s, &b).await;
    let before = page(&s, "").await.items;
    let again = ingest(&s, &b).await;
    assert_eq!((again.received, again.inserted, again.duplicates), (3, 0, 3));
    assert_eq!(again.finding_ids, first.finding_ids);
    let after = page(&s, "").await.items;
    assert_eq!(before, after, "a retry changes no counter and no last_seen");
    assert_eq!(count(&s, "reproducers").await, 3);
    // A batch mixing old and new reports inserts only the new one.
    let mixed = ingest(&s, &batch(None, vec![report(A, 1, 2), report(A, 4, 10)])).await;
    assert_eq!((mixed.inserted, mixed.duplicates), (1, 1));
    let a = page(&s, "").await.items.into_iter().find(|f| f.signature == A).unwrap();
    assert_eq!((a.occurrences, a.reproducers), (15, 3));
    let metrics = s.get("/metrics").send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("ptxfuzz_reports_ingested_total 4"), "{metrics}");
    assert!(metrics.contains("ptxfuzz_reports_duplicate_total 4"), "{metrics}");
}

#[tokio::test]
async fn the_same_report_twice_in_one_batch_counts_once() {
    let s = TestServer::start().await;
    let res = ingest(&s, &batch(None, vec![report(A, 1, 2), report(A, 1, 2)])).await;
    assert_eq!((res.inserted, res.duplicates), (1, 1));
    let a = &page(&s, "").await.items[0];
    assert_eq!((a.occurrences, a.reproducers), (2, 1));
}

#[tokio::test]
async fn concurrent_batches_sharing_signatures_all_land() {
    let s = TestServer::start().await;
    let sigs = [A, B, C, D, E];
    let mut tasks = Vec::new();
    for w in 0..6u64 {
        let http = s.http.clone();
        let (url, token) = (s.url.clone(), s.worker.clone());
        // Each worker names the signatures in another order.
        let reports = (0..50u64).map(|k| report(sigs[((k + w) % 5) as usize], w * 1000 + k, 1)).collect();
        let b = batch(None, reports);
        tasks.push(tokio::spawn(async move {
            http.post(format!("{url}/api/v1/findings/batch")).bearer_auth(token).json(&b).send().await.unwrap().status()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    let items = page(&s, "").await.items;
    assert_eq!(items.len(), 5);
    assert_eq!(items.iter().map(|f| f.occurrences).sum::<i64>(), 300);
    assert_eq!(count(&s, "reproducers").await, 300);
}

#[tokio::test]
async fn filters_each_narrow_the_list() {
    let s = TestServer::start().await;
    let c1 = register(&s, "550.54").await;
    let first = ingest(&s, &batch(Some(c1), vec![report(A, 1, 1), report(B, 2, 1)])).await;
    ingest(&s, &batch(None, vec![report(C, 3, 1), report(D, 4, 1), report(E, 5, 1)])).await;
    let all = set(&[A, B, C, D, E]);
    assert_eq!(signatures(&s, "").await, all);
    assert_eq!(signatures(&s, "instruction=add.rz.f32").await, set(&[A]));
    assert_eq!(signatures(&s, "opcode=add").await, set(&[A, B]));
    assert_eq!(signatures(&s, "type=f64").await, set(&[C]));
    assert_eq!(signatures(&s, "type=f32").await, set(&[A, B, D]));
    assert_eq!(signatures(&s, "modifier=rz").await, set(&[A, C]));
    assert_eq!(signatures(&s, "modifier=ftz").await, set(&[B]));
    assert_eq!(signatures(&s, "class=rounding").await, set(&[A, C]));
    assert_eq!(signatures(&s, "sm=90").await, set(&[A, C, D]));
    assert_eq!(signatures(&s, "driver=550.54").await, set(&[A, B]));
    assert_eq!(signatures(&s, "driver=999.1").await, set(&[]));
    assert_eq!(signatures(&s, "opcode=add&sm=80").await, set(&[B]));
    // Status: triage one finding.
    let r = s
        .post(&format!("/api/v1/findings/{}/triage", first.finding_ids[0]), &s.triager)
        .json(&json!({"status": "confirmed-hardware"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(signatures(&s, "status=confirmed-hardware").await, set(&[A]));
    assert_eq!(signatures(&s, "status=new").await, set(&[B, C, D, E]));
    // Time: the two batches were separate transactions, so their last_seen differ.
    let items = page(&s, "").await.items;
    let t_a = items.iter().find(|f| f.signature == A).unwrap().last_seen;
    let t_c = items.iter().find(|f| f.signature == C).unwrap().last_seen;
    assert!(t_a < t_c);
    let iso = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    assert_eq!(signatures(&s, &format!("since={}", iso(t_c))).await, set(&[C, D, E]));
    assert_eq!(signatures(&s, &format!("until={}", iso(t_c))).await, set(&[A, B]));
}

#[tokio::test]
async fn pagination_walks_every_finding_exactly_once() {
    let s = TestServer::start().await;
    let classes = ["zero", "subnormal", "normal", "inf", "nan"];
    let mut expected = BTreeSet::new();
    let mut k = 0;
    // Three batches: within a batch findings share last_seen, so the id breaks ties.
    for sm in [80, 86, 90] {
        let mut reports = Vec::new();
        for a in classes {
            for b in classes {
                let sig = format!("add.rz.f32~rounding~{a}.{b}~sm{sm}");
                expected.insert(sig.clone());
                reports.push(report(&sig, k, 1));
                k += 1;
            }
        }
        ingest(&s, &batch(None, reports)).await;
    }
    for (query, want) in [
        ("", expected.clone()),
        ("sm=90", expected.iter().filter(|s| s.ends_with("~sm90")).cloned().collect()),
    ] {
        let mut seen: Vec<FindingSummary> = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let q = match &after {
                Some(c) => format!("limit=7&{query}&after={c}"),
                None => format!("limit=7&{query}"),
            };
            let p = page(&s, &q).await;
            assert!(p.items.len() <= 7);
            seen.extend(p.items);
            match p.next {
                Some(n) => after = Some(n),
                None => break,
            }
        }
        let ids: HashSet<i64> = seen.iter().map(|f| f.id).collect();
        assert_eq!(ids.len(), seen.len(), "{query}: no finding twice");
        assert_eq!(seen.iter().map(|f| f.signature.clone()).collect::<BTreeSet<_>>(), want, "{query}");
        assert!(seen.windows(2).all(|w| (w[0].last_seen, w[0].id) > (w[1].last_seen, w[1].id)), "{query}: order");
    }
}

#[tokio::test]
async fn detail_shows_reports_newest_first_with_the_campaign_driver() {
    let s = TestServer::start().await;
    let c = register(&s, "560.10").await;
    let res = ingest(&s, &batch(Some(c), vec![report(A, 1, 1), report(A, 2, 1)])).await;
    let d = detail(&s, res.finding_ids[0]).await;
    assert_eq!(d.finding.signature, A);
    assert_eq!(d.reproducers.len(), 2);
    assert!(d.reproducers[0].id > d.reproducers[1].id);
    assert!(d.reproducers.iter().all(|r| r.driver_version.as_deref() == Some("560.10") && r.campaign_id == Some(c)));
    let nonces: BTreeSet<u64> = d.reproducers.iter().map(|r| r.reproducer.found_after_cases).collect();
    assert_eq!(nonces, BTreeSet::from([1, 2]));
    assert!(d.history.is_empty());
    let r = s.get("/api/v1/findings/999999").send().await.unwrap();
    assert!(expect_problem(r, 404).await.contains("999999"));
    let r = s.get("/api/v1/findings/abc").send().await.unwrap();
    expect_problem(r, 400).await;
}

#[tokio::test]
async fn triage_records_history_and_rejects_bad_duplicate_of() {
    let s = TestServer::start().await;
    let res = ingest(&s, &batch(None, vec![report(A, 1, 1), report(B, 2, 1), report(C, 3, 1)])).await;
    let (a, b, c) = (res.finding_ids[0], res.finding_ids[1], res.finding_ids[2]);
    let triage = |id: i64, body: serde_json::Value| {
        s.post(&format!("/api/v1/findings/{id}/triage"), &s.triager).json(&body).send()
    };
    let r = triage(a, json!({"status": "interpreter-bug", "note": "rz rounds up"})).await.unwrap();
    assert_eq!(r.status(), 200);
    let d: FindingDetail = r.json().await.unwrap();
    assert_eq!(d.finding.status, api::findings::Status::InterpreterBug);
    assert_eq!(d.history.len(), 1);
    let e = &d.history[0];
    assert_eq!((e.actor.as_str(), e.from, e.to, e.note.as_str()), ("test-triager", api::findings::Status::New, api::findings::Status::InterpreterBug, "rz rounds up"));

    for (body, words) in [
        (json!({"status": "duplicate"}), "needs duplicate_of"),
        (json!({"status": "duplicate", "duplicate_of": b}), "itself"),
        (json!({"status": "duplicate", "duplicate_of": 987654}), "does not exist"),
        (json!({"status": "wont-fix", "duplicate_of": a}), "only allowed"),
    ] {
        let r = triage(b, body.clone()).await.unwrap();
        let detail = expect_problem(r, 422).await;
        assert!(detail.contains(words), "{body}: {detail}");
    }
    let r = triage(b, json!({"status": "duplicate", "duplicate_of": a, "note": "same bug"})).await.unwrap();
    assert_eq!(r.status(), 200);
    let d: FindingDetail = r.json().await.unwrap();
    assert_eq!((d.finding.status, d.finding.duplicate_of), (api::findings::Status::Duplicate, Some(a)));
    assert_eq!(d.history[0].duplicate_of, Some(a));
    // A duplicate of a duplicate is refused, naming the original.
    let r = triage(c, json!({"status": "duplicate", "duplicate_of": b})).await.unwrap();
    assert!(expect_problem(r, 422).await.contains(&a.to_string()));
    // Leaving 'duplicate' clears duplicate_of; the history keeps both changes in order.
    let r = triage(b, json!({"status": "new"})).await.unwrap();
    let d: FindingDetail = r.json().await.unwrap();
    assert_eq!((d.finding.status, d.finding.duplicate_of), (api::findings::Status::New, None));
    let steps: Vec<_> = d.history.iter().map(|e| (e.from, e.to)).collect();
    use api::findings::Status::*;
    assert_eq!(steps, [(New, Duplicate), (Duplicate, New)]);
    let r = triage(123456, json!({"status": "fixed"})).await.unwrap();
    expect_problem(r, 404).await;
    let r = triage(a, json!({"status": "fixed", "severity": 3})).await.unwrap();
    expect_problem(r, 400).await;
    let r = triage(a, json!({"status": "resolved"})).await.unwrap();
    expect_problem(r, 400).await;
}

#[tokio::test]
async fn an_original_with_duplicates_cannot_become_a_duplicate_so_no_chains_form() {
    let s = TestServer::start().await;
    let res = ingest(&s, &batch(None, vec![report(A, 1, 1), report(B, 2, 1), report(C, 3, 1)])).await;
    let (two, three, four) = (res.finding_ids[0], res.finding_ids[1], res.finding_ids[2]);
    let triage = |id: i64, body: serde_json::Value| {
        s.post(&format!("/api/v1/findings/{id}/triage"), &s.triager).json(&body).send()
    };
    let dup = |of: i64| json!({"status": "duplicate", "duplicate_of": of});
    assert_eq!(triage(two, dup(three)).await.unwrap().status(), 200);
    // three is two's original: making it a duplicate of four would chain two -> three -> four.
    let detail = expect_problem(triage(three, dup(four)).await.unwrap(), 422).await;
    assert!(detail.contains(&format!("original of duplicate finding(s) {two}")), "{detail}");
    let chained: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM findings f JOIN findings o ON o.id = f.duplicate_of WHERE o.duplicate_of IS NOT NULL",
    )
    .fetch_one(&s.pool)
    .await
    .unwrap();
    assert_eq!(chained, 0);
    // The reverse: two already points at three, so the hint must not say "mark this one a
    // duplicate of three" (this one is three); it says how to swap the original.
    let detail = expect_problem(triage(three, dup(two)).await.unwrap(), 422).await;
    assert!(detail.contains(&format!("finding {two} is already a duplicate of finding {three} (this one)")), "{detail}");
    assert!(!detail.contains(&format!("a duplicate of {three}; mark")), "{detail}");
    // Following the hint works: two leaves 'duplicate', then three may point at it.
    assert_eq!(triage(two, json!({"status": "new"})).await.unwrap().status(), 200);
    assert_eq!(triage(three, dup(two)).await.unwrap().status(), 200);
}

#[tokio::test]
async fn reported_values_that_cannot_be_right_are_422_naming_field_index_and_what_is_allowed() {
    let s = TestServer::start().await;
    let with = |f: &dyn Fn(&mut api::Reproducer)| {
        let mut r = report(A, 1, 1);
        f(&mut r.reproducer);
        serde_json::to_string(&batch(None, vec![report(B, 2, 1), r])).unwrap()
    };
    // Each was stored before, and broke the dashboard, regressions or downloads afterwards.
    let cases: Vec<(String, &[&str])> = vec![
        (with(&|r| r.inputs[1] = "0x1234567890".into()), &["findings[1].reproducer.inputs[1]", "32 bits"]),
        (with(&|r| r.expected[0] = "0xzz".into()), &["findings[1].reproducer.expected[0]", "'0xzz'", "32-bit"]),
        (with(&|r| r.actual[0] = "0x1234567890".into()), &["findings[1].reproducer.actual[0]", "32 bits"]),
        (with(&|r| r.sm = 0), &["findings[1].reproducer.sm: 0", "75, 80"]),
        (with(&|r| r.sm = 999), &["findings[1].reproducer.sm: 999", "75, 80"]),
        (with(&|r| r.judge = "sm_80".into()), &["findings[1].reproducer.judge", "'sm_80'", "spec, sm_90"]),
    ];
    for (body, words) in cases {
        let detail = expect_problem(post_raw(&s, body).await, 422).await;
        for w in words {
            assert!(detail.contains(w), "{w}: {detail}");
        }
    }
    assert_eq!(count(&s, "findings").await, 0);
    // The same report with right values, and the sm_90 judge, is stored.
    let ok = with(&|r| r.judge = "sm_90".into());
    assert_eq!(post_raw(&s, ok).await.status(), 200);
}

async fn post_raw(s: &TestServer, body: String) -> reqwest::Response {
    s.post("/api/v1/findings/batch", &s.worker).header("content-type", "application/json").body(body).send().await.unwrap()
}

#[tokio::test]
async fn bad_batches_are_4xx_problems_and_write_nothing() {
    let s = TestServer::start().await;
    let good = || report(A, 1, 1);
    let with = |f: &dyn Fn(&mut api::findings::FindingReport)| {
        let mut r = report(B, 2, 1);
        f(&mut r);
        serde_json::to_string(&batch(None, vec![good(), r])).unwrap()
    };
    expect_problem(post_raw(&s, "{\"campaign_id\": null, \"findings\": [".into()).await, 400).await;
    let mut unknown_field = serde_json::to_value(batch(None, vec![good()])).unwrap();
    unknown_field["findings"][0]["priority"] = json!(1);
    let d = expect_problem(post_raw(&s, unknown_field.to_string()).await, 400).await;
    assert!(d.contains("priority"), "{d}");
    let d = expect_problem(post_raw(&s, json!({"findings": []}).to_string()).await, 400).await;
    assert!(d.contains("empty"), "{d}");

    // Content errors: 422, naming the report.
    let cases: Vec<(String, &str)> = vec![
        (with(&|r| r.reproducer.signature = "frob.rz.f32~rounding~normal.normal~sm90".into()), "findings[1].reproducer.signature"),
        (with(&|r| r.reproducer.signature = "add.rz.sat.f64~sat~normal.normal~sm90".into()), "findings[1].reproducer.signature"),
        (with(&|r| r.reproducer.class = "rounding".into()), "findings[1].reproducer.class"),
        (with(&|r| r.reproducer.ptxfuzz_repro = 99), "findings[1].reproducer.ptxfuzz_repro"),
        (with(&|r| r.reproducer.inputs[1] = "0xZZ".into()), "findings[1].reproducer.inputs[1]"),
        (with(&|r| r.reproducer.actual[0] = "12".into()), "findings[1].reproducer.actual[0]"),
        (with(&|r| r.reproducer.program = json!({"types": {}, "inputs": [], "body": ["nop;"], "outputs": []})), "findings[1].reproducer.program"),
        (with(&|r| r.reproducer.actual.push("0x0".into())), "findings[1].reproducer.actual: 2 value(s)"),
        (with(&|r| r.reproducer.failing_outputs = vec![3]), "findings[1].reproducer.failing_outputs"),
        (with(&|r| { r.reproducer.inputs.pop(); }), "findings[1].reproducer.inputs: 1 value(s)"),
        (with(&|r| r.reproducer.device = "nul\0byte".into()), "NUL"),
        (with(&|r| r.hits = u64::MAX), "findings[1].hits"),
    ];
    for (body, words) in cases {
        let d = expect_problem(post_raw(&s, body).await, 422).await;
        assert!(d.contains(words), "{words}: {d}");
    }
    let ghost = uuid::Uuid::new_v4();
    let d = expect_problem(post_raw(&s, serde_json::to_string(&batch(Some(ghost), vec![good()])).unwrap()).await, 422).await;
    assert!(d.contains("PUT /api/v1/campaigns"), "{d}");

    let big: Vec<_> = (0..MAX_BATCH as u64 + 1).map(|k| report(A, k, 1)).collect();
    let d = expect_problem(post_raw(&s, serde_json::to_string(&batch(None, big)).unwrap()).await, 413).await;
    assert!(d.contains(&MAX_BATCH.to_string()), "{d}");

    assert_eq!(count(&s, "findings").await, 0, "a refused batch writes nothing");
    assert_eq!(count(&s, "reproducers").await, 0);
}

#[tokio::test]
async fn bad_list_queries_are_400_problems_naming_what_is_allowed() {
    let s = TestServer::start().await;
    let d = expect_problem(s.get("/api/v1/findings?status=open").send().await.unwrap(), 400).await;
    assert!(d.contains("confirmed-hardware") && d.contains("open"), "{d}");
    let d = expect_problem(s.get("/api/v1/findings?class=wrong").send().await.unwrap(), 400).await;
    assert!(d.contains("nan-vs-number"), "{d}");
    for q in ["after=garbage", "after=12_x", "limit=0", "limit=501", "sm=abc", "since=yesterday", "colour=red"] {
        expect_problem(s.get(&format!("/api/v1/findings?{q}")).send().await.unwrap(), 400).await;
    }
}

#[tokio::test]
async fn openapi_documents_the_findings_and_campaign_routes() {
    let s = TestServer::start().await;
    let doc: serde_json::Value = s.get("/api/openapi.json").send().await.unwrap().json().await.unwrap();
    let paths = doc["paths"].as_object().unwrap();
    for (path, method) in [
        ("/api/v1/findings/batch", "post"),
        ("/api/v1/findings", "get"),
        ("/api/v1/findings/{id}", "get"),
        ("/api/v1/findings/{id}/triage", "post"),
        ("/api/v1/campaigns", "get"),
        ("/api/v1/campaigns/{id}", "put"),
        ("/api/v1/campaigns/{id}", "get"),
        ("/api/v1/campaigns/{id}/heartbeat", "post"),
    ] {
        assert!(paths.get(path).and_then(|p| p.get(method)).is_some(), "{method} {path} missing");
    }
    let params = crate::common::get_parameters(&doc, "/api/v1/findings");
    assert!(params.contains(&"type") && params.contains(&"after"), "{params:?}");
}

#[tokio::test]
async fn first_seen_is_when_a_worker_met_the_finding_not_when_it_was_delivered() {
    let s = TestServer::start().await;
    let at = |days: i64| chrono::Utc::now() - chrono::Duration::days(days);
    let with = |nonce: u64, found: Option<chrono::DateTime<chrono::Utc>>| {
        let mut r = report(A, nonce, 1);
        r.reproducer.found_at = found;
        r
    };
    let first_seen = || async {
        let p = page(&s, "").await;
        p.items.iter().find(|f| f.signature == A).unwrap().first_seen
    };
    // Found three days ago by an offline campaign, delivered now.
    ingest(&s, &batch(None, vec![with(1, Some(at(3)))])).await;
    let t3 = first_seen().await;
    assert!((t3 - at(3)).num_seconds().abs() < 60, "{t3}");
    // An earlier meeting moves it back; a later one, a report without the field, or a worker
    // clock in the future do not move it.
    ingest(&s, &batch(None, vec![with(2, Some(at(5))), with(3, Some(at(1))), with(4, None)])).await;
    let t5 = first_seen().await;
    assert!((t5 - at(5)).num_seconds().abs() < 60, "{t5}");
    // (A clock within the day of skew the server tolerates: one further ahead is refused,
    // tests/body_checks.rs.)
    ingest(&s, &batch(None, vec![with(5, Some(chrono::Utc::now() + chrono::Duration::hours(12)))])).await;
    assert_eq!(first_seen().await, t5);
}
