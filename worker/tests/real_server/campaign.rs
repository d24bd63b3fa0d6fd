//! End to end against the real server: `ptxfuzz campaign --server` with a planted engine posts
//! every finding it writes to --out to `ptxfuzz-server`; a regression filed from one of them is
//! leased by the next campaign, run on its target and judged, and the server's matrix shows it;
//! `deliver` sends a campaign's folders once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use api::findings::FindingPage;
use api::regressions::Regression;

use crate::{start_server, PTXFUZZ};

const PLANTED: &str = env!("CARGO_BIN_EXE_ptxfuzz-planted-engine");

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run(args: &[&str], token: &str) -> Output {
    let o = Command::new(PTXFUZZ).args(args).env("PTXFUZZ_TOKEN", token).env_remove("PTXFUZZ_SERVER").output().unwrap();
    assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    o
}

fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> T {
    let mut r = ureq::get(url).call().unwrap();
    serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap()
}

fn folders(out: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("repro.json").is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn campaign_findings_reach_the_server_and_a_filed_regression_is_run_by_the_next_campaign() {
    let s = start_server();
    let planted = format!("exec:{PLANTED} rz-as-rn");
    let out = scratch("campaign");
    let common = ["--families", "add", "--types", "f32", "--quiet", "--server", &s.url];
    let mut args = vec!["campaign", "--target", &planted, "--cases", "20000", "--lease-every", "0", "--out", out.to_str().unwrap()];
    args.extend(common);
    run(&args, &s.worker);

    // Every folder the campaign wrote is a finding on the server, and nothing else is.
    let written = folders(&out);
    assert!(!written.is_empty(), "the planted rz-as-rn engine gives findings");
    let page: FindingPage = get_json(&format!("{}/api/v1/findings?limit=500", s.url));
    let mut on_server: Vec<String> = page.items.iter().map(|f| f.signature.clone()).collect();
    on_server.sort();
    assert_eq!(on_server, written);
    assert!(std::fs::read_dir(out.join(".spool")).unwrap().filter_map(|e| e.ok()).all(|e| e.path().is_dir()), "spool drained");

    // File a regression from the first finding (triager), then a campaign on the same planted
    // engine leases it, runs it and posts a failing run.
    let finding = &page.items[0];
    let body = serde_json::json!({"title": "e2e", "source": {"from_finding": {"finding_id": finding.id, "reproducer_id": null}}});
    let mut r = ureq::post(&format!("{}/api/v1/regressions", s.url))
        .header("Authorization", &format!("Bearer {}", s.triager))
        .header("Content-Type", "application/json")
        .send(body.to_string())
        .unwrap();
    assert_eq!(r.status(), 201);
    let filed: Regression = serde_json::from_str(&r.body_mut().read_to_string().unwrap()).unwrap();
    assert!(filed.matrix.is_empty());

    let out2 = scratch("lease");
    let mut args = vec!["campaign", "--target", &planted, "--cases", "2000", "--lease-every", "60", "--out", out2.to_str().unwrap()];
    args.extend(common);
    run(&args, &s.worker);
    let after: Regression = get_json(&format!("{}/api/v1/regressions/{}", s.url, filed.id));
    assert_eq!(after.matrix.len(), 1, "{after:?}");
    assert!(!after.matrix[0].passed, "the planted engine still fails it: {after:?}");

    // The interpreter engine passes it: a new cell (another device), passing.
    let out3 = scratch("lease-interp");
    let mut args = vec!["campaign", "--target", "interp", "--cases", "2000", "--lease-every", "60", "--out", out3.to_str().unwrap()];
    args.extend(common);
    run(&args, &s.worker);
    let after: Regression = get_json(&format!("{}/api/v1/regressions/{}", s.url, filed.id));
    assert!(after.matrix.iter().any(|c| c.passed), "{after:?}");
    for d in [out, out2, out3] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn deliver_findings_sends_a_campaigns_folders_and_a_second_delivery_adds_nothing() {
    let server = start_server();
    let dir = scratch("deliver-folders");
    std::fs::create_dir_all(&dir).unwrap();
    let tar = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/hw/h100-sm90/campaign-60s.tar.gz");
    assert!(Command::new("tar").arg("xzf").arg(&tar).arg("-C").arg(&dir).status().unwrap().success());
    let out = dir.join("campaign");
    let n = folders(&out).len();
    assert_eq!(n, 281);
    let args = ["deliver", "--findings", out.to_str().unwrap(), "--server", &server.url];
    let first = String::from_utf8(run(&args, &server.worker).stdout).unwrap();
    assert!(first.contains(&format!("{n} finding folder(s)")) && first.contains(&format!("{n} new, 0 already")), "{first}");
    let second = String::from_utf8(run(&args, &server.worker).stdout).unwrap();
    assert!(second.contains(&format!("0 new, {n} already on the server")), "{second}");

    // Issue #13's measure: delivered, the campaign is a few root causes; every finding has
    // its cluster, the scalar bf16 fma ones in the cluster that says computed as f16.
    let clusters: serde_json::Value = get_json(&format!("{}/api/v1/clusters?limit=100", server.url));
    let clusters = clusters["items"].as_array().unwrap();
    assert!(clusters.len() <= 12, "{} clusters", clusters.len());
    assert_eq!(clusters.iter().map(|c| c["signatures"].as_i64().unwrap()).sum::<i64>(), n as i64);
    let as_f16 = clusters.iter().find(|c| c["key"] == "bf16-as-f16~fma.bf16").expect("the f16 cluster");
    assert!(as_f16["explanation"]["sentence"].as_str().unwrap().contains("computed as f16"), "{as_f16}");
    let mut after = String::new();
    let mut seen = 0;
    loop {
        let page: serde_json::Value = get_json(&format!("{}/api/v1/findings?limit=200{after}", server.url));
        for f in page["items"].as_array().unwrap() {
            seen += 1;
            let scalar_bf16_fma = f["opcode"] == "fma" && f["type"] == "bf16";
            assert!(f["cluster_id"].is_i64(), "{f}");
            assert_eq!(f["cluster_id"] == as_f16["id"], scalar_bf16_fma, "{f}");
        }
        match page["next"].as_str() {
            Some(next) => after = format!("&after={next}"),
            None => break,
        }
    }
    assert_eq!(seen, n);
    let _ = std::fs::remove_dir_all(&dir);
}
