//! The kernels' output stores keep a float `set`'s 1.0 under ptxas. ptxas 13.5 (and the r580
//! driver JIT, on an H200) compile a float-typed `set` whose result is widened to 64 bits with
//! `cvt.u64.u32`/`.u16`, in a kernel that also holds a `div.rz.f32` slow path, to the integer
//! 1 (`SEL R, RZ, 0x1`) instead of 1.0: the VM gave 0x1 for every true float `set` on the
//! H200 (docs/hardware, 2026-11-29). `kernel::Widening` packs instead; this checks the SASS.

mod common;

use std::path::Path;

use common::ptxas::{parallel, ptxas_or_skip, sass};
use ptx::isa::Opcode;
use ptx::kernel::{self, Mode};
use ptx::program::{Program, Reg, Stmt, ValType};

/// `SEL Rd, RZ, 0x1, P` lines in the SASS ptxas makes of `ptx` for sm_90 (cuobjdump beside it).
fn sel_one_count(ptxas: &Path, ptx: &str, tag: &str) -> Result<usize, String> {
    let text = sass(ptxas, ptx, 90, tag)?;
    Ok(text.lines().filter(|l| l.contains(", RZ, 0x1, ") && l.contains(" SEL ")).count())
}

/// A program of `div.rz.f32` (the slow path that provokes the miscompile) and, if given, the
/// float `set` form (its `.BoolOp` predicate from a `setp.ne.f32` of the div's operands), the
/// div's and the set's results outputs.
fn program(set: Option<ptx::isa::Instr>) -> Program {
    let div = ptx::isa::Instr::parse("div.rz.f32", 2).unwrap();
    let Some(set) = set else {
        return Program::new(vec![ValType::of_operand(&div, 0); 2], vec![Stmt::new(div, &[Reg(0), Reg(1)]).unwrap()], vec![Reg(2)]).unwrap();
    };
    let n = set.inputs as usize;
    let value_srcs: Vec<usize> = (0..n).filter(|&i| ValType::of_operand(&set, i) != ValType::Pred).collect();
    let mut inputs: Vec<ValType> = vec![ValType::of_operand(&div, 0); 2];
    inputs.extend(value_srcs.iter().map(|&i| ValType::of_operand(&set, i)));
    let k = inputs.len() as u16;
    let setp = ptx::isa::Instr::parse("setp.ne.f32", 2).unwrap();
    // Registers: inputs 0..k, then the div (k), the setp (k + 1), the set (k + 2).
    let mut value = (2..k).map(Reg);
    let srcs: Vec<Reg> = (0..n).map(|i| if value_srcs.contains(&i) { value.next().unwrap() } else { Reg(k + 1) }).collect();
    let body = vec![
        Stmt::new(div, &[Reg(0), Reg(1)]).unwrap(),
        Stmt::new(setp, &[Reg(0), Reg(1)]).unwrap(),
        Stmt::new(set, &srcs).unwrap(),
    ];
    Program::new(inputs, body, vec![Reg(k), Reg(k + 2)]).unwrap()
}

#[test]
fn a_float_set_beside_a_div_keeps_its_one_point_zero_in_the_compiled_kernel() {
    let Some(ptxas) = ptxas_or_skip("a_float_set_beside_a_div_keeps_its_one_point_zero_in_the_compiled_kernel") else {
        return;
    };
    let module = |p: &Program| kernel::module(&[p], 90, Mode::Outputs).unwrap();
    let baseline = sel_one_count(&ptxas, &module(&program(None)), "baseline").unwrap();
    // Every sm_90 `set` form with a float destination (f32, f16, bf16), one in twenty to keep
    // CI short; the set of forms is the VM's, so the generator's.
    let forms: Vec<_> = ptx::vm::arms(90)
        .unwrap()
        .into_iter()
        .filter(|i| i.op == Opcode::Set && matches!(ValType::of_result(i), ValType::Float(_)))
        .collect();
    assert!(forms.len() > 300, "{} float set forms", forms.len());
    let sample: Vec<_> = forms.iter().step_by(20).collect();
    let failures = parallel(&sample, |set| match sel_one_count(&ptxas, &module(&program(Some(**set))), &set.to_string()) {
        Ok(n) if n == baseline => None,
        Ok(n) => Some(format!("{set}: {n} `SEL R, RZ, 0x1` against {baseline} for the div alone: its 1.0 became 1")),
        Err(e) => Some(e),
    });
    assert!(failures.is_empty(), "{} of {} forms:\n{}", failures.len(), sample.len(), failures.join("\n"));
}
