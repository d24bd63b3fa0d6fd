//! Damaged and misplaced campaign folders, as the binary meets them: a truncated repro.json or
//! a 0-byte summary.json is named and skipped by `explain` and `deliver --findings` (the other
//! folders processed, the exit status non-zero), truncated spool files are counted as rejected,
//! a resumed campaign rewrites a damaged finding folder (or names it again at the end when it
//! did not meet it) and removes what a killed campaign left unfinished, a folder in the way of
//! summary.json is refused before the campaign runs, and a campaign's `--out` is a corpus of its
//! reproducers.

mod common;
mod fake_server;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use api::findings::IngestBatch;
use common::{ptxfuzz_output, scratch, text};
use fake_server::FakeServer;

const PLANTED: &str = env!("CARGO_BIN_EXE_ptxfuzz-planted-engine");
/// The eight finding folders of the H100 (read-only).
const H100: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings");
const DAMAGED: &str = "abs.f64~nan-payload~nan~sm90";

/// A writable copy of the H100's finding folders, with `DAMAGED`'s repro.json cut in half and
/// a 0-byte summary.json (a copy cut short by a full disk).
fn damaged_copy(name: &str) -> PathBuf {
    let out = scratch("folders", name);
    std::fs::create_dir_all(&out).unwrap();
    for e in std::fs::read_dir(H100).unwrap().map(|e| e.unwrap()) {
        let to = out.join(e.file_name());
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(e.path()).unwrap().map(|f| f.unwrap()) {
            std::fs::write(to.join(f.file_name()), std::fs::read(f.path()).unwrap()).unwrap();
        }
    }
    let json = out.join(DAMAGED).join("repro.json");
    let text = std::fs::read(&json).unwrap();
    std::fs::write(&json, &text[..text.len() / 2]).unwrap();
    std::fs::write(out.join("summary.json"), "").unwrap();
    out
}

