//! `capture`, `capture-check`, `replay:`, `engines --check replay:` and `modes-check
//! --reclassify` as a user runs them: what a probe of the release binary found wrong (a
//! folder-wide capture-info.json, `--out` a folder, `--sm` spellings, bad capture lines, a
//! corrupt gzip, a cut-short reclassify line, unrecorded smoke cases counted as failures).

mod common;

use std::path::Path;

use common::{ptxfuzz, scratch_created};

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn capture(out: &Path, sm: &str, families: &str) -> (i32, String, String) {
    ptxfuzz(&["capture", "--target", "interp", "--sm", sm, "--families", families, "--cases-per-form", "8", "--out", s(out)])
}

#[test]
fn two_captures_in_one_folder_each_keep_their_own_info_and_replay_names_its_own_sm() {
    let d = scratch_created("ptxfuzz-capture-probe", "info");
    let (a, b) = (d.join("a.txt"), d.join("b.txt.gz"));
    assert_eq!(capture(&a, "90", "add").0, 0);
    assert_eq!(capture(&b, "100a", "mul").0, 0);
    let info_a: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("a.txt.info.json")).unwrap()).unwrap();
    let info_b: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("b.txt.gz.info.json")).unwrap()).unwrap();
    assert_eq!((info_a["sm"].as_u64(), info_a["capture"].as_str()), (Some(90), Some("a.txt")));
    assert_eq!((info_b["sm"].as_u64(), info_b["arch"].as_str()), (Some(100), Some("sm_100a")));
    assert!(!d.join("capture-info.json").exists(), "no folder-wide info for the next capture to overwrite");
    // Each replay says its own capture's sm, whichever was recorded last.
    let (_, out, _) = ptxfuzz(&["engines", "--check", &format!("replay:{}", a.display())]);
    assert!(out.contains("sm_90;") || out.contains("sm_90:"), "{out}");
    let (_, out, _) = ptxfuzz(&["engines", "--check", &format!("replay:{}", b.display())]);
    assert!(out.contains("sm_100"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_old_folder_wide_info_names_the_gpu_only_of_the_one_capture_it_can_belong_to() {
    let d = scratch_created("ptxfuzz-capture-probe", "old-info");
    let a = d.join("a.txt");
    std::fs::write(&a, "add.rn.f32 0x3f800000 0x3f800000 -> 0x40000000\n").unwrap();
    std::fs::write(d.join("capture-info.json"), r#"{"gpu": "Old GPU", "sm": 80}"#).unwrap();
    let (code, _, err) = ptxfuzz(&["capture-check", s(&a), "--target", "interp"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("recorded on Old GPU"), "the only capture in the folder: {err}");
    // A second capture beside it: the folder-wide info may be either's, so neither claims it.
    std::fs::write(d.join("b.txt"), "add.rn.f32 0x3f800000 0x00000000 -> 0x3f800000\n").unwrap();
    for f in ["a.txt", "b.txt"] {
        let (code, _, err) = ptxfuzz(&["capture-check", s(&d.join(f)), "--target", "interp"]);
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("Old GPU"), "{f}: {err}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_recorded_h100_capture_still_names_its_gpu_from_the_folder_wide_info() {
    let cases = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/cases.txt.gz");
    if !Path::new(cases).exists() {
        return;
    }
    let (_, _, err) = ptxfuzz(&["capture-check", cases, "--target", "interp", "--families", "rcp"]);
    assert!(err.contains("recorded on NVIDIA H100"), "its capture-info.json counts its 289 forms: {err}");
}

#[test]
fn capture_into_an_existing_folder_is_refused_up_front_and_leaves_no_partial() {
    let d = scratch_created("ptxfuzz-capture-probe", "folder-out");
    let (code, _, err) = capture(&d, "90", "add");
    assert_eq!(code, 1);
    assert!(err.contains("is a folder; give the capture file's path, e.g. --out"), "{err}");
    assert!(!err.contains("capture: target"), "refused before any work: {err}");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written, no .partial");
    assert!(!Path::new(&format!("{}.partial", d.display())).exists());
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn capture_and_capture_check_take_the_sm_spellings_campaign_takes() {
    let d = scratch_created("ptxfuzz-capture-probe", "sm");
    for sm in ["sm_90", "90", "100a", "sm_100f"] {
        let out = d.join(format!("{sm}.txt"));
        let (code, _, err) = capture(&out, sm, "add");
        assert_eq!(code, 0, "--sm {sm}: {err}");
        assert!(!err.contains("invalid digit"), "{err}");
        let (code, _, err) = ptxfuzz(&["capture-check", s(&out), "--target", "interp", "--sm", sm]);
        assert_eq!(code, 0, "capture-check --sm {sm}: {err}");
    }
    // The known sms are still checked, and listed.
    let (code, _, err) = capture(&d.join("x.txt"), "91", "add");
    assert_eq!(code, 1);
    assert!(err.contains("sm_91 is not a target") && err.contains("sm_75, 80"), "{err}");
    let (code, _, err) = ptxfuzz(&["capture-check", s(&d.join("90.txt")), "--target", "interp", "--sm", "90f"]);
    assert_eq!(code, 1);
    assert!(err.contains("sm_90f is not a target"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_capture_whose_only_line_is_bad_names_that_line_and_what_is_wrong() {
    let d = scratch_created("ptxfuzz-capture-probe", "bad-line");
    let f = d.join("c.txt");
    std::fs::write(&f, "# header\nfrobnicate.f32 0x1 -> 0x1\n").unwrap();
    let (code, _, err) = ptxfuzz(&["capture-check", s(&f), "--target", "interp"]);
    assert_eq!(code, 1);
    assert!(err.contains("holds no case") && err.contains("line 2 `frobnicate.f32 0x1 -> 0x1`") && err.contains("unknown opcode"), "{err}");
    // A long line is cut in the message.
    std::fs::write(&f, format!("frobnicate{} 0x1 -> 0x1\n", ".f32".repeat(100))).unwrap();
    let (_, _, err) = ptxfuzz(&["capture-check", s(&f), "--target", "interp"]);
    assert!(err.contains("...`") && err.len() < 600, "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_operand_wider_than_its_register_is_refused_when_the_capture_is_read_with_its_line() {
    let d = scratch_created("ptxfuzz-capture-probe", "wide");
    let f = d.join("c.txt");
    std::fs::write(&f, "add.rn.f32 0x3f800000 0x3f800000 -> 0x40000000\nadd.rn.f32 0x1ffffffff 0x0 -> 0x0\n").unwrap();
    let (code, _, err) = ptxfuzz(&["engines", "--check", &format!("replay:{}", f.display())]);
    assert_eq!(code, 1);
    assert!(err.contains("c.txt:2: operand 1 (0x1ffffffff) is wider than the 32-bit register"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_file_that_is_not_valid_gzip_is_said_so_with_what_to_do() {
    let d = scratch_created("ptxfuzz-capture-probe", "gzip");
    let f = d.join("c.txt.gz");
    // The gzip magic, then garbage: a truncated download.
    std::fs::write(&f, [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xff, 0x00]).unwrap();
    let (code, _, err) = ptxfuzz(&["capture-check", s(&f), "--target", "interp"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not a valid gzip capture") && err.contains("record it again"), "{err}");
    assert!(!err.contains("replay:PATH"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn reclassifying_a_line_with_too_few_inputs_is_an_error_about_the_line() {
    let d = scratch_created("ptxfuzz-capture-probe", "reclassify");
    let f = d.join("modes.jsonl");
    let line = serde_json::json!({
        "program": "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\n// outputs: %f2\n",
        "inputs": ["0x3f800000"], "isa": ["0x40000000"], "compiled": ["0x40000000"],
        "differing_cases": 1, "cases": 1
    });
    std::fs::write(&f, format!("{line}\n")).unwrap();
    let exec = format!("exec:{PTXFUZZ} exec-reference");
    let (code, out, err) = ptxfuzz(&["modes-check", "--reclassify", s(&f), "--target", &exec]);
    assert_eq!(code, 1);
    assert!(err.contains("modes.jsonl:1: \"inputs\" has 1 value(s), the program reads 2"), "{err}");
    assert!(!out.contains("isa run faulted") && !err.contains("isa run faulted"), "{out}{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn engines_check_of_a_capture_counts_unrecorded_cases_as_not_covered_not_failed() {
    let d = scratch_created("ptxfuzz-capture-probe", "engines");
    let f = d.join("c.txt");
    let (code, _, err) =
        ptxfuzz(&["capture", "--target", "interp", "--forms", "cvt.rn.bf16.f32", "--cases-per-form", "4", "--out", s(&f)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = ptxfuzz(&["engines", "--check", &format!("replay:{}", f.display())]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("not covered (the capture does not record the case), 0 failed"), "{out}");
    assert!(out.contains("not covered: cvt.rn.bf16.f32 ties to even"), "{out}");
    assert!(!out.contains("FAILED"), "{out}");
    // A recorded case whose result is wrong still fails.
    std::fs::write(&f, "cvt.rn.bf16.f32 0x3f808000 -> 0x3f81\n").unwrap();
    let (code, out, _) = ptxfuzz(&["engines", "--check", &format!("replay:{}", f.display())]);
    assert_eq!(code, 1);
    assert!(out.contains("FAILED: cvt.rn.bf16.f32 ties to even (down)"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn modes_check_on_a_one_mode_target_leaves_an_earlier_differ_file_untouched() {
    let d = scratch_created("ptxfuzz-capture-probe", "modes-differ");
    let f = d.join("modes.jsonl");
    std::fs::write(&f, "{\"earlier\": true}\n").unwrap();
    let (code, out, err) = ptxfuzz(&["modes-check", "--target", "interp", "--programs", "4", "--differ", s(&f)]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("runs programs one way only"), "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "{\"earlier\": true}\n", "--differ was truncated before the target was refused");
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--families cvt` (and setp, set, selp) records the spelled forms `--forms cvt` records; it
/// once stopped at its first form with an internal register error.
#[test]
fn families_cvt_setp_set_and_selp_record_the_forms_that_forms_records() {
    let d = scratch_created("ptxfuzz-capture-probe", "families-spelled");
    for family in ["cvt", "setp", "set", "selp"] {
        let (a, b) = (d.join(format!("{family}-families.txt")), d.join(format!("{family}-forms.txt")));
        let (code, _, err) = capture(&a, "90", family);
        assert_eq!(code, 0, "--families {family}: {err}");
        assert!(!err.contains("register"), "{err}");
        let (code, _, err) =
            ptxfuzz(&["capture", "--target", "interp", "--sm", "90", "--forms", family, "--cases-per-form", "8", "--out", s(&b)]);
        assert_eq!(code, 0, "--forms {family}: {err}");
        let (got, want) = (std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
        assert!(got.lines().count() > 8, "--families {family} recorded {} line(s)", got.lines().count());
        assert_eq!(got, want, "--families {family} and --forms {family} differ");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
