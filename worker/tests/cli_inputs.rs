//! The `ptxfuzz` binary given files and words it must refuse clearly: a finding folder from
//! someone else, devices and huge files, impossible recorded results, misplaced PTX words.

mod common;

use std::path::Path;

use common::{ptxfuzz, scratch_created};

/// A finding whose recorded target is a shell command that would create `marker`.
fn planted_finding(dir: &Path, marker: &Path) -> std::path::PathBuf {
    let finding = dir.join("mul.rn.f16~rounding~normal.normal~sm-");
    std::fs::create_dir_all(&finding).unwrap();
    let json = serde_json::json!({
        "ptxfuzz_repro": 1, "signature": "mul.rn.f16~rounding~normal.normal~sm-", "class": "rounding",
        "target": format!("exec:touch {}; false", marker.display()), "device": "external engine", "sm": 90,
        "program": {"body": ["mul.rn.f16 %h1, %h0, %h0;"], "inputs": ["%h0"], "outputs": ["%h1"], "types": {"%h0": "f16", "%h1": "f16"}},
        "program_text": "// inputs: %h0:f16\nmul.rn.f16 %h1, %h0, %h0;\n// outputs: %h1\n",
        "inputs": ["0x3c80"], "inputs_decimal": ["1.125"], "expected": ["0x3d10"], "actual": ["0x3d11"],
        "failing_outputs": [0], "found_after_cases": 8199, "probes": 165, "steps": 8, "judge": "spec", "exec": "isa",
        "found_at": "2026-12-07T03:35:19.916716431Z"
    });
    std::fs::write(finding.join("repro.json"), json.to_string()).unwrap();
    finding
}

