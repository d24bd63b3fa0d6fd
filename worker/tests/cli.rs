//! The `ptxfuzz` binary as a user runs it: output formats, exit codes, files written.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::ptxfuzz;

#[test]
fn eval_prints_hex_tab_decimal() {
    assert_eq!(ptxfuzz(&["eval", "add.rz.f32", "1", "0x33800000"]).1, "0x3f800000\t1\n");
    assert_eq!(ptxfuzz(&["eval", "fma.rn.f64", "0x3ff0000000000000", "2", "-1"]).1, "0x3ff0000000000000\t1\n");
    assert_eq!(ptxfuzz(&["eval", "testp.normal.f32", "-0"]).1, "1\ttrue\n");
    assert_eq!(ptxfuzz(&["eval", "min.NaN.f16x2", "0x7e003c00", "0x00004000"]).1, "0x7fff3c00\t1,nan\n");
}

#[test]
fn eval_answers_float_integer_cvt_in_hex_and_decimal() {
    assert_eq!(ptxfuzz(&["eval", "cvt.rni.s8.f32", "-300.5"]).1, "0x80\t-128\n");
    assert_eq!(ptxfuzz(&["eval", "cvt.rni.s32.f64", "nan"]).1, "0x80000000\t-2147483648\n");
    assert_eq!(ptxfuzz(&["eval", "cvt.rpi.ftz.s32.f32", "1e-40"]).1, "0x00000000\t0\n");
    assert_eq!(ptxfuzz(&["eval", "cvt.rn.f16.u32", "70000"]).1, "0x7c00\tinf\n");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.f32.s32", "5"]);
    assert_eq!(code, 1);
    assert!(err.contains("Rounding modifier is mandatory") && err.contains("9.7.9.21"), "{err}");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rn.f32.s8", "300"]);
    assert_eq!(code, 1);
    assert!(err.contains("outside .s8"), "{err}");
}

#[test]
fn eval_answers_comparisons_as_predicates_or_registers() {
    // Unordered less-than is true on NaN; q is the complement of the comparison (9.7.6.2).
    assert_eq!(ptxfuzz(&["eval", "setp.ltu.f32", "nan", "1"]).1, "1|0\ttrue|false\n");
    // set on f16x2 writes all ones per half where true: lower half 0 < 1 (9.7.7.1).
    assert_eq!(ptxfuzz(&["eval", "set.lt.and.u32.f16x2", "0x3c000000", "0x00003c00", "1"]).1, "0x0000ffff\t65535\n");
    assert_eq!(ptxfuzz(&["eval", "set.gt.f32.f32", "2", "1"]).1, "0x3f800000\t1\n");
    assert_eq!(ptxfuzz(&["eval", "selp.f64", "1.5", "2", "0"]).1, "0x4000000000000000\t2\n");
    assert_eq!(ptxfuzz(&["eval", "selp.s16", "-5", "2", "1"]).1, "0xfffb\t-5\n");
    let (code, _, err) = ptxfuzz(&["eval", "setp.lt.and.f32", "1", "2", "maybe"]);
    assert_eq!(code, 1);
    assert!(err.contains("predicate 'maybe'"), "{err}");
    let (code, _, err) = ptxfuzz(&["eval", "setp.lt.ftz.bf16", "1", "2"]);
    assert_eq!(code, 1);
    assert!(err.contains("9.7.7.2"), "{err}");
}

#[test]
fn eval_answers_narrow_format_cvt_with_each_lane_in_decimal() {
    // 500 saturates to e4m3's MAX_NORM 448 (.satfinite); a goes to the upper byte.
    assert_eq!(ptxfuzz(&["eval", "cvt.rn.satfinite.e4m3x2.f32", "1", "500"]).1, "0x387e\t448,1\n");
    // A NaN has no e2m1 encoding: +MAX_NORM (6); -0.3 rounds to -0.5.
    assert_eq!(ptxfuzz(&["eval", "cvt.rn.satfinite.e2m1x2.f32", "nan", "-0.3"]).1, "0x79\t-0.5,6\n");
    assert_eq!(ptxfuzz(&["eval", "cvt.rp.satfinite.ue8m0x2.f32", "3", "0.1"]).1, "0x817c\t0.125,4\n");
    assert_eq!(ptxfuzz(&["eval", "--accept", "cvt.rn.f16x2.e4m3x2", "0x387f"]).1, "0x3c007fff\tnan,1\t(lane0: any NaN)\n");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rn.e4m3x2.f32", "1", "2"]);
    assert_eq!(code, 1);
    assert!(err.contains(".satfinite modifier is mandatory") && err.contains("9.7.9.21"), "{err}");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rn.f16x2.e2m1x2", "0x1ff"]);
    assert_eq!(code, 1);
    assert!(err.contains("more than 8 bits"), "{err}");
}

