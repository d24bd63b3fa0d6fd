//! Every TestFloat vector that is a PTX instruction, through the whole interpreter
//! (`Instr::parse` + `interp::eval`): f32 and f64 add, sub, mul, fma (mulAdd), div, sqrt in all
//! four rounding modes, and f16 add, sub, mul, fma in `.rn` (9.7.4 has only `.rn`; f16 in
//! every mode goes through the rounding core in `softfloat_vectors.rs`). NaN results are
//! compared by NaN-ness, as the vectors' README prescribes.

mod common;

use common::testfloat::{self, Op, VectorFile};
use ptx::interp::eval;
use ptx::isa::Instr;
use ptx::{Rounding, Scalar};

/// The instruction a vector file tests, or `None` where PTX has no such instruction.
fn instruction(file: &VectorFile) -> Option<Instr> {
    let ty = match file.ty {
        Scalar::F16 if file.mode == Rounding::Rn && !matches!(file.op, Op::Div | Op::Sqrt) => "f16",
        Scalar::F16 => return None,
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
        Scalar::BF16 => return None,
    };
    let op = match file.op {
        Op::Add => "add",
        Op::Sub => "sub",
        Op::Mul => "mul",
        Op::MulAdd => "fma",
        Op::Div => "div",
        Op::Sqrt => "sqrt",
    };
    let text = format!("{op}.{}.{ty}", file.mode.name());
    Some(Instr::parse(&text, file.op.arity()).unwrap_or_else(|e| panic!("{text}: {e}")))
}

#[test]
fn every_instruction_vector_is_the_primary_result() {
    let mut total = 0usize;
    let mut files = 0usize;
    let mut failures = Vec::new();
    for file in testfloat::files() {
        let Some(instr) = instruction(&file) else { continue };
        files += 1;
        for case in testfloat::cases(&file) {
            total += 1;
            let exp = eval(&instr, case.operands()).unwrap_or_else(|e| panic!("{instr}: {e}"));
            let ok = if file.ty.is_nan(case.result) {
                // Any NaN the spec allows; the primary must be a NaN too.
                file.ty.is_nan(exp.primary_bits())
            } else {
                exp.is_primary(case.result)
            };
            if !ok && failures.len() < 20 {
                failures.push(format!(
                    "{}:{} {instr} {:x?}: want {:#x}, interpreter allows {exp}",
                    file.path.file_name().unwrap().to_string_lossy(),
                    case.line,
                    case.operands(),
                    case.result
                ));
            }
        }
    }
    println!("{total} vectors from {files} files checked through the interpreter");
    // 48 f32/f64 files (6 ops x 4 modes x 2 types) + 4 f16 .rn files.
    assert_eq!(files, 52);
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}
