//! `ptxfuzz campaign --server` and `ptxfuzz deliver` against a fake server
//! (tests/fake_server): every finding in --out reaches the server, an outage or a kill loses
//! nothing (the spool delivers later, in order), refused batches go to .spool/rejected/, a
//! lost answer re-sends the same bytes, a refused token never stops the campaign, and leased
//! regressions are judged right on a faithful engine and a planted one.

mod common;
mod fake_server;

use std::path::Path;
use std::process::{Command, Output};

use api::findings::IngestBatch;
use api::regressions::{Leased, RunResult};
use common::{ptxfuzz_output, scratch, text};
use fake_server::{FakeServer, Fault, Request};

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");
const PLANTED: &str = env!("CARGO_BIN_EXE_ptxfuzz-planted-engine");

/// A planted-engine campaign (rz-as-rn: several findings within 20 k cases) reporting to `url`.
fn campaign(url: &str, out: &Path, extra: &[&str]) -> Output {
    let target = format!("exec:{PLANTED} rz-as-rn");
    let mut args = vec!["campaign", "--target", &target, "--families", "add", "--types", "f32", "--cases", "20000"];
    args.extend(["--quiet", "--lease-every", "0", "--server", url, "--out", out.to_str().unwrap()]);
    args.extend(extra);
    ptxfuzz_output(&args)
}

