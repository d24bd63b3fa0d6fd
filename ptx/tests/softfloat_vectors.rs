//! Every Berkeley TestFloat vector (f16/f32/f64 add, sub, mul, mulAdd, div, sqrt in the four
//! modes) through `ptx::softfloat`, both the dispatched fast paths and the integer paths.
//! NaN results are compared by NaN-ness (PTX returns its own canonical NaN).

mod common;

use common::testfloat::{self, Case, Op, VectorFile};
use ptx::softfloat::{self, exact};
use ptx::{Format, Rounding, Scalar, F16, F32, F64};

/// The result of `op` on the case's operands, through the fast (`fast = true`) or integer path.
fn eval<F: Format>(op: Op, x: &[u64], mode: Rounding, fast: bool) -> u64 {
    match (op, fast) {
        (Op::Add, true) => softfloat::add::<F>(x[0], x[1], mode),
        (Op::Sub, true) => softfloat::sub::<F>(x[0], x[1], mode),
        (Op::Mul, true) => softfloat::mul::<F>(x[0], x[1], mode),
        (Op::MulAdd, true) => softfloat::fma::<F>(x[0], x[1], x[2], mode),
        (Op::Div, true) => softfloat::div::<F>(x[0], x[1], mode),
        (Op::Sqrt, true) => softfloat::sqrt::<F>(x[0], mode),
        (Op::Add, false) => exact::add::<F>(x[0], x[1], mode),
        (Op::Sub, false) => exact::sub::<F>(x[0], x[1], mode),
        (Op::Mul, false) => exact::mul::<F>(x[0], x[1], mode),
        (Op::MulAdd, false) => exact::fma::<F>(x[0], x[1], x[2], mode),
        (Op::Div, false) => exact::div::<F>(x[0], x[1], mode),
        (Op::Sqrt, false) => exact::sqrt::<F>(x[0], mode),
    }
}

fn matches<F: Format>(got: u64, want: u64) -> bool {
    if F::is_nan(want) {
        F::is_nan(got)
    } else {
        got == want
    }
}

/// Run one file through both paths; returns (cases checked, mismatch descriptions).
fn check_file<F: Format>(file: &VectorFile, mismatches: &mut Vec<String>) -> usize {
    let mut n = 0;
    let name = file.path.file_name().unwrap().to_string_lossy().into_owned();
    for case in testfloat::cases(file) {
        n += 1;
        for fast in [true, false] {
            let got = eval::<F>(file.op, case.operands(), file.mode, fast);
            if !matches::<F>(got, case.result) {
                mismatches.push(describe(&name, &case, got, fast));
            }
        }
    }
    n
}

fn describe(name: &str, case: &Case, got: u64, fast: bool) -> String {
    let ops: Vec<String> = case.operands().iter().map(|x| format!("{x:#x}")).collect();
    let path = if fast { "fast" } else { "integer" };
    format!(
        "{name}:{}: ({}) -> want {:#x}, {path} path gave {got:#x} (flags {:02x})",
        case.line,
        ops.join(", "),
        case.result,
        case.flags
    )
}

#[test]
fn softfloat_matches_every_testfloat_vector() {
    let files = testfloat::files();
    assert_eq!(files.len(), 72, "expected 72 vector files in {}", testfloat::dir().display());
    let mut mismatches = Vec::new();
    let mut total = 0;
    for file in &files {
        total += match file.ty {
            Scalar::F16 => check_file::<F16>(file, &mut mismatches),
            Scalar::F32 => check_file::<F32>(file, &mut mismatches),
            Scalar::F64 => check_file::<F64>(file, &mut mismatches),
            Scalar::BF16 => unreachable!("no bf16 vectors"),
        };
    }
    println!("checked {total} TestFloat cases from {} files, each through the fast and the integer path", files.len());
    // The README's total: 46464 per add/sub/mul/div file, 90000 per mulAdd, 408/600/768 sqrt.
    assert_eq!(total, 3_317_376, "vector count differs from the README's total");
    if !mismatches.is_empty() {
        let first: Vec<&str> = mismatches.iter().take(20).map(String::as_str).collect();
        panic!("{} mismatches of {total} cases; first ones:\n{}", mismatches.len(), first.join("\n"));
    }
}
