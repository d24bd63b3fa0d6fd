//! `ptxfuzz campaign` as a user runs it: the host FPU against the interpreter for 30 s with no
//! finding, SIGINT ending a campaign with its summary, corpus replay, and findings of an
//! earlier run kept (counted, never rewritten).

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use common::scratch;

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");
const PLANTED: &str = env!("CARGO_BIN_EXE_ptxfuzz-planted-engine");

fn summary(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

fn run(args: &[&str], out: &Path) -> String {
    let o = Command::new(PTXFUZZ).arg("campaign").args(args).arg("--out").arg(out).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    stdout
}

#[test]
#[cfg(target_arch = "x86_64")]
fn host_against_interp_for_30_seconds_gives_no_finding() {
    let out = scratch("campaign", "host");
    let text = run(&["--target", "host", "--seconds", "30", "--quiet"], &out);
    eprintln!("{text}");
    let s = summary(&out);
    assert_eq!(s["totals"]["mismatches"], 0, "{text}");
    assert_eq!(s["totals"]["findings_new"], 0, "{text}");
    assert_eq!(s["totals"]["faults"], serde_json::json!({}), "{text}");
    assert!(s["totals"]["cases"].as_u64().unwrap() > 1_000_000, "{text}");
    assert!(s["elapsed_s"].as_f64().unwrap() >= 30.0);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn sigint_finishes_the_batch_and_writes_the_summary() {
    let out = scratch("campaign", "sigint");
    let o = common::ptxfuzz_interrupted(
        &["campaign", "--target", "interp", "--quiet", "--stats-every", "0.5", "--out", out.to_str().unwrap()],
        Duration::from_secs(3),
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("(interrupted)"), "{stdout}");
    let s = summary(&out);
    assert_eq!(s["interrupted"], true);
    assert!(s["totals"]["cases"].as_u64().unwrap() > 0);
    // The interpreter executes instruction by instruction: every case is an `isa` case.
    assert_eq!(s["exec_modes"], serde_json::json!(["isa"]));
    assert_eq!(s["totals"]["by_exec"]["isa"]["cases"], s["totals"]["cases"]);
    assert!(s["rates_by_exec"]["isa"]["cases_per_s"].as_f64().unwrap() > 0.0, "{s}");
    assert!(s["totals"]["by_exec"].get("compiled").is_none());
    let stats = std::fs::read_to_string(out.join("stats.jsonl")).unwrap();
    let lines: Vec<Value> = stats.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() >= 2, "a line per interval and one at the end: {stats}");
    assert!(lines.iter().all(|l| l["cases"].is_u64() && l["rss_kb"].is_u64()));
    assert!(lines.iter().all(|l| l["rates_by_exec"].is_object() && l["by_exec"].is_object()), "{stats}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn corpus_is_replayed_then_the_campaign_ends() {
    let out = scratch("campaign", "corpus");
    let corpus = scratch("campaign", "corpus-files");
    std::fs::create_dir_all(&corpus).unwrap();
    for i in 0..5u8 {
        std::fs::write(corpus.join(format!("raw-{i}")), [i.wrapping_mul(37); 64]).unwrap();
    }
    std::fs::write(
        corpus.join("program.json"),
        r#"{"types":{"%f0":"f32","%f1":"f32"},"inputs":["%f0"],"body":["sqrt.rn.f32 %f1, %f0;"],"outputs":["%f1"]}"#,
    )
    .unwrap();
    // A program the user got wrong is skipped with the reason, not run as fuzz bytes.
    std::fs::write(
        corpus.join("wrong.json"),
        r#"{"types":{"%f0":"f32","%f1":"f32"},"inputs":["%f0"],"body":["add.rn.f32 %f1, %f0;"],"outputs":["%f1"]}"#,
    )
    .unwrap();
    let text = run(&["--target", "interp", "--corpus", corpus.to_str().unwrap(), "--cases-per-program", "10", "--quiet"], &out);
    assert!(text.contains("corpus: 7 file(s) replayed (1 undecodable)"), "{text}");
    assert!(text.contains("wrong.json: JSON, but neither a reproducer nor a program: instruction 0"), "{text}");
    let s = summary(&out);
    assert_eq!(s["totals"]["programs"], 6);
    assert_eq!(s["totals"]["cases"], 60);
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&corpus);
}

#[test]
fn findings_of_an_earlier_run_are_counted_not_rewritten() {
    let out = scratch("campaign", "known");
    let target = format!("exec:{PLANTED} rz-as-rn");
    let args = ["--target", &target, "--families", "add", "--types", "f32", "--cases", "30000", "--quiet"];
    run(&args, &out);
    let first = summary(&out);
    let n = first["totals"]["findings_new"].as_u64().unwrap();
    assert!(n > 0);
    let folder = out.join(first["findings"][0]["key"].as_str().unwrap());
    let before = std::fs::read_to_string(folder.join("repro.json")).unwrap();
    let mut again: Vec<&str> = args.to_vec();
    again.extend(["--seed", "2"]);
    run(&again, &out);
    let second = summary(&out);
    assert!(second["totals"]["findings_known"].as_u64().unwrap() >= n);
    assert_eq!(std::fs::read_to_string(folder.join("repro.json")).unwrap(), before);
    let leftovers: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The findings of summary.json: (signature key, undocumented label).
fn labelled(s: &Value) -> Vec<(String, bool)> {
    s["findings"].as_array().unwrap().iter().map(|f| (f["key"].as_str().unwrap().to_string(), f["undocumented"].as_bool().unwrap())).collect()
}

#[test]
fn undocumented_forms_are_off_by_default_and_labelled_when_turned_on() {
    let engine = format!("exec:{PLANTED} fma-split");
    let args = ["--target", &engine, "--families", "fma", "--types", "bf16,bf16x2", "--cases", "200000", "--quiet"];
    let directed = |k: &str| ["fma.rz", "fma.rm", "fma.rp"].iter().any(|p| k.starts_with(p));
    let out = scratch("campaign", "documented");
    run(&args, &out);
    let plain = labelled(&summary(&out));
    assert!(!plain.is_empty(), "fma.rn.bf16 split into mul + add is found");
    assert!(plain.iter().all(|(k, u)| !directed(k) && !u), "{plain:?}");
    let out2 = scratch("campaign", "undocumented");
    run(&[&args[..], &["--undocumented"]].concat(), &out2);
    let all = labelled(&summary(&out2));
    assert!(all.iter().any(|(k, _)| directed(k)), "{all:?}");
    assert!(all.iter().all(|(k, u)| directed(k) == *u), "exactly the ptxas-only forms are labelled: {all:?}");
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&out2);
}

#[test]
fn an_arch_specific_sm_goes_to_the_cuda_engine_and_runs_on_interp() {
    let out = scratch("campaign", "sm100a");
    // The cuda target takes --sm 100a: without a driver it says so, on a GPU other than an
    // sm_100 it says the module cannot load there, on an sm_100 it runs.
    let o = Command::new(PTXFUZZ).args(["campaign", "--target", "cuda", "--sm", "100a", "--seconds", "1", "--out"]).arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("no NVIDIA driver found") || err.contains("cannot compile for sm_100a on this"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&out);
    let text = run(&["--target", "interp", "--sm", "100a", "--families", "cvt", "--cases", "20000", "--quiet"], &out);
    let s = summary(&out);
    assert_eq!(s["config"]["variant"], "a", "{text}");
    assert_eq!(s["totals"]["mismatches"], 0, "{text}");
    let bad = Command::new(PTXFUZZ).args(["campaign", "--sm", "100x"]).output().unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("'100x' is not an sm"), "{}", String::from_utf8_lossy(&bad.stderr));
    let _ = std::fs::remove_dir_all(&out);
}
