//! The dashboard end to end in a real headless Chromium (Debian's `chromium`, driven through
//! `chromedriver`'s W3C WebDriver protocol): a server on loopback with a seeded database; the
//! test opens the overview, filters the findings list, opens a finding, logs in as a triager,
//! triages it, files it as a regression, and checks the database changed. Every page is
//! screenshotted into `$CARGO_TARGET_TMPDIR/screenshots/NN-name.png` for a look by eye
//! (docs/dashboard.md).
//!
//! Missing `chromium`/`chromedriver` fail the test (run `scripts/install-browser`);
//! `PTXFUZZ_SKIP_BROWSER=1` skips it on purpose.

use std::collections::BTreeSet;

use api::campaigns::{Counters, Heartbeat};
use api::findings::IngestResult;
use crate::common::TestServer;
use crate::support::reports::{batch, campaign, report};
use serde_json::json;
use uuid::Uuid;
use crate::support::webdriver::{Browser, Shots};

/// The seeded findings: (signature, hits). Opcodes and classes vary so that a filter keeps
/// some rows and drops others.
const SIGNATURES: &[(&str, u64)] = &[
    ("add.rz.f32~rounding~normal.subnormal~sm90", 7),
    ("add.rz.f32~rounding~normal.normal~sm90", 3),
    ("add.rn.ftz.f32~ftz~subnormal.normal~sm90", 2),
    ("fma.rn.f64~rounding~normal.normal.normal~sm90", 5),
    ("fma.rn.f32~signed-zero~zero.normal.normal~sm90", 1),
    ("mul.rn.f32~nan-payload~nan.normal~sm90", 4),
    ("sqrt.approx.f32~bound-exceeded~normal~sm90", 9),
];
/// A known divergence covering the `mul` finding only.
const KNOWN_PATTERN: &str = "mul.*~nan-payload~*";
/// A triage note with markup in it: the page must show it as text, not run it.
const NOTE: &str = "Hardware rounds toward zero here <b>really</b> & the spec allows it";

struct Seeded {
    /// Finding ids in `SIGNATURES` order.
    ids: Vec<i64>,
    /// The finding already filed as a regression (with a failing run on one GPU/driver).
    regression_finding: i64,
}