#[test]
fn repro_never_runs_a_recorded_command_nor_does_a_campaign_over_the_folder() {
    let dir = scratch_created("cli-inputs", "pwn");
    let marker = dir.join("PWNED");
    let corpus = dir.join("corpus");
    let finding = planted_finding(&corpus, &marker);
    let f = finding.to_str().unwrap();
    let (code, _, err) = ptxfuzz(&["repro", f]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("--target 'exec:touch {}; false'", marker.display())) && err.contains("--target interp"), "{err}");
    assert!(!marker.exists(), "the recorded command ran");
    // Named elsewhere, it runs there: the interpreter gives the allowed result.
    let (code, out, err) = ptxfuzz(&["repro", f, "--target", "interp"]);
    assert_eq!(code, 3, "{out}{err}");
    // A campaign's corpus takes the case from the file, never its target.
    let out_dir = dir.join("out");
    let (code, out, err) =
        ptxfuzz(&["campaign", "--target", "interp", "--quiet", "--cases", "2000", "--corpus", corpus.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
    assert!(code == 0 || code == 3, "{out}{err}");
    assert!(!marker.exists(), "a corpus file's command ran");
    // A recorded target that does not open says where it came from and what overrides it.
    let text = std::fs::read_to_string(finding.join("repro.json")).unwrap().replace(&format!("exec:touch {}; false", marker.display()), "bogus");
    std::fs::write(finding.join("repro.json"), text).unwrap();
    let (code, _, err) = ptxfuzz(&["repro", f]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot open target 'bogus', which") && err.contains("records; pass --target"), "{err}");
}

#[test]
fn repro_errors_name_the_file_and_the_field_in_user_terms() {
    let dir = scratch_created("cli-inputs", "repro-json");
    let file = dir.join("repro.json");
    let f = file.to_str().unwrap();
    for (text, want) in [
        ("[]", "holds a JSON array, not a reproducer"),
        ("\u{feff}[]", "holds a JSON array, not a reproducer"),
        (r#"{"target":{"name":"interp"},"seed":1,"elapsed_s":5.0}"#, "is a campaign's summary, not a finding"),
        (r#"{"ptxfuzz_repro":1,"found_at":"yesterday"}"#, "field `"),
    ] {
        std::fs::write(&file, text).unwrap();
        let (code, _, err) = ptxfuzz(&["repro", f]);
        assert_eq!(code, 1);
        assert!(err.contains(f) && err.contains(want) && !err.contains("struct Reproducer"), "{text}: {err}");
    }
    let (code, _, err) = ptxfuzz(&["repro", "/dev/zero"]);
    assert_eq!(code, 1);
    assert!(err.contains("/dev/zero is not a regular file"), "{err}");
}

#[test]
fn capture_check_refuses_endless_lines_and_impossible_results() {
    let (code, _, err) = ptxfuzz(&["capture-check", "/dev/zero", "--target", "interp"]);
    assert_eq!(code, 1);
    assert!(err.contains("/dev/zero") && err.contains("a line longer than 64 KiB"), "{err}");
    let dir = scratch_created("cli-inputs", "capture");
    let file = dir.join("cap.txt");
    for (line, want) in [
        ("add.f32 0x1 0x2 -> 0x123456789", "cap.txt:1: result 0x123456789 is too wide"),
        ("setp.lt.f32 0x1 0x2 -> 0x7", "cap.txt:1: result 0x7 is too wide: a setp result is 0 to 3"),
    ] {
        std::fs::write(&file, format!("{line}\n")).unwrap();
        let (code, _, err) = ptxfuzz(&["capture-check", file.to_str().unwrap(), "--target", "interp"]);
        assert_eq!(code, 1);
        assert!(err.contains(want), "{line}: {err}");
    }
}

#[test]
fn eval_names_misplaced_words_and_takes_ptx_literals_and_commas() {
    for (args, want) in [
        (&["eval", "f32", "1", "2"][..], "is a type, not an opcode"),
        (&["eval", "add.add.f32", "1", "2"][..], "is an opcode, not a modifier"),
        (&["eval", "ftz", "1"][..], "is a modifier, not an opcode"),
        (&["eval", "min.f16x2", "1,x", "2"][..], "operand '1,x': lane 1 ('x')"),
        (&["eval", "add.rn.f64", "0f3f800000", "1"][..], "PTX f32 literal"),
    ] {
        let (code, _, err) = ptxfuzz(args);
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains(want) && !err.contains("did you mean"), "{args:?}: {err}");
    }
    assert_eq!(ptxfuzz(&["eval", "add.rn.f32", "0f3f800000", "1"]).1, "0x40000000\t2\n");
    assert_eq!(ptxfuzz(&["eval", "add.rn.f64", "0d3ff0000000000000", "1"]).1, "0x4000000000000000\t2\n");
    assert_eq!(ptxfuzz(&["eval", "add.rn.f32", "1,", "2"]).1, "0x40400000\t3\n");
    assert_eq!(ptxfuzz(&["eval", "min.f16x2", "1,", "2"]).1, "0x3c003c00\t1,1\n");
}

#[test]
fn options_without_a_floor_or_advice_that_fails_are_refused() {
    let (code, _, err) = ptxfuzz(&["campaign", "--stats-every", "0", "--target", "interp"]);
    assert_eq!(code, 2);
    assert!(err.contains("give at least 0.1 s"), "{err}");
    let (code, _, err) = ptxfuzz(&["vm-ptx", "--sweep", "add.rn.f64"]);
    assert_eq!(code, 1);
    assert!(err.contains("too many to sweep") && !err.contains("--no-gpu-kernel"), "{err}");
}

#[test]
fn engines_check_takes_a_timeout() {
    let t0 = std::time::Instant::now();
    let (code, out, err) = ptxfuzz(&["engines", "--timeout", "1", "--check", "exec:sleep 100"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("timed out after 1 s (raise --timeout"), "{out}{err}");
    // The batch's one timeout fails every check: one line says so, not one per check.
    assert_eq!(out.matches("FAILED").count(), 1, "{out}");
    assert!(out.contains("FAILED: 28 checks (add.rn.f32 rounds up past the half ulp ... "), "{out}");
    assert!(t0.elapsed().as_secs() < 30, "took {:?}", t0.elapsed());
}
