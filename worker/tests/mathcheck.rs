//! `ptxfuzz math-check` without a GPU: the kernel of every function of the appendix tables
//! compiles with nvcc (the same CUDA C++ NVRTC compiles on a GPU machine), the command says
//! clearly that it needs a GPU, and the reference side runs alone.
//!
//! nvcc: env `NVCC`, else the `nvidia` Python package, else `PATH`; missing, the compile test
//! fails unless `PTXFUZZ_SKIP_NVCC=1`.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use worker::mathcheck::prefilter::{Filter, DECIDE_C};
use worker::mathcheck::{filtered_kernel_source, kernel_source};

const PTXFUZZ: &str = env!("CARGO_BIN_EXE_ptxfuzz");

fn nvcc() -> Option<PathBuf> {
    // env NVCC, the pip wheels, PATH: one lookup for the binary and the tests.
    worker::toolkit::find("nvcc").ok()
}

#[test]
fn every_table_function_kernel_compiles() {
    let Some(nvcc) = nvcc() else {
        if std::env::var("PTXFUZZ_SKIP_NVCC").as_deref() == Ok("1") {
            eprintln!("SKIPPED: nvcc not found and PTXFUZZ_SKIP_NVCC=1");
            return;
        }
        panic!("nvcc not found: install it with `pip install nvidia-cuda-nvcc` (or set NVCC=/path/to/nvcc); set PTXFUZZ_SKIP_NVCC=1 to skip");
    };
    let mut names = BTreeSet::new();
    let mut src = String::new();
    for (i, row) in mathlib::FUNCTIONS.iter().enumerate() {
        if names.insert(row.name) {
            src.push_str(&kernel_source(row, &format!("check{i}"), 3));
        }
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("mathcheck-{}.cu", std::process::id()));
    std::fs::write(&file, &src).unwrap();
    let out = file.with_extension("ptx");
    let o = Command::new(&nvcc)
        .args(["--ptx", "-arch=sm_90", "-Werror", "all-warnings", "-o"])
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ptx = std::fs::read_to_string(&out).unwrap();
    for (i, row) in mathlib::FUNCTIONS.iter().enumerate() {
        if src.contains(&format!("void check{i}(")) {
            assert!(ptx.contains(&format!(".entry check{i}(")), "{} has no entry", row.name);
        }
    }
    eprintln!("{} functions compiled", names.len());
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&out);
}