#[test]
fn eval_answers_tf32_and_stochastic_rounding_cvt() {
    // 1 + 2^-11 is a tf32 tie: .rna goes away from zero, .rn to even; the 13 low bits stay 0.
    assert_eq!(ptxfuzz(&["eval", "cvt.rna.tf32.f32", "1.00048828125"]).1, "0x3f802000\t1.0009766\n");
    assert_eq!(ptxfuzz(&["eval", "cvt.rn.tf32.f32", "1.00048828125"]).1, "0x3f800000\t1\n");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rna.relu.tf32.f32", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("has no .relu") && err.contains("9.7.9.21"), "{err}");
    // 1 + 2^-8 is half a bf16 step above 1: rbits 0xffff (upper half, a) carries, 0 (b) does not.
    assert_eq!(ptxfuzz(&["eval", "cvt.rs.bf16x2.f32", "1.00390625", "1.00390625", "0xffff0000"]).1, "0x3f813f80\t1,1.01\n");
    // The x4 destinations: a in the top byte, printed low element (f's) first; 1.1 rounds away
    // with a's byte of rbits 0x40 (0.8 of a step plus a quarter carries), not with 0.
    assert_eq!(ptxfuzz(&["eval", "cvt.rs.satfinite.e4m3x4.f32", "1", "2", "3", "4", "0"]).1, "0x38404448\t4,3,2,1\n");
    assert_eq!(ptxfuzz(&["eval", "cvt.rs.satfinite.e4m3x4.f32", "1.1", "1.1", "0", "0", "0x40000000"]).1, "0x39380000\t0,0,1,1.125\n");
    let accept = ptxfuzz(&["eval", "--accept", "cvt.rs.satfinite.e2m1x4.f32", "1.1", "0", "0", "0", "0"]).1;
    assert!(accept.starts_with("0x2000\t0,0,0,1\t(") && accept.contains("0x3 (1.5) (rbits-layout)"), "{accept}");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rs.e4m3x4.f32", "1", "2", "3", "4", "0"]);
    assert_eq!(code, 1);
    assert!(err.contains(".satfinite, which is mandatory") && err.contains("9.7.9.21"), "{err}");
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rs.satfinite.e4m3x4.f32", "1", "2", "3", "0"]);
    assert_eq!(code, 1);
    assert!(err.contains("takes a, b, e, f (f32) and rbits (b32), not 4"), "{err}");
}

#[test]
fn eval_answers_mixed_precision_arithmetic_on_the_widened_operands() {
    // bf16 1.0 + 2^-24 in f32: a tie, to even (1.0); .rp goes up one ulp.
    assert_eq!(ptxfuzz(&["eval", "add.f32.bf16", "1", "0x33800000"]).1, "0x3f800000\t1\n");
    assert_eq!(ptxfuzz(&["eval", "add.rp.f32.bf16", "1", "0x33800000"]).1, "0x3f800001\t1.0000001\n");
    // The f16 product (1 + 2^-10)^2 is not rounded before c is added: 2^-20 remains.
    assert_eq!(ptxfuzz(&["eval", "fma.rn.f32.f16", "0x3c01", "0x3c01", "-1.001953125"]).1, "0x35800000\t9.536743e-7\n");
    let (code, _, err) = ptxfuzz(&["eval", "fma.f32.f16", "1", "2", "3"]);
    assert_eq!(code, 1);
    assert!(err.contains("no default") && err.contains("9.7.5.3"), "{err}");
}

#[test]
fn eval_accept_lists_every_reading() {
    let (_, out, _) = ptxfuzz(&["eval", "--accept", "mul.rn.ftz.f32", "0x20000000", "0x1fffffff"]);
    assert_eq!(out, "0x00800000 | 0x00000000 (ftz-before-rounding)\t1.1754944e-38 | 0\n");
    let (_, out, _) = ptxfuzz(&["eval", "--accept", "rcp.approx.f32", "3"]);
    assert!(out.starts_with("0x3eaaaaaa..0x3eaaaaac\t"), "{out}");
    assert!(out.contains("exact 0.333"), "{out}");
}