#[test]
fn explain_names_a_damaged_folder_explains_the_others_and_fails() {
    let out = damaged_copy("explain");
    let o = ptxfuzz_output(&["explain", out.to_str().unwrap()]);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // The seven good folders are explained, the clusters counted over them.
    assert!(stdout.contains("over 7 findings:"), "{stdout}");
    assert!(!stdout.contains(DAMAGED), "{stdout}");
    // The damaged one is named with its file and what is wrong, and what to do.
    assert!(stderr.contains(&format!("skipped {}", out.join(DAMAGED).display())), "{stderr}");
    assert!(stderr.contains("repro.json is not a valid file of its kind: EOF while parsing"), "{stderr}");
    assert!(stderr.contains("1 finding folder(s) skipped (named above)") && stderr.contains("rewritten by the next campaign"), "{stderr}");
    // The 0-byte summary.json is a warning: explain needs the finding folders only.
    assert!(stderr.contains("summary.json is not a valid file of its kind") && stderr.contains("without it"), "{stderr}");
    // --json lists the skipped folders for a script.
    let o = ptxfuzz_output(&["explain", out.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 7);
    assert_eq!(v["skipped"][0]["folder"], out.join(DAMAGED).display().to_string());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn explain_says_a_missing_folder_does_not_exist_and_a_file_is_not_a_folder() {
    let o = ptxfuzz_output(&["explain", "/nonexistent/ptxfuzz-out"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/nonexistent/ptxfuzz-out does not exist") && err.contains("campaign's --out folder"), "{err}");
    let repro = format!("{H100}/{DAMAGED}/repro.json");
    let o = ptxfuzz_output(&["explain", &repro]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is a file") && err.contains(&format!("give its finding folder, {H100}/{DAMAGED}")), "{err}");
    let o = ptxfuzz_output(&["explain", &format!("{H100}/{DAMAGED}/repro.ptx")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("repro.ptx is a file, not a folder"), "{err}");
}

#[test]
fn deliver_findings_sends_the_good_folders_and_names_the_damaged_one() {
    let server = FakeServer::start();
    let out = damaged_copy("deliver");
    let o = ptxfuzz_output(&["deliver", "--findings", out.to_str().unwrap(), "--server", &server.url()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let sent: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.path == "/api/v1/findings/batch" && r.status == 200)
        .flat_map(|r| serde_json::from_slice::<IngestBatch>(&r.body).unwrap().findings)
        .map(|f| f.reproducer.signature)
        .collect();
    assert_eq!(sent.len(), 7, "{sent:?}");
    assert!(!sent.iter().any(|s| s == DAMAGED));
    let t = text(&o);
    assert!(t.contains(&format!("skipped {}: ", out.join(DAMAGED).display())) && t.contains("EOF while parsing"), "{t}");
    assert!(t.contains("1 finding folder(s) of") && t.contains("the other 7 sent"), "{t}");
    assert!(t.contains("summary.json is not a valid file") && t.contains("sent with 1 hit"), "{t}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn deliver_counts_truncated_spool_files_as_rejected_says_where_and_fails() {
    let server = FakeServer::start();
    let out = scratch("folders", "spool");
    std::fs::create_dir_all(out.join(".spool/staged")).unwrap();
    std::fs::write(out.join(".spool/000000000001.findings.json"), "{\"kind\": \"findings\", \"meth").unwrap();
    std::fs::write(out.join(".spool/staged/000000000002.json"), "{\"campaign_id\": nu").unwrap();
    let o = ptxfuzz_output(&["deliver", "--server", &server.url(), "--out", out.to_str().unwrap(), "--wait", "5"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("2 rejected (moved to .spool/rejected/"), "{t}");
    assert!(t.contains("2 message(s) were not delivered: moved to") && t.contains(".spool/rejected"), "{t}");
    assert!(t.contains("ptxfuzz deliver --findings"), "{t}");
    let rejected = std::fs::read_dir(out.join(".spool/rejected")).unwrap().count();
    assert_eq!(rejected, 4, "two files and their .problem.txt");
    let _ = std::fs::remove_dir_all(&out);
}

/// A planted-engine campaign (rz-as-rn: several findings within 20 k cases, the same ones for
/// the same seed) on `out`.
fn planted_campaign(out: &Path) -> Output {
    let target = format!("exec:{PLANTED} rz-as-rn");
    ptxfuzz_output(&[
        "campaign", "--target", &target, "--families", "add", "--types", "f32", "--cases", "20000", "--seed", "7", "--quiet",
        "--out", out.to_str().unwrap(),
    ])
}

#[test]
fn a_resumed_campaign_names_a_truncated_repro_json_and_rewrites_it_when_found_again() {
    let out = scratch("folders", "resume");
    let o = planted_campaign(&out);
    assert!(o.status.success(), "{}", text(&o));
    let first = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("repro.json").is_file())
        .expect("a finding");
    let json = first.join("repro.json");
    let whole = std::fs::read_to_string(&json).unwrap();
    std::fs::write(&json, &whole[..whole.len() / 3]).unwrap();
    let o = planted_campaign(&out);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains(&format!("{} is not a ptxfuzz reproducer: EOF while parsing", json.display())), "{t}");
    assert!(t.contains(&format!("so {} is not counted as a known finding", first.display())), "{t}");
    assert!(t.contains(&format!("rewrote {}, which did not read at the start", json.display())), "{t}");
    let again = std::fs::read_to_string(&json).unwrap();
    serde_json::from_str::<serde_json::Value>(&again).expect("repro.json whole again");
    // Counted as written by this run, not as known; nothing hidden left beside it.
    let key = first.file_name().unwrap().to_string_lossy().to_string();
    assert!(t.contains(&format!("NEW   {key}")), "{t}");
    let hidden: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n.to_string_lossy().starts_with(".")).collect();
    assert!(hidden.is_empty(), "{hidden:?}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_resumed_campaign_names_a_damaged_folder_it_did_not_meet_at_the_end_and_removes_a_killed_writers_leftover() {
    let out = damaged_copy("resume-interp");
    // What `repro::write_dir` leaves when killed mid-write, by a process that is gone (above
    // Linux's largest process id), two minutes ago.
    let leftover = out.join(".add.f32~rounding~normal~sm90.tmp-4194305");
    std::fs::create_dir_all(&leftover).unwrap();
    std::fs::write(leftover.join("repro.json"), "{").unwrap();
    let two_minutes_ago = std::time::SystemTime::now() - Duration::from_secs(120);
    std::fs::File::open(&leftover).unwrap().set_modified(two_minutes_ago).unwrap();
    // The reference judged against itself finds nothing: the damaged folder is not met again.
    let o = ptxfuzz_output(&["campaign", "--target", "interp", "--cases", "20000", "--quiet", "--out", out.to_str().unwrap()]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains(&format!("campaign: removed {}, left unfinished by a campaign that was killed", leftover.display())), "{t}");
    assert!(!leftover.exists());
    let end = t.split("mismatches,").nth(1).unwrap_or_default();
    assert!(end.contains("1 finding folder(s) in") && end.contains("did not read and were not found again"), "{t}");
    assert!(end.contains(&format!("    {DAMAGED}: ")) && end.contains("is not a ptxfuzz reproducer"), "{t}");
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert!(summary["damaged_folders"][DAMAGED].as_str().unwrap().contains("repro.json"), "{summary}");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_folder_in_the_way_of_summary_json_is_refused_before_the_campaign_runs() {
    let out = scratch("folders", "summary-dir");
    std::fs::create_dir_all(out.join("summary.json")).unwrap();
    let t0 = Instant::now();
    let o = ptxfuzz_output(&["campaign", "--target", "interp", "--seconds", "30", "--quiet", "--out", out.to_str().unwrap()]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("summary.json is a folder") && t.contains("move it away (or choose another --out)"), "{t}");
    assert!(t0.elapsed() < Duration::from_secs(20), "refused up front, not after the campaign");
    assert!(!out.join("stats.jsonl").exists(), "nothing ran");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_campaigns_out_folder_is_a_corpus_of_the_reproducers_in_its_finding_folders() {
    let out = scratch("folders", "corpus");
    // The H100's eight finding folders (SIGNATURE/repro.json, .ptx, .cu), no file at the top.
    let o = ptxfuzz_output(&["campaign", "--target", "interp", "--corpus", H100, "--cases-per-program", "4", "--quiet", "--out", out.to_str().unwrap()]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("corpus: 8 file(s) replayed (0 undecodable)"), "{t}");
    let _ = std::fs::remove_dir_all(&out);
}
