//! Count options with an upper bound: a count the command cannot hold in memory or finish is
//! refused before anything runs, with the option, its range and why (exit 2, clap's usage
//! error), where it once aborted out of memory with a backtrace (exit 134) or ran on past
//! `--seconds`; zero counts that ran nothing and exited 0 are refused too.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{ptxfuzz_in, scratch_created};

/// `args` is a usage error naming `option` and the range `range`, and nothing else happened.
fn refused(dir: &std::path::Path, args: &[&str], value: &str, option: &str, range: &str) {
    let t = Instant::now();
    let (code, out, err) = ptxfuzz_in(dir, args);
    assert_eq!(code, 2, "{args:?}: {err}");
    let head = format!("error: invalid value '{value}' for '{option} <");
    assert!(out.is_empty() && err.starts_with(&head), "{args:?}: {err}");
    assert!(err.contains(&format!("give {range}: ")), "{args:?} should name the range {range} and why: {err}");
    assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{args:?}: {err}");
    // Refused at parse time: no allocation, no generation.
    assert!(t.elapsed() < Duration::from_secs(10), "{args:?} took {:?}", t.elapsed());
}

#[test]
fn huge_counts_are_refused_up_front_with_the_option_its_range_and_why() {
    let dir = scratch_created("ptxfuzz-count-bounds", "huge");
    let big = "99999999999";
    for (args, option, range) in [
        (&["capture", "--target", "interp", "--families", "add", "--cases-per-form", big, "--out", "c.txt"][..], "--cases-per-form", "1 to 16777216"),
        (&["capture", "--target", "interp", "--out", "c.txt", "--timeout", big], "--timeout", "1 to 1000000000"),
        (&["campaign", "--target", "interp", "--cases-per-program", big, "--seconds", "2", "--out", "f"], "--cases-per-program", "1 to 2097152"),
        (&["campaign", "--target", "interp", "--batch-cases", big, "--seconds", "2", "--out", "f"], "--batch-cases", "1 to 2097152"),
        (&["campaign", "--target", "interp", "--max-probes", big, "--seconds", "2", "--out", "f"], "--max-probes", "0 to 10000000"),
        (&["campaign", "--target", "interp", "--timeout", big, "--seconds", "2", "--out", "f"], "--timeout", "1 to 1000000000"),
        (&["math-check", "normf", "--dim", "4294967296", "--reference-only", "--samples", "1"], "--dim", "1 to 1024"),
        (&["math-check", "sinf", "--reference-only", "--samples", "2000000000000"], "--samples", "1 to 1099511627776"),
        (&["math-check", "sinf", "--reference-only", "--examples", big], "--examples", "0 to 10000"),
        (&["bench", "--cases", big, "--form", "add.rn.f32", "--seconds", "0"], "--cases", "1 to 16777216"),
        (&["bench", "--judge", "--programs", big, "--seconds", "0.1"], "--programs", "1 to 4096"),
        (&["gen", "--count", big, "--out", "g"], "--count", "1 to 1000000"),
        (&["sweep", "rcp.approx.f32", "--target", "interp", "--batch", big], "--batch", "1 to 16777216"),
        (&["modes-check", "--target", "interp", "--cases", big], "--cases", "1 to 65536"),
    ] {
        let value = if option == "--dim" { "4294967296" } else if option == "--samples" { "2000000000000" } else { big };
        refused(&dir, args, value, option, range);
    }
    // The capture made no file, not even an empty FILE.partial; the campaigns no folder.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zero_samples_dim_cases_and_programs_are_refused_instead_of_running_nothing() {
    let dir = scratch_created("ptxfuzz-count-bounds", "zero");
    refused(&dir, &["math-check", "sinf", "--reference-only", "--samples", "0"], "0", "--samples", "1 to 1099511627776");
    refused(&dir, &["math-check", "normf", "--reference-only", "--dim", "0"], "0", "--dim", "1 to 1024");
    // --cases is a stop condition (no memory), so at least 1 and no upper bound.
    let (code, _, err) = ptxfuzz_in(&dir, &["campaign", "--target", "interp", "--cases", "0", "--out", "f"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: invalid value '0' for '--cases <CASES>': give at least 1"), "{err}");
    // modes-check --programs 0 compared nothing and exited 0, a pass.
    let (code, _, err) = ptxfuzz_in(&dir, &["modes-check", "--target", "interp", "--programs", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: invalid value '0' for '--programs <PROGRAMS>': give at least 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_refuses_form_options_its_cvt_compare_and_judge_modes_would_ignore() {
    let dir = scratch_created("ptxfuzz-count-bounds", "forms");
    for (args, mode) in [
        (&["bench", "--cvt", "--form", "add.rn.f32"][..], "--cvt measures its own list of conversions"),
        (&["bench", "--cvt", "--all"], "--cvt measures its own list of conversions"),
        (&["bench", "--compare", "--form", "add.rn.f32"], "--compare runs its own f32 programs"),
        (&["bench", "--judge", "--form", "add.rn.f32"], "--judge judges generated campaign programs"),
    ] {
        let (code, out, err) = ptxfuzz_in(&dir, args);
        assert_eq!(code, 1, "{args:?}: {err}");
        let opt = if args.contains(&"--all") { "--all" } else { "--form add.rn.f32" };
        assert!(out.is_empty() && err.starts_with(&format!("error: {opt} cannot be measured here: {mode}")), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_compare_refuses_more_cases_in_all_than_the_table_may_hold() {
    let dir = scratch_created("ptxfuzz-count-bounds", "compare");
    // 28 single-instruction programs, --cases each: at most 2^24 / 28 = 599186.
    let (code, out, err) = ptxfuzz_in(&dir, &["bench", "--compare", "--cases", "1000000"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty() && err.contains("--cases 1000000 is too many for --compare") && err.contains("give at most 599186"), "{err}");
    let (code, _, err) = ptxfuzz_in(&dir, &["bench", "--compare", "--generated", "--cases", "65537"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("give at most 65536"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_largest_accepted_counts_run_and_stop_on_time() {
    let dir = scratch_created("ptxfuzz-count-bounds", "largest");
    // A 2^21-case batch of 2^21-case programs: generated and judged within about --seconds
    // (it had held 9.4 GB and printed nothing for 100 s without a bound).
    let t = Instant::now();
    let (code, _, err) =
        ptxfuzz_in(&dir, &["campaign", "--target", "interp", "--batch-cases", "2097152", "--cases-per-program", "2097152", "--seconds", "1", "--quiet", "--out", "f"]);
    assert_eq!(code, 0, "{err}");
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    // The longest array normf takes, on the reference side.
    let (code, out, err) = ptxfuzz_in(&dir, &["math-check", "normf", "--dim", "1024", "--reference-only", "--samples", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("normf"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The exhaustive reference check streams its 2^32 inputs a chunk at a time: it once asked
/// for 32 GiB up front and aborted. It runs for minutes, so only its start is checked: still
/// running after a few seconds, in well under 1 GiB.
#[cfg(target_os = "linux")]
#[test]
fn an_exhaustive_reference_math_check_streams_instead_of_allocating_every_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ptxfuzz"))
        .args(["math-check", "sinf", "--reference-only", "--exhaustive"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(running, "it ended within 4 s (an abort?)");
    let peak_kb: u64 = status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap();
    assert!(peak_kb < 1 << 20, "peak memory {peak_kb} kB");
}
