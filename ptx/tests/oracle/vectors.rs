//! The oracle checked against Berkeley TestFloat 3e vectors (/work/shared/testvectors/softfloat,
//! format in its README): apfloat, the big-integer implementation, and the PTX model on the
//! forms PTX has, all four rounding modes. NaN results compare by NaN-ness.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

use ptx::isa::{Instr, Opcode, Precision, Type};
use ptx::{Format, Rounding, F16, F32, F64};

use crate::apf::{ieee, ieee_exact, IeeeOp, OracleFormat};
use crate::model::{lane, Out};

/// Where the vectors live: `PTX_TESTVECTORS` or the shared folder.
pub fn dir() -> PathBuf {
    std::env::var_os("PTX_TESTVECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/testvectors/softfloat"))
}

/// All lines of one file as hex fields (operands, result; the flags dropped).
pub fn read(name: &str) -> Vec<Vec<u64>> {
    let path = dir().join(name);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; set PTX_TESTVECTORS to the TestFloat vector folder", path.display())
    });
    let gz = flate2::read::GzDecoder::new(file);
    BufReader::new(gz)
        .lines()
        .map(|l| {
            let l = l.expect("readable vector line");
            let mut f: Vec<u64> = l.split_whitespace().map(|h| u64::from_str_radix(h, 16).expect("hex")).collect();
            f.pop(); // flags
            f
        })
        .collect()
}

fn same<F: Format>(x: u64, y: u64) -> bool {
    x == y || (F::is_nan(x) && F::is_nan(y))
}

/// The PTX form computing this op exactly as IEEE does (no .ftz/.sat), if PTX has it.
fn ptx_form(op: IeeeOp, ty: Type, mode: Rounding) -> Option<Instr> {
    let opcode = match op {
        IeeeOp::Add => Opcode::Add,
        IeeeOp::Sub => Opcode::Sub,
        IeeeOp::Mul => Opcode::Mul,
        IeeeOp::Fma => Opcode::Fma,
        IeeeOp::Div => Opcode::Div,
        IeeeOp::Rcp => Opcode::Rcp,
        IeeeOp::Sqrt => Opcode::Sqrt,
    };
    // 9.7.4: the half forms have .rn only, and no div/sqrt.
    if ty == Type::F16 && (mode != Rounding::Rn || matches!(op, IeeeOp::Div | IeeeOp::Sqrt)) {
        return None;
    }
    let mut i = Instr::new(opcode, ty);
    i.precision = Precision::Rounded(mode);
    Some(i)
}

/// Check every vector of `<t>_<op>.<mode>` against apfloat, big integers, and the model.
fn check_file<F: OracleFormat>(ty: Type, op: IeeeOp, name: &str, mode: Rounding) -> usize {
    let file = format!("{}_{name}.{}.txt.gz", F::NAME, mode.name());
    let arity = match op {
        IeeeOp::Fma => 3,
        IeeeOp::Sqrt => 1,
        _ => 2,
    };
    let form = ptx_form(op, ty, mode);
    let mut bad = Vec::new();
    let lines = read(&file);
    for v in &lines {
        let (ops, z) = (&v[..arity], v[arity]);
        let a = ieee::<F>(op, ops, mode);
        let e = ieee_exact::<F>(op, ops, mode);
        let m = form.as_ref().map(|f| lane::<F>(f, ops));
        let model_ok = m.as_ref().is_none_or(|m| match m.primary {
            Out::Bits(b) => same::<F>(b, z) && m.alts.is_empty(),
            Out::AnyNan => F::is_nan(z),
        });
        if (!same::<F>(a, z) || !same::<F>(e, z) || !model_ok) && bad.len() < 10 {
            bad.push(format!("{file} {ops:x?}: want {z:x}, apfloat {a:x}, exact {e:x}, model {m:?}"));
        }
    }
    assert!(bad.is_empty(), "oracle disagrees with TestFloat:\n{}", bad.join("\n"));
    assert!(!lines.is_empty(), "{file} is empty");
    lines.len()
}

fn check_format<F: OracleFormat>(ty: Type) {
    let ops = [
        (IeeeOp::Add, "add"),
        (IeeeOp::Sub, "sub"),
        (IeeeOp::Mul, "mul"),
        (IeeeOp::Fma, "mulAdd"),
        (IeeeOp::Div, "div"),
        (IeeeOp::Sqrt, "sqrt"),
    ];
    let mut n = 0;
    for (op, name) in ops {
        for mode in Rounding::ALL {
            n += check_file::<F>(ty, op, name, mode);
        }
    }
    println!("TestFloat {}: {n} vectors agree", F::NAME);
}

#[test]
fn oracle_matches_testfloat_f16() {
    check_format::<F16>(Type::F16);
}

#[test]
fn oracle_matches_testfloat_f32() {
    check_format::<F32>(Type::F32);
}

#[test]
fn oracle_matches_testfloat_f64() {
    check_format::<F64>(Type::F64);
}