/// Signatures of the finding folders in `out`.
fn signatures_in(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("repro.json").is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

/// Signatures of every report the server answered 2xx to.
fn signatures_delivered(reqs: &[Request]) -> Vec<String> {
    let mut v: Vec<String> = reqs
        .iter()
        .filter(|r| r.path == "/api/v1/findings/batch" && r.status == 200)
        .flat_map(|r| serde_json::from_slice::<IngestBatch>(&r.body).unwrap().findings)
        .map(|f| f.reproducer.signature)
        .collect();
    v.sort();
    v.dedup();
    v
}

fn spooled(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out.join(".spool"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

/// The campaign is registered first, its last heartbeat says it ended, nothing is refused.
fn check_campaign_messages(reqs: &[Request]) {
    let ok: Vec<&Request> = reqs.iter().filter(|r| r.status == 200).collect();
    assert!(ok[0].method == "PUT" && ok[0].path.starts_with("/api/v1/campaigns/"), "{:?}", ok[0]);
    let id = ok[0].path.rsplit('/').next().unwrap();
    let last = ok.iter().rev().find(|r| r.path.ends_with("/heartbeat")).expect("a heartbeat");
    assert_eq!(last.path, format!("/api/v1/campaigns/{id}/heartbeat"));
    assert_eq!(last.json()["ended"], true);
    assert!(last.json()["counters"]["cases"].as_u64().unwrap() >= 20_000);
    for r in ok.iter().filter(|r| r.path.ends_with("/batch")) {
        assert_eq!(r.json()["campaign_id"], id, "batches name the campaign");
    }
    assert!(reqs.iter().all(|r| r.status != 400), "a body the API types refuse: {reqs:?}");
}

#[test]
fn every_finding_in_out_reaches_the_server() {
    let server = FakeServer::start();
    server.require_token("s3cret");
    let out = scratch("server", "all");
    let o = campaign(&server.url(), &out, &["--token", "s3cret"]);
    assert!(o.status.success(), "{}", text(&o));
    let found = signatures_in(&out);
    assert!(found.len() >= 3, "{}", text(&o));
    let reqs = server.requests();
    assert_eq!(signatures_delivered(&reqs), found);
    check_campaign_messages(&reqs);
    assert!(reqs.iter().all(|r| r.auth.as_deref() == Some("Bearer s3cret")));
    let batch: IngestBatch = serde_json::from_slice(&reqs.iter().find(|r| r.path.ends_with("/batch")).unwrap().body).unwrap();
    assert!(batch.findings.iter().all(|f| f.hits >= 1 && f.ptx.as_deref().is_some_and(|p| p.contains(".entry p0"))));
    assert!(spooled(&out).is_empty(), "{:?}", spooled(&out));
    assert!(text(&o).contains(&format!("{} findings) delivered, 0 pending in .spool", found.len())), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_server_down_during_the_campaign_gets_everything_later_in_order() {
    // A port with nothing listening: the campaign spools everything.
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let out = scratch("server", "down");
    let o = campaign(&format!("http://{addr}"), &out, &["--server-flush-seconds", "1"]);
    assert!(o.status.success(), "campaign must not fail for the server: {}", text(&o));
    let t = text(&o);
    assert!(t.contains("server: 0 batches (0 findings) delivered") && t.contains("ptxfuzz deliver --server"), "{t}");
    let left = spooled(&out);
    assert!(left.iter().any(|f| f.ends_with(".campaign.json")) && left.iter().any(|f| f.ends_with(".findings.json")), "{left:?}");

    // The server comes up, answering 503 three times first; `ptxfuzz deliver` sends it all.
    let server = FakeServer::start_at(addr);
    server.fail("/", Fault::Status(503, "starting up"), 3);
    let d = ptxfuzz_output(&["deliver", "--server", &server.url(), "--out", out.to_str().unwrap(), "--wait", "30"]);
    assert!(d.status.success(), "{}", text(&d));
    let reqs = server.requests();
    assert_eq!(reqs.iter().filter(|r| r.status == 503).count(), 3);
    assert_eq!(signatures_delivered(&reqs), signatures_in(&out));
    check_campaign_messages(&reqs);
    assert!(spooled(&out).is_empty());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_lost_answer_resends_the_same_bytes_and_stores_nothing_twice() {
    let server = FakeServer::start();
    server.fail("/findings/batch", Fault::DropResponse, 1);
    let out = scratch("server", "lost");
    let o = campaign(&server.url(), &out, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let batches: Vec<Request> = server.requests().into_iter().filter(|r| r.path.ends_with("/batch")).collect();
    assert!(batches.len() >= 2, "{batches:?}");
    assert_eq!(batches[0].status, 0);
    assert_eq!(batches[0].body, batches[1].body, "the retry is the same bytes");
    assert_eq!(server.stored_reports(), signatures_in(&out).len());
    assert!(spooled(&out).is_empty());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_refused_batch_goes_to_rejected_and_is_not_sent_again() {
    let server = FakeServer::start();
    server.fail("/findings/batch", Fault::Status(400, "unknown field `frobnicate` in finding 0"), 100);
    let out = scratch("server", "rejected");
    let o = campaign(&server.url(), &out, &[]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("unknown field `frobnicate` in finding 0"), "the problem detail is shown: {}", text(&o));
    let rejected: Vec<String> = std::fs::read_dir(out.join(".spool/rejected"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(rejected.iter().any(|f| f.ends_with(".findings.json")), "{rejected:?}");
    assert!(rejected.iter().any(|f| f.ends_with(".findings.problem.txt")), "{rejected:?}");
    let sent = server.requests().iter().filter(|r| r.path.ends_with("/batch")).count();
    let d = ptxfuzz_output(&["deliver", "--server", &server.url(), "--out", out.to_str().unwrap(), "--wait", "5"]);
    assert!(d.status.success(), "{}", text(&d));
    assert_eq!(server.requests().iter().filter(|r| r.path.ends_with("/batch")).count(), sent, "not retried");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_refused_token_keeps_the_campaign_going_and_the_spool_whole() {
    let server = FakeServer::start();
    server.require_token("right");
    let out = scratch("server", "token");
    let o = campaign(&server.url(), &out, &["--token", "wrong"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("Check --token"), "{}", text(&o));
    assert!(!signatures_in(&out).is_empty());
    assert_eq!(server.requests().len(), 1, "nothing more after the 401");
    let left = spooled(&out);
    assert!(left.iter().any(|f| f.ends_with(".campaign.json")) && left.iter().any(|f| f.ends_with(".findings.json")));
    // With the right token, `deliver` sends it all.
    let d = ptxfuzz_output(&["deliver", "--server", &server.url(), "--token", "right", "--out", out.to_str().unwrap()]);
    assert!(d.status.success(), "{}", text(&d));
    assert_eq!(signatures_delivered(&server.requests()), signatures_in(&out));
    let _ = std::fs::remove_dir_all(&out);
}

/// add.rz(0.5, 0x33040000) is 0.5; an engine rounding to nearest says 0x3f000001.
fn add_rz_lease() -> Leased {
    let program = ptx::program::Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\n// outputs: %f2\n").unwrap();
    Leased {
        lease_id: uuid::Uuid::new_v4(),
        regression_id: 42,
        program: serde_json::from_str(&program.to_json()).unwrap(),
        inputs: vec!["0x3f000000".into(), "0x33040000".into()],
        expected: vec!["0x3f000000".into()],
        sm: 90,
        exec: api::Exec::Compiled,
        leased_until: chrono::Utc::now() + chrono::Duration::seconds(300),
    }
}

/// Lease one regression during a short campaign on `target`; the result posted.
fn leased_result(target: &str, name: &str) -> RunResult {
    let server = FakeServer::start();
    let lease = add_rz_lease();
    server.queue_lease(lease.clone());
    let out = scratch("server", name);
    let o = ptxfuzz_output(&[
        "campaign", "--target", target, "--families", "add", "--types", "f32", "--cases", "2000", "--quiet",
        "--lease-every", "60", "--server", &server.url(), "--out", out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let reqs = server.requests();
    let lease_req = reqs.iter().find(|r| r.path == "/api/v1/leases").expect("a lease request");
    assert_eq!(lease_req.json()["lease_seconds"], 300);
    let posted: Vec<&Request> = reqs.iter().filter(|r| r.path.ends_with("/result")).collect();
    assert_eq!(posted.len(), 1, "{reqs:?}");
    assert_eq!(posted[0].path, format!("/api/v1/leases/{}/result", lease.lease_id));
    let _ = std::fs::remove_dir_all(&out);
    serde_json::from_slice(&posted[0].body).unwrap()
}

#[test]
fn a_leased_regression_passes_on_a_faithful_engine() {
    let r = leased_result("interp", "lease-interp");
    assert!(r.passed, "{r:?}");
    assert_eq!(r.actual, ["0x3f000000"]);
    assert_eq!(r.target, "interp");
    assert!(r.interpreter_commit.starts_with("ptxfuzz "));
    assert_eq!(r.driver_version, "n/a");
}

#[test]
fn a_leased_regression_fails_on_a_planted_engine() {
    let r = leased_result(&format!("exec:{PLANTED} rz-as-rn"), "lease-planted");
    assert!(!r.passed, "{r:?}");
    assert_eq!(r.actual, ["0x3f000001"]);
    assert!(r.message.contains("got 0x3f000001"), "{}", r.message);
}

#[test]
fn server_flags_are_checked_before_the_campaign_starts() {
    let o = ptxfuzz_output(&["campaign", "--target", "interp", "--cases", "1", "--token", "t"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--token (or PTXFUZZ_TOKEN) needs --server"), "{}", text(&o));
    let o = ptxfuzz_output(&["campaign", "--target", "interp", "--cases", "1", "--server", "ptxfuzz.lan:8080"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("is not an http:// or https:// URL"), "{}", text(&o));
    let help = text(&ptxfuzz_output(&["campaign", "--help"]));
    for flag in ["--server", "--token", "PTXFUZZ_SERVER", "PTXFUZZ_TOKEN", "--server-flush-seconds", "--lease-every"] {
        assert!(help.contains(flag), "{flag} in --help");
    }
    let o = ptxfuzz_output(&["deliver", "--server", "http://127.0.0.1:9", "--out", "/nonexistent/x"]);
    assert!(!o.status.success() && text(&o).contains("nothing to deliver"), "{}", text(&o));
}

#[test]
fn a_campaign_killed_with_sigkill_loses_no_finding() {
    // Nothing listens: every message stays in the spool (findings staged or sealed).
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let out = scratch("server", "kill9");
    let target = format!("exec:{PLANTED} rz-as-rn");
    let mut child = Command::new(PTXFUZZ)
        .args(["campaign", "--target", &target, "--families", "add", "--types", "f32", "--seconds", "120", "--quiet"])
        .args(["--lease-every", "0", "--server", &format!("http://{addr}"), "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The planted bug gives several findings within a second.
    let t0 = std::time::Instant::now();
    while signatures_in(&out).len() < 3 && t0.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    let found = signatures_in(&out);
    assert!(found.len() >= 3, "{found:?}");

    let server = FakeServer::start_at(addr);
    let d = ptxfuzz_output(&["deliver", "--server", &server.url(), "--out", out.to_str().unwrap(), "--wait", "30"]);
    assert!(d.status.success(), "{}", text(&d));
    let reqs = server.requests();
    assert!(reqs[0].method == "PUT" && reqs[0].path.starts_with("/api/v1/campaigns/"), "{:?}", reqs[0]);
    // Findings written after the kill's snapshot cannot exist; every folder there arrived.
    assert_eq!(signatures_delivered(&reqs), signatures_in(&out));
    assert!(spooled(&out).is_empty() && std::fs::read_dir(out.join(".spool/staged")).unwrap().next().is_none());
    let _ = std::fs::remove_dir_all(&out);
}
