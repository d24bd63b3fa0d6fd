//! The command line of `sweep` (and the neighbours a probe of the release binary found with
//! the same faults: `repro --sm`, `vm-ptx --sweep`, `gen --ptx`, `math eval`): what can fail
//! is refused before the sweep runs, with what to give instead, and values come in hex and
//! decimal.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{ptxfuzz_in, ptxfuzz_interrupted, scratch_created};

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");

/// [`ptxfuzz_in`] the system temp dir, so that nothing a run writes lands in the source tree.
fn ptxfuzz(args: &[&str]) -> (i32, String, String) {
    ptxfuzz_in(&std::env::temp_dir(), args)
}

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// `args` exits 1 before anything ran (no report on stdout, at once) with `why` on stderr.
fn refused_up_front(args: &[&str], why: &str) {
    let t = Instant::now();
    let (code, out, err) = ptxfuzz(args);
    assert_eq!(code, 1, "{args:?}: {out}{err}");
    assert!(out.is_empty() && err.contains(why), "{args:?}: {out}{err}");
    assert!(t.elapsed() < Duration::from_secs(20), "{args:?} took {:?}", t.elapsed());
}

#[test]
fn sweep_and_repro_take_sm_spelled_as_gen_takes_it_and_refuse_an_unknown_sm_up_front() {
    for sm in ["90", "sm_90"] {
        let (code, out, err) = ptxfuzz(&["sweep", "rcp.approx.f32", "--target", "interp", "--limit", "16", "--sm", sm]);
        assert_eq!(code, 0, "--sm {sm}: {err}");
        assert!(out.contains("16 inputs"), "{out}");
    }
    refused_up_front(&["sweep", "rcp.approx.f32", "--target", "interp", "--sm", "100a"], "give --sm 100 ");
    refused_up_front(&["sweep", "cvt.rn.f16.f32", "--target", "interp", "--sm", "sm_100f"], "give --sm 100 ");
    refused_up_front(&["sweep", "rcp.approx.f32", "--target", "interp", "--sm", "95"], "sm_95 is not a target");
    // repro checks --sm before it reads the finding: an unknown sm is named, a good one
    // passes on to the file (which does not exist here).
    refused_up_front(&["repro", "/nonexistent-finding", "--target", "interp", "--sm", "95"], "sm_95 is not a target");
    refused_up_front(&["repro", "/nonexistent-finding", "--target", "interp", "--sm", "89a"], "write sm_89");
    for sm in ["sm_90", "100a"] {
        let (code, _, err) = ptxfuzz(&["repro", "/nonexistent-finding", "--target", "interp", "--sm", sm]);
        assert_eq!(code, 1, "{err}");
        assert!(!err.contains("invalid digit") && err.contains("nonexistent-finding"), "--sm {sm}: {err}");
    }
}