/// Every pre-filtered exhaustive kernel, compiled through ptxas to a cubin for sm_80, sm_90
/// and sm_100, with nvcc's default flags and with -use_fast_math (whose -ftz=true must not
/// touch the pre-filter's conversions: they are PTX without .ftz).
#[test]
fn every_prefiltered_kernel_compiles_to_a_cubin_and_keeps_its_conversions_exact() {
    let Some(nvcc) = nvcc() else {
        if std::env::var("PTXFUZZ_SKIP_NVCC").as_deref() == Ok("1") {
            eprintln!("SKIPPED: nvcc not found and PTXFUZZ_SKIP_NVCC=1");
            return;
        }
        panic!("nvcc not found: install it with `pip install nvidia-cuda-nvcc` (or set NVCC=/path/to/nvcc); set PTXFUZZ_SKIP_NVCC=1 to skip");
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for (sm, cc, fast) in [(80, (8, 0), false), (90, (9, 0), false), (90, (9, 0), true), (100, (10, 0), false)] {
        let flags = if fast { mathlib::Flags::FAST_MATH } else { mathlib::Flags::DEFAULT };
        let build = mathlib::Build { flags, cc: mathlib::Cc::new(cc.0, cc.1) };
        let mut names = BTreeSet::new();
        let mut src = String::from(DECIDE_C);
        for (i, row) in mathlib::FUNCTIONS.iter().enumerate() {
            if let (true, Ok(f)) = (names.insert(row.name), Filter::of(row.name, &build)) {
                src.push_str(&filtered_kernel_source(&f, &format!("check_filtered{i}")));
            }
        }
        let kernels = src.matches("__global__").count();
        assert!(kernels >= if fast { 15 } else { 30 }, "sm_{sm}: only {kernels} functions pre-filtered");
        let file = dir.join(format!("mathcheck-filtered-{sm}-{fast}-{}.cu", std::process::id()));
        std::fs::write(&file, &src).unwrap();
        let ptx = file.with_extension("ptx");
        let mut args = vec!["-arch".to_string(), format!("sm_{sm}"), "-Werror".into(), "all-warnings".into()];
        if fast {
            args.push("-use_fast_math".into());
        }
        let o = Command::new(&nvcc).arg("--ptx").args(&args).arg("-o").arg(&ptx).arg(&file).output().unwrap();
        assert!(o.status.success(), "sm_{sm}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&ptx).unwrap();
        // Each kernel keeps the pre-filter's own conversions exact (the library functions may
        // flush in theirs: that is the function under test).
        for entry in text.split(".entry ").skip(1) {
            let name = entry.split('(').next().unwrap_or("");
            assert!(
                entry.matches("cvt.rn.f32.f64").count() >= 2 && entry.contains("cvt.f64.f32"),
                "sm_{sm} fast {fast}: {name} lost the pre-filter's unflushed conversions"
            );
        }
        let cubin = file.with_extension("cubin");
        let o = Command::new(&nvcc).arg("--cubin").args(&args).arg("-o").arg(&cubin).arg(&file).output().unwrap();
        assert!(o.status.success(), "sm_{sm}: {}", String::from_utf8_lossy(&o.stderr));
        eprintln!("sm_{sm}{}: {kernels} pre-filtered kernels assembled", if fast { " -use_fast_math" } else { "" });
        for f in [&file, &ptx, &cubin] {
            let _ = std::fs::remove_file(f);
        }
    }
}

#[test]
fn without_a_gpu_math_check_says_so_and_the_reference_side_runs() {
    let o = Command::new(PTXFUZZ).args(["math-check", "sinf", "--samples", "10"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        assert!(err.contains("no NVIDIA driver was found") && err.contains("nothing was run"), "{err}");
    }
    let o = Command::new(PTXFUZZ).args(["math-check", "expf", "--reference-only", "--samples", "5000", "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["inputs"], 5000);
    assert_eq!(r["mismatches"], 0);
    assert!(r["bounds"][0].as_str().unwrap().contains("2 ulp"), "{r}");
    let o = Command::new(PTXFUZZ).args(["math-check", "nosuchf"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown math function"));
}

#[test]
fn flags_that_would_be_ignored_are_refused_with_what_to_do() {
    for (args, want) in [
        (&["math-check", "expf", "--reference-only", "--no-prefilter"][..], "--no-prefilter applies to --exhaustive only"),
        (&["math-check", "expf", "--reference-only", "--dim", "4"][..], "applies to the array functions"),
        (&["math-check", "expf", "--reference-only", "--exhaustive", "--samples", "10"][..], "cannot be used with"),
    ] {
        let o = Command::new(PTXFUZZ).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} ran: {}", String::from_utf8_lossy(&o.stdout));
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?} printed a report");
    }
    // --dim is still taken where it means something.
    let o = Command::new(PTXFUZZ).args(["math-check", "normf", "--reference-only", "--dim", "4", "--samples", "100"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// SIGINT during a long check: the chunk in flight ends, the report of the inputs judged so far
/// is printed, marked interrupted, and the exit status is 130, never a pass.
#[test]
fn sigint_prints_the_report_of_the_inputs_checked_marked_interrupted_and_exits_130() {
    let o = common::ptxfuzz_interrupted(&["math-check", "expf", "--reference-only", "--exhaustive", "--json"], std::time::Duration::from_secs(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)));
    assert_eq!(r["interrupted"], true, "{r}");
    assert_eq!(r["exhaustive"], false, "an interrupted exhaustive check did not see every input: {r}");
    assert_eq!(r["planned"], 1u64 << 32, "{r}");
    assert!(r["inputs"].as_u64().unwrap() < 1 << 32, "{r}");
    assert!(err.contains("interrupted after"), "{err}");
}