#[test]
fn illegal_forms_and_bad_operands_exit_1_with_one_line() {
    let (code, out, err) = ptxfuzz(&["eval", "fma.f32", "1", "2", "3"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err, "error: fma.f32: a rounding modifier (.rn/.rz/.rm/.rp) is required (PTX ISA 9.7.3.6)\n");
    let (code, _, err) = ptxfuzz(&["eval", "add.rn.f16", "0x12345", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("16 bits"), "{err}");
}

#[test]
fn batch_answers_every_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxfuzz"))
        .args(["eval", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"add.rn.f32 0x3f800000 0x3f800000\nnope\nsqrt.rn.f64 4\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], "0x40000000");
    assert!(lines[1].starts_with("error: "));
    assert_eq!(lines[2], "0x4000000000000000");
}

#[test]
fn nonsense_durations_and_zero_counts_are_usage_errors_not_panics() {
    for args in [
        &["campaign", "--target", "interp", "--seconds=-1"][..],
        &["campaign", "--target", "interp", "--seconds", "nan"],
        &["campaign", "--target", "interp", "--cases-per-program", "0"],
        &["campaign", "--target", "interp", "--batch-cases", "0"],
        &["campaign", "--target", "interp", "--timeout", "0"],
        &["campaign", "--compiled-share", "2"],
        &["campaign", "--compiled-share", "nan"],
        &["bench", "--seconds", "nan", "--form", "add.rn.f32"],
        &["sweep", "add.rn.f32", "--target", "interp", "--stride", "0"],
        &["sweep", "add.rn.f32", "--target", "interp", "--limit", "0"],
        &["capture", "--target", "interp", "--out", "unused.txt", "--cases-per-form", "0"],
        &["gen", "--count", "0", "--out", "unused"],
    ] {
        let (code, out, err) = ptxfuzz(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty() && err.starts_with("error: invalid value") && !err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_negative_number_after_an_option_is_its_value_and_the_value_s_parser_answers() {
    for (args, why) in [
        (&["campaign", "--target", "interp", "--seconds", "-1"][..], "'-1' for '--seconds <SECONDS>': give seconds from 0 to"),
        (&["campaign", "--compiled-share", "-0.5"], "'-0.5' for '--compiled-share <COMPILED_SHARE>': give a share from 0 to 1"),
        (&["sweep", "add.rn.f32", "--target", "interp", "--limit", "-5"], "'-5' for '--limit <LIMIT>': not a count"),
        (&["campaign", "--target", "interp", "--jobs", "-2"], "'-2' for '--jobs <JOBS>'"),
        // Zero is refused by the same parser, with the range and what the default is.
        (&["campaign", "--target", "interp", "--jobs", "0"], "'0' for '--jobs <JOBS>': give 1 to 65535: threads, one per core without --jobs"),
    ] {
        let (code, out, err) = ptxfuzz(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty() && err.starts_with(&format!("error: invalid value {why}")), "{args:?}: {err}");
    }
}

/// `args` run with stdout (or, with `stderr`, stderr) a pipe whose reader is gone before ptxfuzz
/// starts, as `ptxfuzz ... | head` leaves it once `head` has its lines: status and stderr.
fn into_closed_pipe(args: &[&str], stderr: bool, input: &[u8]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ptxfuzz"));
    cmd.args(args).stdin(Stdio::piped()).env("RUST_BACKTRACE", "1");
    if stderr {
        cmd.stdout(Stdio::null()).stderr(writer);
    } else {
        cmd.stdout(writer).stderr(Stdio::piped());
    }
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn output_into_a_closed_pipe_ends_quietly_with_status_141() {
    // A print macro (eval), `write!` to stdout (engines, vm-ptx), a buffered batch (eval --batch).
    let lines = "add.rn.f32 1 2\n".repeat(100);
    for (args, input) in [
        (&["eval", "add.rn.f32", "1", "2"][..], ""),
        (&["engines"][..], ""),
        (&["vm-ptx", "--sm", "90", "--list"][..], ""),
        (&["eval", "--batch"][..], lines.as_str()),
    ] {
        let (code, err) = into_closed_pipe(args, false, input.as_bytes());
        assert_eq!((code, err.as_str()), (141, ""), "{args:?}");
    }
    // stderr gone too: the error line of a bad operand has nowhere to go.
    assert_eq!(into_closed_pipe(&["eval", "add.rn.f32", "1", "zz"], true, b"").0, 141);
    // A child's pipe is not ptxfuzz's output: an exec engine that exits at once (its stdin
    // then a broken pipe, or its reply an early EOF) is an engine fault the campaign reports.
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-dead-engine-{}", std::process::id()));
    let (code, out, _) = ptxfuzz(&["campaign", "--target", "exec:sh -c 'exit 3'", "--cases", "4096", "--quiet", "--out", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.contains("engine faults (not findings): io"), "{out}");
    // Every program faulted, so nothing was tested: an error after the summary, not a pass.
    assert_eq!(code, 1, "{out}");
}

#[test]
fn a_sweep_whose_target_faults_on_every_batch_exits_1_after_its_report() {
    let (code, out, err) = ptxfuzz(&["sweep", "add.rn.f16", "--target", "exec:exit 3", "--limit", "1000"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("engine faults: 1 batches"), "{out}");
    assert!(err.contains("the target judged no input") && err.contains("ptxfuzz engines --check 'exec:exit 3'"), "{err}");
    // A working engine's sweep of the same inputs passes.
    let (code, out, err) = ptxfuzz(&["sweep", "add.rn.f16", "--target", "interp", "--limit", "1000"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// An exec engine whose command the shell cannot find would fault on every batch: the sweep
/// stops at the first (it used to restart `sh` for each of 65,536 batches, 7 minutes), naming
/// the command and the shell's own words.
#[test]
fn a_sweep_whose_engine_command_does_not_exist_stops_at_once_naming_it() {
    let t = std::time::Instant::now();
    let (code, out, err) = ptxfuzz(&["sweep", "add.rn.f16", "--target", "exec:/nonexistent/engine"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("cannot run the engine: `/nonexistent/engine` exited with status 127"), "{err}");
    assert!(err.contains("not found") && err.contains("check the command after exec:"), "{err}");
    assert!(t.elapsed() < std::time::Duration::from_secs(60), "{:?}", t.elapsed());
}

#[test]
fn a_campaign_whose_target_faults_on_every_program_exits_1_after_its_summary() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-failing-engine-{}", std::process::id()));
    let (code, out, err) = ptxfuzz(&["campaign", "--target", "exec:exit 3", "--seconds", "1", "--quiet", "--out", dir.to_str().unwrap()]);
    let summary = std::fs::read_to_string(dir.join("summary.json"));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("engine faults (not findings): io"), "{out}");
    assert!(err.contains("the target judged no case") && err.contains("ptxfuzz engines --check 'exec:exit 3'"), "{err}");
    assert!(summary.is_ok_and(|s| s.contains("\"faults\"")), "the summary is written first");
}

/// A command the shell cannot find ends the campaign at its first batch, long before
/// --seconds, with the summary written and the reason as the error.
#[test]
fn a_campaign_whose_engine_command_does_not_exist_stops_at_its_first_batch() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-missing-engine-{}", std::process::id()));
    let t = std::time::Instant::now();
    let (code, out, err) = ptxfuzz(&["campaign", "--target", "exec:/nonexistent/engine", "--seconds", "600", "--quiet", "--out", dir.to_str().unwrap()]);
    let summary = std::fs::read_to_string(dir.join("summary.json"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(t.elapsed() < std::time::Duration::from_secs(60), "{:?}", t.elapsed());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("engine faults (not findings): cannot-run 1"), "{out}");
    assert!(err.contains("target exec:/nonexistent/engine: cannot run the engine") && err.contains("not found"), "{err}");
    assert!(summary.is_ok_and(|s| s.contains("cannot-run")), "the summary is written first");
}

#[test]
fn a_campaign_whose_target_supports_none_of_its_programs_exits_1_naming_what_to_change() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-host-f16-{}", std::process::id()));
    let (code, out, err) = ptxfuzz(&["campaign", "--target", "host", "--types", "f16", "--seconds", "1", "--quiet", "--out", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("supports none of the") && out.contains("choose --types/--families") && !out.contains("run longer"), "{out}");
    assert!(err.contains("the target judged no case: it supports none of the"), "{err}");
}

#[test]
fn a_target_suffix_that_does_not_exist_for_its_sm_is_refused_naming_the_plain_target() {
    for args in [&["gen", "--sm", "75a", "--count", "1", "--out", "/nonexistent/never"][..], &["vm-ptx", "--sm", "90f"], &["campaign", "--target", "interp", "--sm", "89a", "--seconds", "1", "--out", "/nonexistent/never"]] {
        let (code, _, err) = ptxfuzz(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains("is not a target: the `a` suffix exists for sm_90 and sm_100 on") && err.contains("write sm_"), "{args:?}: {err}");
    }
}

#[test]
fn gen_campaign_from_writes_the_programs_a_campaign_of_that_seed_draws_under_their_numbers() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-gen-campaign-{}", std::process::id()));
    let (code, _, err) = ptxfuzz(&["gen", "--seed", "5", "--campaign-from", "1000", "--count", "2", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // The campaign's own drawing (`campaign::source::random_item`) with its default generator.
    let gen = ptx::gen::Generator::new(worker::campaign::default_generator()).unwrap();
    for n in [1000, 1001] {
        let campaign = worker::campaign::source::random_item(&gen, 5, n, 1).expect("a program").program;
        let written = std::fs::read_to_string(dir.join(format!("c5_{n:06}.json"))).unwrap();
        assert_eq!(written.trim(), campaign.to_json(), "program {n}");
    }
    let (code, _, err) = ptxfuzz(&["gen", "--seed", "5", "--campaign-from", &u64::MAX.to_string(), "--count", "2", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("past the last program number"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn gen_writes_ptx_and_json_per_program() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-gen-{}", std::process::id()));
    let (code, _, err) = ptxfuzz(&["gen", "--seed", "7", "--count", "5", "--sm", "90", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names.len(), 10);
    let json = std::fs::read_to_string(dir.join("s7_000000.json")).unwrap();
    ptx::program::Program::from_json(&json).expect("valid program JSON");
    let module = std::fs::read_to_string(dir.join("s7_000000.ptx")).unwrap();
    assert!(module.contains(".target sm_90"));
    // The folder is a corpus of exactly those programs (the .ptx views skipped), and `repro`
    // of one says so instead of "missing field `ptxfuzz_repro`".
    let out = dir.join("campaign");
    let (code, stdout, err) = ptxfuzz(&["campaign", "--target", "interp", "--corpus", dir.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("corpus: 5 file(s) replayed (0 undecodable)"), "{stdout}");
    let (code, _, err) = ptxfuzz(&["repro", dir.join("s7_000000.json").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("is a program (as `ptxfuzz gen` writes them), not a finding's repro.json") && err.contains("campaign --corpus"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn math_eval_prints_reference_and_range() {
    let (code, out, _) = ptxfuzz(&["math", "eval", "sinf", "0x3f800000"]);
    assert_eq!(code, 0);
    assert!(out.contains("correctly rounded 0x3f576aa4"), "{out}");
    assert!(out.contains("2 ulp"), "{out}");
    let (code, _, err) = ptxfuzz(&["math", "eval", "nosuchfn", "1"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: "), "{err}");
    // The function as the user typed it, and what to give.
    let (code, _, err) = ptxfuzz(&["math", "eval", "powf", "2"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: powf takes 2 argument(s), got 1: give 2 operand(s)"), "{err}");
}

#[test]
fn a_sweep_checks_its_truth_file_and_output_folders_before_it_runs() {
    let truth = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/sweeps.jsonl");
    let missing = std::env::temp_dir().join(format!("ptxfuzz-no-such-folder-{}", std::process::id()));
    let missing_file = missing.join("report.json");
    for (args, why) in [
        (vec!["rcp.approx.f32", "--limit", "1000", "--truth", truth], "--truth needs a whole sweep"),
        (vec!["add.rn.f32", "--truth", truth], "records no sweep of add.rn.f32"),
        (vec!["rcp.approx.f32", "--limit", "1000", "--save", missing_file.to_str().unwrap()], "does not exist; create it first"),
        (vec!["cvt.rn.f16.f32", "--limit", "1000", "--save", missing_file.to_str().unwrap()], "does not exist; create it first"),
    ] {
        let mut all = vec!["sweep", "--target", "interp"];
        all.extend(args.iter().copied());
        let (code, out, err) = ptxfuzz(&all);
        assert_eq!(code, 1, "{all:?}: {err}");
        // Nothing swept: the report would be on stdout.
        assert!(out.is_empty() && err.contains(why), "{all:?}: {out}{err}");
    }
}

/// A decimal operand that rounding takes out of its type's range is named on stderr, for the
/// arithmetic forms and the others (cvt, setp, mixed precision) alike; stdout keeps the result
/// alone, and hex bits, `inf` and in-range decimals get no note.
#[test]
fn eval_notes_a_decimal_operand_that_reads_as_infinity_or_zero() {
    for (args, note) in [
        (&["eval", "add.rn.f16", "70000", "1"][..], "note: operand '70000' is beyond the largest finite .f16 value: it reads as 0x7c00 (inf)"),
        (&["eval", "mul.rn.f32", "1e-50", "1"], "note: operand '1e-50' is nearer zero than half the smallest subnormal .f32 value: it reads as 0x00000000 (0)"),
        (&["eval", "setp.lt.f16", "70000", "1"], "operand '70000' is beyond the largest finite .f16 value"),
        (&["eval", "add.rn.f32.bf16", "1e39", "1"], "operand '1e39' is beyond the largest finite .bf16 value"),
        (&["eval", "cvt.rn.f16.f32", "1e39"], "operand '1e39' is beyond the largest finite .f32 value"),
    ] {
        let (code, out, err) = ptxfuzz(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(err.contains(note), "{args:?}: {err}");
        assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
    }
    for args in [&["eval", "add.rn.f16", "0x7c00", "inf"][..], &["eval", "add.rn.f16", "65504", "0.1"]] {
        let (code, _, err) = ptxfuzz(args);
        assert_eq!((code, err.as_str()), (0, ""), "{args:?}");
    }
}

#[test]
fn eval_names_an_option_after_the_operands_instead_of_reading_it_as_one() {
    let (code, out, err) = ptxfuzz(&["eval", "rcp.rp.ftz.f32", "0x7e800001", "--judge", "sm_90"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("'--judge' follows the operands") && err.contains("ptxfuzz eval --profile sm_90 rcp.rp.ftz.f32"), "{err}");
    assert!(err.contains("eval calls it --profile"), "{err}");
    let (code, _, err) = ptxfuzz(&["eval", "add.rn.f32", "1", "2", "--accept"]);
    assert_eq!(code, 1);
    assert!(err.contains("as in `ptxfuzz eval --accept add.rn.f32 OPERANDS`"), "{err}");
    // An option eval does not have is named as such, not shown before the instruction.
    let (code, _, err) = ptxfuzz(&["eval", "cvt.rn.f16.f32", "0x7fc00000", "--sm", "90"]);
    assert_eq!(code, 1);
    assert!(err.contains("eval has no option --sm") && err.contains("--accept, --batch and --profile"), "{err}");
    assert!(!err.contains("ptxfuzz eval --sm"), "{err}");
    // Before the instruction the same option is read as one, and a negative operand stays one.
    let (code, out, _) = ptxfuzz(&["eval", "--profile", "sm_90", "rcp.rp.ftz.f32", "0x7e800001"]);
    assert_eq!((code, out.as_str()), (0, "0x00000000\t0\n"));
    assert_eq!(ptxfuzz(&["eval", "add.rn.f32", "-1", "-inf"]).1, "0xff800000\t-inf\n");
}

/// Names a user gets wrong are answered with the names that exist, the same way in every
/// command, and a `bench --filter` that matches nothing is an error, not an empty table.
#[test]
fn wrong_families_types_and_filters_name_what_exists() {
    // The campaign without --target: refused before it picks one and says no GPU was found.
    for args in [&["gen", "--count", "1", "--out", "unused", "--families", "fmad"][..], &["campaign", "--target", "interp", "--seconds", "1", "--families", "fmad"], &["campaign", "--seconds", "1", "--families", "fmad"]] {
        let (code, out, err) = ptxfuzz(args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(out.is_empty() && err.starts_with("error: unknown family 'fmad': the families are the PTX opcodes testp,") && err.contains(", cvt, setp, set, selp"), "{args:?}: {err}");
    }
    for args in [&["gen", "--count", "1", "--out", "unused", "--types", "f8"][..], &["campaign", "--seconds", "1", "--types", "f8"]] {
        let (code, _, err) = ptxfuzz(args);
        assert_eq!(code, 1);
        assert!(err.starts_with("error: unknown type 'f8': the types are f16, f16x2, bf16, bf16x2, f32, f32x2, f64"), "{args:?}: {err}");
    }
    for args in [&["bench", "--filter", "zzz"][..], &["bench", "--cvt", "--filter", "zzz"]] {
        let (code, out, err) = ptxfuzz(args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(out.is_empty() && err.contains("contains 'zzz' (--filter)"), "{args:?}: {out}{err}");
    }
}

/// An even stride covers part of the space: both kinds of sweep say so on stderr, under
/// `--json` too, while stdout holds the report alone.
#[test]
fn a_sweep_with_an_even_stride_notes_its_coverage_beside_the_json_report() {
    for form in ["add.rn.f16", "cvt.rn.f16.f32"] {
        let args = ["sweep", form, "--target", "interp", "--stride", "0x10000", "--json"];
        let (code, out, err) = ptxfuzz(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(err.contains("note: --stride 0x10000 (65536) is even: it reaches 65536 of the 2^32 inputs"), "{args:?}: {err}");
        assert_eq!(out.lines().count(), 1, "{args:?}: {out}");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
        assert!(report.is_object(), "{args:?}: {out}");
    }
}

/// `sass` takes an instruction form as well as a file: the one-instruction kernel's SASS, the
/// suffix the form needs on that sm, and one line naming both choices for anything else.
#[test]
fn sass_of_a_form_disassembles_its_one_instruction_kernel() {
    if worker::toolkit::find("ptxas").is_err() || worker::toolkit::find("nvdisasm").is_err() && worker::toolkit::find("cuobjdump").is_err() {
        assert_eq!(std::env::var("PTXFUZZ_SKIP_PTXAS").as_deref(), Ok("1"), "ptxas and nvdisasm not found: `pip install nvidia-cuda-nvcc nvidia-cuda-nvdisasm`; set PTXFUZZ_SKIP_PTXAS=1 to skip");
        eprintln!("SKIPPED: ptxas not found and PTXFUZZ_SKIP_PTXAS=1");
        return;
    }
    let (code, out, err) = ptxfuzz(&["sass", "setp.lt.f32"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("FSETP."), "{out}");
    // A file still wins: a module `gen` wrote.
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-sass-{}", std::process::id()));
    let (code, _, err) = ptxfuzz(&["gen", "--count", "1", "--families", "fma", "--types", "f32", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // The folder itself is named as one, not "Is a directory (os error 21)".
    let (code, _, folder_err) = ptxfuzz(&["sass", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{folder_err}");
    assert!(folder_err.contains("is a folder: give one PTX file in it"), "{folder_err}");
    // A file that is not there is named as missing, not parsed as a form.
    let missing = dir.join("nosuch.ptx");
    let (code, _, err) = ptxfuzz(&["sass", missing.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with(&format!("error: {} does not exist: give a PTX file", missing.display())), "{err}");
    let (code, out, err) = ptxfuzz(&["sass", dir.join("s1_000000.ptx").to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("FFMA"), "{out}");
    // An sm_100a form on an sm_100 GPU: its kernel is built for sm_100a.
    let (code, out, err) = ptxfuzz(&["sass", "cvt.rn.satfinite.e2m1x2.f32", "--sm", "100"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("E2M1"), "{out}");
    let (code, _, err) = ptxfuzz(&["sass", "cvt.rn.satfinite.e2m1x2.f32"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: cvt.rn.satfinite.e2m1x2.f32 does not run on sm_90: it needs sm_100a"), "{err}");
    let (code, _, err) = ptxfuzz(&["sass", "add.rn.f33"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: add.rn.f33 is neither a file nor an instruction form (unknown type") && err.contains("vm-ptx --list"), "{err}");
}

/// An error's cause is printed once: the messages that quote their cause are not also its
/// `source` (anyhow's one-line `{:#}` would repeat it).
#[test]
fn an_error_line_names_its_cause_once() {
    let (code, _, err) = ptxfuzz(&["capture-check", "/nonexistent/cases.txt"]);
    assert_eq!(code, 1);
    assert_eq!(err.matches("does not exist").count(), 1, "{err}");
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-cause-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A recorded H100 finding with an illegal form in its program.
    let finding = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings/abs.f64~nan-payload~nan~sm90/repro.json");
    let mut repro: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(finding).unwrap()).unwrap();
    repro["program"]["body"] = serde_json::json!(["add.rn.sat.f64 %fd1, %fd0, %fd0;"]);
    std::fs::write(dir.join("repro.json"), repro.to_string()).unwrap();
    let (code, _, err) = ptxfuzz(&["repro", dir.to_str().unwrap(), "--target", "interp"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 1, "{err}");
    // The folder given, then the file and its cause, once.
    assert!(err.starts_with(&format!("error: {}: ", dir.display())) && err.contains("repro.json: bad program: instruction 0"), "{err}");
    assert_eq!(err.matches(".sat is not allowed").count(), 1, "{err}");
}

/// `explain` on the wrong folder says so (a missing folder once, an empty one as such) instead
/// of printing "0 clusters"; a campaign that found nothing (its summary.json) says so.
#[test]
fn explain_names_a_folder_without_findings_instead_of_counting_zero() {
    let (code, _, err) = ptxfuzz(&["explain", "/nonexistent/ptxfuzz-out"]);
    assert_eq!(code, 1);
    assert!(err.contains("does not exist") && err.contains("campaign's --out folder"), "{err}");
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-explain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (code, _, err) = ptxfuzz(&["explain", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("holds no finding") && err.contains("no summary.json"), "{err}");
    std::fs::write(dir.join("summary.json"), "{\"findings\": []}").unwrap();
    let (code, out, err) = ptxfuzz(&["explain", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("0 findings in ") && out.contains("nothing to explain"), "{out}");
}

/// A folder given twice (also as `DIR/.`) is explained and counted once, with a note.
#[test]
fn explain_counts_a_folder_given_twice_once() {
    let finding = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings/abs.f64~nan-payload~nan~sm90");
    let again = format!("{finding}/.");
    let (code, once, err) = ptxfuzz(&["explain", finding]);
    assert_eq!(code, 0, "{err}");
    let (code, twice, err) = ptxfuzz(&["explain", finding, finding, &again]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err.matches("was given already; explained once").count(), 2, "{err}");
    assert!(once.contains("1 cluster over 1 finding:"), "{once}");
    assert_eq!(twice, once);
}

/// A compiled program's finding that a whole-program rewrite of ptxas explains is named by it
/// (here the H200's `neg.f16~signed-zero`: a `neg` folded into the `set` feeding it), the
/// catalogue's fold after it as another fit; the same finding on the VM (`isa`) is the fold.
#[test]
fn explain_names_a_compiled_finding_by_the_ptxas_rewrite_that_reproduces_it() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-explain-rewrite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let finding = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings/abs.f64~nan-payload~nan~sm90/repro.json");
    let mut repro: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(finding).unwrap()).unwrap();
    let program = "// inputs: %h0:f16, %h1:f16\nset.gt.f16.f16 %h2, %h0, %h1;\nneg.f16 %h3, %h2;\n// outputs: %h3\n";
    let program = ptx::program::Program::parse(program).unwrap();
    repro["program"] = serde_json::from_str(&program.to_json()).unwrap();
    repro["program_text"] = program.to_string().into();
    repro["signature"] = "neg.f16~signed-zero~zero~sm90".into();
    repro["class"] = "signed-zero".into();
    repro["inputs"] = serde_json::json!(["0x3c00", "0x4000"]);
    repro["inputs_decimal"] = serde_json::json!(["1", "2"]);
    repro["expected"] = serde_json::json!(["0x8000"]);
    repro["actual"] = serde_json::json!(["0x0000"]);
    repro["failing_outputs"] = serde_json::json!([0]);
    let mut run = |exec: &str| {
        repro["exec"] = exec.into();
        std::fs::write(dir.join("repro.json"), repro.to_string()).unwrap();
        let (code, out, err) = ptxfuzz(&["explain", dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let (compiled, isa) = (run("compiled"), run("isa"));
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(compiled.contains("    neg-folded-into-set: a neg of a float set") && compiled.contains("also fits: folded-to-operand"), "{compiled}");
    assert!(compiled.contains("1  neg-folded-into-set~neg.f16"), "{compiled}");
    assert!(isa.contains("    folded-to-operand: ") && isa.contains("1  folded-to-operand~neg.f16"), "{isa}");
}

/// A `--target` typo is named as the user's (the engines that exist), not as an internal
/// "invalid job".
#[test]
fn an_unknown_target_lists_the_engines() {
    let (code, _, err) = ptxfuzz(&["campaign", "--target", "gpu", "--seconds", "1"]);
    assert_eq!(code, 1);
    assert!(err.starts_with("error: engine 'gpu': unknown engine; use interp, host, cuda") && !err.contains("invalid job"), "{err}");
}

/// `repro` given a folder of findings (a campaign's --out) names one to give and `explain` for
/// them all, instead of "cannot read DIR/repro.json".
#[test]
fn repro_of_a_folder_of_findings_names_one_to_give() {
    let findings = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/hw/h100-sm90/findings");
    let (code, _, err) = ptxfuzz(&["repro", findings, "--target", "interp"]);
    assert_eq!(code, 1);
    assert!(err.contains("finding folder(s), not one finding: give one, e.g. ") && err.contains("ptxfuzz explain"), "{err}");
}

/// An --out that is a file is named as such, before anything runs.
#[test]
fn an_out_folder_that_is_a_file_is_refused_by_name() {
    let file = std::env::temp_dir().join(format!("ptxfuzz-cli-outfile-{}", std::process::id()));
    std::fs::write(&file, "not a folder").unwrap();
    let f = file.to_str().unwrap();
    let campaign = ptxfuzz(&["campaign", "--target", "interp", "--seconds", "1", "--out", f]);
    let gen = ptxfuzz(&["gen", "--count", "1", "--out", f]);
    std::fs::remove_file(&file).unwrap();
    for (code, _, err) in [campaign, gen] {
        assert_eq!(code, 1, "{err}");
        assert!(err.starts_with(&format!("error: --out {f} is a file: give a folder")), "{err}");
    }
}

/// `bench --judge` times the judge on a GPU's load: under the sm_90 profile some results leave
/// the fast path and some mismatch downstream, under the spec none do; a wrong profile or no
/// program is an error that names what to use.
#[test]
fn bench_judge_reports_the_judges_load_under_a_profile() {
    let json_in = |profile: &str, mode: &[&str]| {
        let mut args = vec!["bench", "--judge", "--profile", profile, "--programs", "20", "--seconds", "0", "--json"];
        args.extend(mode);
        let (code, out, err) = ptxfuzz(&args);
        assert_eq!(code, 0, "{profile} {mode:?}: {err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap_or_else(|e| panic!("{profile}: {e}: {out}"))
    };
    let json = |profile: &str| json_in(profile, &[]);
    let hw = json("sm_90");
    assert_eq!(hw["mode"], "end-to-end");
    assert_eq!((hw["programs"].as_u64(), hw["cases"].as_u64(), hw["batches"].as_u64()), (Some(20), Some(20 * 1024), Some(1)), "{hw}");
    assert!(hw["fast"].as_u64() < hw["results"].as_u64() && hw["mismatches"].as_u64() > Some(0), "{hw}");
    assert!(hw["judge_cases_per_s"].as_f64() > Some(0.0), "{hw}");
    let spec = json("spec");
    assert_eq!((spec["fast"].as_u64(), spec["mismatches"].as_u64()), (spec["results"].as_u64(), Some(0)), "{spec}");
    // Traced: every instruction's result judged on the profile's own operands, so more results
    // than end to end and far fewer mismatches (none downstream of an allowed result).
    let traced = json_in("sm_90", &["--trace"]);
    assert_eq!((traced["mode"].as_str(), traced["cases"].as_u64()), (Some("trace"), hw["cases"].as_u64()), "{traced}");
    assert!(traced["results"].as_u64() > hw["results"].as_u64(), "{traced}");
    assert!(traced["mismatches"].as_u64() < hw["mismatches"].as_u64(), "{traced}");
    let spec_traced = json_in("spec", &["--trace"]);
    assert_eq!((spec_traced["fast"].as_u64(), spec_traced["mismatches"].as_u64()), (spec_traced["results"].as_u64(), Some(0)), "{spec_traced}");
    let (code, _, err) = ptxfuzz(&["bench", "--trace"]);
    assert_eq!((code, err.trim()), (1, "error: --trace goes with --compare or --judge (it says how their results are judged)"));
    let (code, _, err) = ptxfuzz(&["bench", "--judge", "--profile", "sm_99"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown profile 'sm_99': use one of spec, sm_90"), "{err}");
    let (code, _, err) = ptxfuzz(&["bench", "--judge", "--programs", "0"]);
    assert_eq!((code, err.trim()), (1, "error: --programs must be at least 1"));
}

/// Every command that takes --seed reads it alike (decimal or 0x hex) and answers a value out
/// of range with the range, as a usage error before anything runs.
#[test]
fn every_seed_option_takes_hex_and_names_the_range_of_a_bad_one() {
    for cmd in [&["campaign"][..], &["gen"], &["capture"], &["modes-check"], &["math-check", "expf"]] {
        let mut args = cmd.to_vec();
        args.extend(["--seed", "-1"]);
        let (code, _, err) = ptxfuzz(&args);
        assert_eq!(code, 2, "{cmd:?}: {err}");
        assert!(err.contains("not a seed (") && err.contains("give a whole number from 0 to 2^64-1, decimal or 0x hex"), "{cmd:?}: {err}");
    }
    // 0x10 is 16: the same programs.
    let programs = |seed: &str| {
        let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-seed-{seed}-{}", std::process::id()));
        let (code, _, err) = ptxfuzz(&["gen", "--seed", seed, "--count", "3", "--out", dir.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        std::fs::remove_dir_all(&dir).unwrap();
        files.sort();
        files
    };
    let hex = programs("0x10");
    assert!(!hex.is_empty());
    assert_eq!(hex, programs("16"));
    assert_ne!(hex, programs("17"));
}

/// A --config that cannot be read or parsed is the whole answer, before a target is chosen
/// (no "no GPU found" notice first, no GPU opened for nothing) and before --out is created.
#[test]
fn a_campaign_config_that_cannot_be_read_is_refused_before_the_target_is_opened() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-cli-bad-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("config.json");
    std::fs::write(&bad, "{\"sm\": \"ninety\"}").unwrap();
    let out = dir.join("out");
    for (config, says) in [("/dev/null", "is not a regular file".to_string()), (bad.to_str().unwrap(), format!("{} is not a GenConfig", bad.display()))] {
        let (code, _, err) = ptxfuzz(&["campaign", "--config", config, "--seconds", "1", "--out", out.to_str().unwrap()]);
        assert_eq!(code, 1, "{err}");
        assert!(err.starts_with("error: ") && err.contains(&says), "{config}: {err}");
        assert!(!out.exists(), "--out is not created for a campaign that cannot start");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