/// Findings through the ingest API from a live campaign, a known divergence, and a regression
/// with one failing run.
async fn seed(s: &TestServer) -> Seeded {
    let cid = Uuid::new_v4();
    let mut start = campaign("550.54.15");
    start.started_at = chrono::Utc::now() - chrono::Duration::minutes(10);
    let r = s.put(&format!("/api/v1/campaigns/{cid}"), &s.worker).json(&start).send().await.unwrap();
    assert!(r.status().is_success(), "campaign start: {}", r.status());
    let counters = Counters { cases: 6_000_000, programs: 60_000, mismatches: 31, findings: 31, signatures: 7, engine_faults: 0, ..Counters::default() };
    let r = s.post(&format!("/api/v1/campaigns/{cid}/heartbeat"), &s.worker).json(&Heartbeat { counters, ended: false }).send().await.unwrap();
    assert!(r.status().is_success(), "heartbeat: {}", r.status());

    let reports = SIGNATURES.iter().enumerate().map(|(k, &(sig, hits))| report(sig, k as u64, hits)).collect();
    let r = s.post("/api/v1/findings/batch", &s.worker).json(&batch(Some(cid), reports)).send().await.unwrap();
    assert!(r.status().is_success(), "ingest: {} {}", r.status(), r.text().await.unwrap_or_default());
    let ids = r.json::<IngestResult>().await.unwrap().finding_ids;
    assert_eq!(ids.len(), SIGNATURES.len());

    let r = s
        .post("/api/v1/known-divergences", &s.triager)
        .json(&json!({"pattern": KNOWN_PATTERN, "reason": "NaN payloads are not preserved on sm90"}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "known divergence: {}", r.status());

    // A regression from the sqrt finding, leased by a worker that saw it fail.
    let regression_finding = ids[6];
    let r = s
        .post("/api/v1/regressions", &s.triager)
        .json(&json!({"title": "sqrt.approx bound", "source": {"from_finding": {"finding_id": regression_finding}}}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "regression: {} {}", r.status(), r.text().await.unwrap_or_default());
    let r = s.post("/api/v1/leases", &s.worker).json(&json!({"worker": "gpu-box-1", "max": 10, "lease_seconds": 600})).send().await.unwrap();
    let leased: Vec<api::regressions::Leased> = r.json().await.unwrap();
    assert_eq!(leased.len(), 1, "the one regression is leased");
    let result = json!({"worker": "gpu-box-1", "target": "cuda:0", "gpu_name": "NVIDIA H100 80GB HBM3", "driver_version": "550.54.15",
                        "interpreter_commit": "ptxfuzz 0.1.0 (abc1234)", "passed": false, "actual": ["0x3f000001"]});
    let r = s.post(&format!("/api/v1/leases/{}/result", leased[0].lease_id), &s.worker).json(&result).send().await.unwrap();
    assert!(r.status().is_success(), "run result: {} {}", r.status(), r.text().await.unwrap_or_default());

    // A sweep of an approximate instruction within its bound, a math check beyond it.
    for (kind, name, max_ulps, bound) in [("sweep", "ex2.approx.f32", 2u64, 2u64), ("math-check", "sinf", 4, 2)] {
        let histogram: Vec<_> = (0..=max_ulps).map(|u| json!({"label": format!("{u} ulp"), "lo": u, "count": 1000 >> u})).collect();
        let body = json!({"kind": kind, "name": name, "target": "cuda:0", "gpu_name": "NVIDIA H100 80GB HBM3",
                          "driver_version": "550.54.15", "interpreter_commit": "ptxfuzz 0.1.0 (abc1234)", "inputs": 1u64 << 32,
                          "exhaustive": true, "mismatches": 0, "max_ulps": max_ulps, "histogram": histogram,
                          "bound_text": [format!("maximum relative error {bound} ulp")], "bound_ulps": bound, "at": chrono::Utc::now()});
        let r = s.post("/api/v1/sweeps", &s.worker).json(&body).send().await.unwrap();
        assert!(r.status().is_success(), "sweep {name}: {} {}", r.status(), r.text().await.unwrap_or_default());
    }
    Seeded { ids, regression_finding }
}

async fn finding_status(s: &TestServer, id: i64) -> String {
    sqlx::query_scalar("SELECT status FROM findings WHERE id = $1").bind(id).fetch_one(&s.pool).await.unwrap()
}

/// The finding ids the list page shows, from its `a.finding-link` hrefs.
async fn listed_ids(b: &Browser) -> BTreeSet<i64> {
    let mut ids = BTreeSet::new();
    for a in b.find_all("table#findings tr.finding a.finding-link").await {
        let href = b.attr(&a, "href").await.expect("finding link has an href");
        let id = href.rsplit('/').next().and_then(|x| x.parse().ok());
        ids.insert(id.unwrap_or_else(|| panic!("finding link {href} does not end in an id")));
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_triager_filters_opens_triages_and_files_a_finding_in_a_real_browser() {
    let _alone = crate::alone().await;
    let Some((chromium, chromedriver)) = crate::support::webdriver::binaries_or_skip() else { return };
    let s = TestServer::start().await;
    let seeded = seed(&s).await;
    let b = Browser::start(&chromium, &chromedriver).await;
    let mut shots = Shots::fresh(None);

    // The overview: three plots and the live campaign.
    b.goto(&format!("{}/", s.url)).await;
    for section in ["section#by-status", "section#by-family", "section#over-time"] {
        b.find(&format!("{section} svg")).await;
    }
    let campaigns = b.find("table#campaigns").await;
    assert!(b.text(&campaigns).await.contains("gpu-box-1"), "the live campaign is listed");
    shots.take(&b, "overview").await;

    // The list: every finding, the known one marked; then filtered to add/rounding.
    b.click(&b.find("nav a[href=\"/findings\"]").await).await;
    b.wait_for("table#findings").await;
    assert_eq!(listed_ids(&b).await, seeded.ids.iter().copied().collect(), "the unfiltered list shows every finding");
    let count = b.text(&b.find("#count").await).await;
    assert!(count.contains(&SIGNATURES.len().to_string()), "#count says {count:?}");
    let known = b.find_all("table#findings tr.finding .known").await;
    assert_eq!(known.len(), 1, "only the mul finding matches the known divergence");
    shots.take(&b, "findings").await;

    b.set("form#filters [name=opcode]", "add").await;
    b.set("form#filters [name=class]", "rounding").await;
    b.click(&b.find("form#filters button[type=submit]").await).await;
    b.wait_for_url("filtered by opcode and class", |u| u.contains("opcode=add") && u.contains("class=rounding")).await;
    b.wait_for("table#findings").await;
    let want: BTreeSet<i64> = SIGNATURES
        .iter()
        .zip(&seeded.ids)
        .filter(|((sig, _), _)| sig.starts_with("add.") && sig.contains("~rounding~"))
        .map(|(_, &id)| id)
        .collect();
    assert_eq!(want.len(), 2);
    assert_eq!(listed_ids(&b).await, want, "the filtered list shows exactly the add/rounding findings");
    shots.take(&b, "findings-filtered").await;

    // One finding, not logged in: everything readable, no triage form, a way to log in.
    let id = *want.iter().next().unwrap();
    b.click(&b.find(&format!("a.finding-link[href=\"/findings/{id}\"]")).await).await;
    b.wait_for("pre#program").await;
    let program = b.text(&b.find("pre#program").await).await;
    assert!(program.contains("add.rz.f32"), "program shown: {program}");
    let operands = b.text(&b.find("table#operands").await).await;
    for bits in ["0x3f000000", "0.5", "0x33040000"] {
        assert!(operands.contains(bits), "operands show {bits}: {operands}");
    }
    let results = b.text(&b.find("table#results").await).await;
    assert!(results.contains("0x3f000000") && results.contains("0x3f000001"), "expected and actual: {results}");
    let occurrences = b.text(&b.find("table#occurrences").await).await;
    assert!(occurrences.contains("550.54.15"), "the occurrence names the campaign's driver: {occurrences}");
    let command = b.text(&b.find("code#repro-command").await).await;
    assert!(command.contains("ptxfuzz repro"), "repro command: {command}");
    for (link, ext) in [("a#download-ptx", "ptx"), ("a#download-cu", "cu"), ("a#download-json", "json")] {
        let href = b.attr(&b.find(link).await, "href").await.unwrap();
        assert!(href.ends_with(&format!("/findings/{id}/repro.{ext}")), "{link} -> {href}");
        let r = s.get(&format!("/findings/{id}/repro.{ext}")).send().await.unwrap();
        assert!(r.status().is_success(), "{href}: {}", r.status());
    }
    assert!(!b.exists("form#triage").await, "no triage form without a session");
    assert!(!b.exists("form#file-regression").await, "no regression form without a session");
    shots.take(&b, "finding-anonymous").await;

    // A POST without a session changes nothing: it is sent to log in.
    let plain = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let triage_url = format!("{}/findings/{id}/triage", s.url);
    let r = plain.post(&triage_url).form(&[("status", "wont-fix"), ("note", "x"), ("csrf", "")]).send().await.unwrap();
    assert_eq!(r.status(), 303, "triage without a session");
    let to = r.headers()["location"].to_str().unwrap().to_string();
    assert!(to.starts_with("/login"), "triage without a session goes to /login, not {to}");
    assert_eq!(finding_status(&s, id).await, "new");

    // Log in from the finding page; the session cookie is HttpOnly.
    b.click(&b.find("main a[href^=\"/login\"]").await).await;
    b.wait_for("form#login").await;
    b.find("form#login input[name=csrf]").await;
    shots.take(&b, "login").await;
    b.fill("form#login input[name=token]", &s.triager).await;
    b.click(&b.find("form#login button[type=submit]").await).await;
    b.wait_for_url("away from /login", |u| !u.contains("/login")).await;
    let who = b.text(&b.wait_for(".who").await).await;
    assert!(who.contains("test-triager"), "header names the triager: {who}");
    let cookies = b.cookies().await;
    assert!(!cookies.is_empty(), "a session cookie is set");
    assert!(cookies.iter().all(|c| c["httpOnly"] == true), "session cookies are HttpOnly: {cookies:?}");
    // The session's cookies with a forged CSRF field: refused, nothing changes.
    let jar: Vec<String> = cookies.iter().map(|c| format!("{}={}", c["name"].as_str().unwrap(), c["value"].as_str().unwrap())).collect();
    let r = plain.post(&triage_url).header("cookie", jar.join("; ")).form(&[("status", "wont-fix"), ("note", "x"), ("csrf", "forged")]).send().await.unwrap();
    assert_eq!(r.status(), 403, "a forged CSRF token is refused");
    assert_eq!(finding_status(&s, id).await, "new");
    if !b.current_url().await.ends_with(&format!("/findings/{id}")) {
        b.goto(&format!("{}/findings/{id}", s.url)).await;
    }

    // Triage: status and a note with markup in it.
    b.wait_for("form#triage").await;
    b.find("form#triage input[name=csrf]").await;
    b.select("form#triage select[name=status]", "confirmed-hardware").await;
    b.fill("form#triage textarea[name=note]", NOTE).await;
    shots.take(&b, "finding-triage-form").await;
    // The form posts and redirects to this same page: wait for the new one, which shows the note.
    b.click_and_wait_for_new_page(&b.find("form#triage button[type=submit]").await).await;
    let page = b.wait_for_page_text(NOTE).await;
    assert!(page.contains(NOTE), "the note is shown as text, markup escaped");
    let selected = b.value(&b.find("form#triage select[name=status]").await).await;
    assert_eq!(selected, "confirmed-hardware", "the page shows the new status");
    for bold in b.find_all("main b").await {
        assert_ne!(b.text(&bold).await, "really", "the note's <b> is not rendered as markup");
    }
    assert_eq!(finding_status(&s, id).await, "confirmed-hardware");
    let (actor, from, to, note): (String, String, String, String) =
        sqlx::query_as("SELECT actor, from_status, to_status, note FROM triage_events WHERE finding_id = $1")
            .bind(id)
            .fetch_one(&s.pool)
            .await
            .expect("one triage event");
    assert_eq!((actor.as_str(), from.as_str(), to.as_str(), note.as_str()), ("test-triager", "new", "confirmed-hardware", NOTE));
    shots.take(&b, "finding-triaged").await;

    // File it as a regression: 303 to the matrix, where it is listed.
    let title = format!("add.rz rounding of finding {id}");
    b.fill("form#file-regression input[name=title]", &title).await;
    b.click(&b.find("form#file-regression button[type=submit]").await).await;
    b.wait_for_url("the regressions page", |u| u.contains("/regressions")).await;
    let matrix = b.text(&b.wait_for("table#matrix").await).await;
    let (rid, by): (i64, String) = sqlx::query_as("SELECT id, created_by FROM regressions WHERE finding_id = $1 AND title = $2")
        .bind(id)
        .bind(&title)
        .fetch_one(&s.pool)
        .await
        .expect("a regressions row for the finding");
    assert_eq!(by, "test-triager");
    assert!(b.current_url().await.ends_with(&format!("#r{rid}")), "303 to /regressions#r{rid}");
    b.find(&format!("#r{rid}")).await;
    assert!(matrix.contains(&title), "the matrix lists the new regression: {matrix}");
    assert!(matrix.contains("sqrt.approx bound"), "and the seeded one");
    assert_eq!(b.find_all("table#matrix td.fail").await.len(), 1, "the seeded failing run is a failing cell");
    let seeded_rows: i64 = sqlx::query_scalar("SELECT count(*) FROM regressions WHERE finding_id = $1")
        .bind(seeded.regression_finding)
        .fetch_one(&s.pool)
        .await
        .unwrap();
    assert_eq!(seeded_rows, 1);
    shots.take(&b, "regressions").await;

    // Sweeps: one histogram per instruction or function.
    b.goto(&format!("{}/sweeps", s.url)).await;
    let sweeps = b.find_all("section.sweep").await;
    assert_eq!(sweeps.len(), 2, "one section per instruction or function");
    let mut shown = BTreeSet::new();
    for section in &sweeps {
        assert!(!b.find_in(section, "svg").await.is_empty(), "a histogram in each section");
        let text = b.text(section).await;
        assert!(text.contains("2 ulp"), "the documented bound is shown: {text}");
        shown.extend(["ex2.approx.f32", "sinf"].into_iter().filter(|n| text.contains(n)));
    }
    assert_eq!(shown.len(), 2, "both the sweep and the math check are shown");
    shots.take(&b, "sweeps").await;

    b.quit().await;
}
