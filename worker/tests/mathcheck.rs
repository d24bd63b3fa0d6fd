//! `ptxfuzz math-check` without a GPU: the kernel of every function of the appendix tables
//! compiles with nvcc (the same CUDA C++ NVRTC compiles on a GPU machine), the command says
//! clearly that it needs a GPU, and the reference side runs alone.
//!
//! nvcc: env `NVCC`, else the `nvidia` Python package, else `PATH`; missing, the compile test
//! fails unless `PTXFUZZ_SKIP_NVCC=1`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use worker::mathcheck::kernel_source;

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
