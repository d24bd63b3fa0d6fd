//! `ptxfuzz sweep ... --server` posts its report to the real server, and what the server lists
//! parses as `api::sweeps::SweepReport` with the sweep's numbers.

use std::process::Command;

use api::sweeps::{SweepKind, SweepList};

use crate::{start_server, PTXFUZZ};

#[test]
fn a_sweep_with_server_posts_a_report_the_server_lists() {
    let server = start_server();
    let (url, worker, triager) = (server.url.as_str(), server.worker.as_str(), server.triager.as_str());
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("sweep-post-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = ["sweep", "rcp.approx.f32", "--target", "interp", "--limit", "20000", "--stride", "0x9e3779b1", "--json", "--server", &url];
    let o = Command::new(PTXFUZZ).args(args).current_dir(&dir).env("PTXFUZZ_TOKEN", &worker).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let local: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();

    let mut r = ureq::get(&format!("{url}/api/v1/sweeps")).call().unwrap();
    let list: SweepList = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(list.items.len(), 1);
    let s = &list.items[0];
    assert_eq!(s.reported_by, "test-worker");
    assert_eq!((s.report.kind, s.report.name.as_str(), s.report.target.as_str()), (SweepKind::Sweep, "rcp.approx.f32", "interp"));
    assert_eq!(s.report.inputs, 20000);
    assert_eq!(serde_json::json!(s.report.mismatches), local["mismatches"]);
    assert_eq!(serde_json::json!(s.report.max_ulps), local["max_ulps"]);
    let counts: Vec<u64> = s.report.histogram.iter().map(|b| b.count).collect();
    assert_eq!(serde_json::json!(counts), local["histogram"]);
    assert!(s.report.bound_ulps.is_some() && !s.report.bound_text.is_empty(), "{s:?}");

    // A refused post (a triager token) keeps the report in a file and says how to re-post it.
    let o = Command::new(PTXFUZZ).args(args).current_dir(&dir).env("PTXFUZZ_TOKEN", &triager).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not posted") && err.contains("curl"), "{err}");
    assert!(!o.stdout.is_empty(), "the local report is printed first");
    let saved: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let unsent: api::sweeps::SweepReport = serde_json::from_str(&std::fs::read_to_string(&saved[0]).unwrap()).unwrap();
    assert_eq!(unsent.name, "rcp.approx.f32");
    let _ = std::fs::remove_dir_all(&dir);
}