#[test]
fn save_into_a_folder_writes_a_named_report_and_leaves_no_stray_file() {
    let d = scratch_created("ptxfuzz-sweep-cli", "save");
    let (code, _, err) = ptxfuzz_in(&d, &["sweep", "rcp.approx.f32", "--target", "interp", "--limit", "64", "--save", "."]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = ptxfuzz_in(&d, &["sweep", "cvt.rn.f16.f32", "--target", "interp", "--limit", "64", "--save", d.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(listing(&d), ["cvt.rn.f16.f32.sweep.json", "rcp.approx.f32.sweep.json"]);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("rcp.approx.f32.sweep.json")).unwrap()).unwrap();
    assert_eq!(json["inputs"], 64);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn unwritable_save_and_dump_paths_are_refused_before_the_sweep() {
    for option in ["--save", "--dump"] {
        refused_up_front(&["sweep", "ex2.approx.f16", "--target", "interp", "--limit", "16", option, "/proc/x"], "cannot create a file in /proc");
        refused_up_front(&["sweep", "ex2.approx.f16", "--target", "interp", "--limit", "16", option, "/dev/null"], "is not a plain file");
    }
    refused_up_front(&["sweep", "cvt.rn.f16.f32", "--target", "interp", "--limit", "16", "--save", "/proc/x"], "cannot create a file in /proc");
}

#[test]
fn a_start_past_the_input_space_is_refused_with_its_size_in_hex_and_decimal() {
    refused_up_front(&["sweep", "ex2.approx.f16", "--target", "interp", "--start", "0x10000"], "2^16 = 0x10000 (65536) inputs");
    refused_up_front(&["sweep", "setp.lt.f16", "--target", "interp", "--start", "0x100000000"], "2^32 = 0x100000000 (4294967296) inputs");
    let (code, out, err) = ptxfuzz(&["sweep", "ex2.approx.f16", "--target", "interp", "--start", "0xffff", "--limit", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": 1 inputs of 2^16"), "the last input alone: {out}");
}

#[test]
fn dump_with_judge_or_examples_is_a_usage_error() {
    for extra in [["--judge", "sm_90"], ["--examples", "3"]] {
        let mut args = vec!["sweep", "ex2.approx.f16", "--target", "interp", "--limit", "16", "--dump", "/tmp"];
        args.extend(extra);
        let (code, _, err) = ptxfuzz(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("cannot be used with"), "{err}");
    }
}

#[test]
fn the_text_and_json_reports_give_inputs_and_results_in_hex_and_decimal() {
    // The sm_90 profile's rcp.approx.f32 is 1 ulp off the correctly rounded result somewhere
    // in [1, 1 + 2^-11): a max-error line.
    let engine = format!("exec:{PTXFUZZ} exec-reference --profile sm_90");
    let plan = ["--start", "0x3f800000", "--limit", "4096"];
    let mut args = vec!["sweep", "rcp.approx.f32", "--target", engine.as_str()];
    args.extend(plan);
    let (code, out, err) = ptxfuzz(&args);
    assert_eq!(code, 0, "{err}");
    let line = out.lines().find(|l| l.contains("max error:")).unwrap_or_else(|| panic!("no max error line: {out}"));
    assert!(line.contains(" ulp at 0x3f8") && line.contains(" (1.00") && line.contains("got 0x3f7") && line.contains(" (0.99"), "{line}");
    args.push("--json");
    let (code, out, err) = ptxfuzz(&args);
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let at = &json["max_at"];
    let bits = u32::from_str_radix(at["operands"][0].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    let value: f32 = at["operands_decimal"][0].as_str().unwrap().parse().unwrap();
    assert_eq!(value.to_bits(), bits, "{at}");
    let got = u32::from_str_radix(at["got"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert_eq!(at["got_decimal"].as_str().unwrap().parse::<f32>().unwrap().to_bits(), got, "{at}");
    // Mismatch lines: the interpreter judged by the H100's bits.
    let mut args = vec!["sweep", "rcp.approx.f32", "--target", "interp", "--judge", "sm_90", "--examples", "2"];
    args.extend(plan);
    let (code, out, err) = ptxfuzz(&args);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("mismatch: ")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    for l in lines {
        assert!(l.contains("mismatch: 0x3f8") && l.contains(" (1.00") && l.contains("-> got 0x3f7") && l.contains("allowed 0x3f7") && l.matches(" (0.99").count() == 2, "{l}");
    }
}

#[test]
fn vm_ptx_sweep_of_an_unknown_form_names_the_nearest_and_how_to_list_them() {
    let (code, out, err) = ptxfuzz(&["vm-ptx", "--sm", "90", "--sweep", "rcp.aprox.f32"]);
    assert_eq!(code, 1);
    assert!(out.is_empty() && err.contains("rcp.approx.f32") && err.contains("`ptxfuzz vm-ptx --sm 90 --list`"), "{err}");
}

#[test]
fn gen_refuses_a_ptx_version_below_the_target_s_naming_the_minimum() {
    let (code, _, err) = ptxfuzz(&["gen", "--ptx", "1.0", "--count", "1", "--out", "/nonexistent/never"]);
    assert_eq!(code, 1);
    assert!(err.contains("--ptx 1.0 is below PTX ISA 7.8, the lowest that knows sm_90: give --ptx 7.8 or later"), "{err}");
}

#[test]
fn math_eval_notes_an_argument_that_rounds_to_zero_in_the_function_s_type() {
    let (code, out, err) = ptxfuzz(&["math", "eval", "sinf", "1e-50"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("note: operand '1e-50' is nearer zero than half the smallest subnormal .f32 value: it reads as 0x00000000 (0)"), "{err}");
    assert!(out.contains("correctly rounded"), "{out}");
    let (_, _, err) = ptxfuzz(&["math", "eval", "sinf", "1e-5"]);
    assert!(!err.contains("note"), "{err}");
}

/// SIGINT during a sweep: the batch in flight ends, the report of the inputs swept so far is
/// printed (and saved), and the exit status is 130, never a pass.
#[test]
fn an_interrupted_sweep_prints_its_partial_report_and_exits_130() {
    let d = scratch_created("ptxfuzz-sweep-cli", "sigint");
    // An instruction and a spelled form (cvt/setp/set/selp: sweep/forms.rs), each.
    for form in ["add.rn.f32", "cvt.rn.bf16.f32"] {
        let save = d.join(format!("{form}.json"));
        let o = ptxfuzz_interrupted(&["sweep", form, "--target", "interp", "--json", "--save", save.to_str().unwrap()], Duration::from_secs(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{err}");
        assert!(err.contains("sweep: interrupted after"), "{err}");
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
        assert_eq!(r["interrupted"], true, "{r}");
        let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
        assert_eq!(saved["interrupted"], true);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// SIGINT during a long `gen`: it stops between programs (every .ptx has its .json), says how
/// many it wrote, and exits 130.
#[test]
fn an_interrupted_gen_leaves_whole_file_pairs_and_exits_130() {
    let d = scratch_created("ptxfuzz-sweep-cli", "gen-sigint");
    let o = ptxfuzz_interrupted(&["gen", "--count", "1000000", "--out", d.to_str().unwrap()], Duration::from_secs(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("gen: interrupted: wrote "), "{err}");
    let files = listing(&d);
    let ptx = files.iter().filter(|f| f.ends_with(".ptx")).count();
    assert!(ptx > 0 && files.len() == 2 * ptx, "{} files, {ptx} .ptx", files.len());
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--truth` for a form the file does not record lists the forms it does, in sweep's spelling.
#[test]
fn truth_without_the_form_lists_the_forms_the_file_records() {
    let truth = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/sweeps.jsonl");
    refused_up_front(
        &["sweep", "add.rn.f32", "--target", "interp", "--truth", truth],
        "records no sweep of add.rn.f32; it records 21 form(s): ",
    );
    let (_, _, err) = ptxfuzz(&["sweep", "add.rn.f32", "--target", "interp", "--truth", truth]);
    assert!(err.contains("rcp.approx.f32") && err.contains("add.rn.bf16") && !err.contains("`op`"), "{err}");
}

/// A sweep's mismatches are its measurement: an instruction's and a spelled form's sweep both
/// report them and exit 0 (1 is for a sweep that failed), as `math-check` does.
#[test]
fn a_spelled_forms_sweep_with_mismatches_reports_them_and_exits_0() {
    let d = scratch_created("ptxfuzz-sweep-cli", "form-mismatch");
    // A "GPU" that rounds 1.5 + 1 ulp down in bf16 (0x3fc0, allowed) but gives 1.5 itself as
    // 0x3fc1 (not allowed: 1.5 is exact in bf16).
    let capture = d.join("capture.txt");
    std::fs::write(&capture, "cvt.rn.bf16.f32 0x3fc00000 -> 0x3fc1\ncvt.rn.bf16.f32 0x3fc00001 -> 0x3fc0\n").unwrap();
    let target = format!("replay:{}", capture.display());
    let (code, out, err) = ptxfuzz(&["sweep", "cvt.rn.bf16.f32", "--target", &target, "--start", "0x3fc00000", "--limit", "2", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!((r["inputs"].as_u64(), r["mismatches"].as_u64()), (Some(2), Some(1)), "{r}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_target_that_cannot_run_the_form_is_refused_before_the_sweep_naming_the_targets_that_can() {
    // An instruction and a spelled form, on the host FPU (x86-64: the only host engine).
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    for (form, gpu) in [("add.rn.f16", "cuda (an NVIDIA GPU of sm_53 or later)"), ("cvt.rn.f16.f32", "cuda (an NVIDIA GPU of sm_20 or later)")] {
        let why = format!("error: host does not run {form}; pick another with --target: interp (the reference interpreter), {gpu} or exec:COMMAND\n");
        refused_up_front(&["sweep", form, "--target", "host", "--limit", "5"], &why);
        let (_, _, err) = ptxfuzz(&["sweep", form, "--target", "host", "--limit", "5"]);
        // Chosen with --target, host is not explained; and no "sweeping" line promised a run.
        assert!(!err.contains("sweeping") && !err.contains("Without --target"), "{err}");
    }
    refused_up_front(&["sweep", "rcp.approx.f32", "--target", "host", "--dump", "/tmp"], "host does not run rcp.approx.f32; pick another with --target");
}
