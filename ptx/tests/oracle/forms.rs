//! The instruction forms the oracle tests, read off the syntax blocks of PTX ISA 9.7.3 and the
//! 9.7.4 half-precision summary (approximate forms left out), and their PTX spelling.
//! Written independently of `ptx::isa`'s table so the two can be compared.

use ptx::isa::{AbsMode, Clamp, Ftz, Instr, NanMode, Opcode, Precision, TestpOp, Type};
use ptx::Rounding;

use Type::*;

/// The families of the oracle suite, in spec order.
pub const FAMILIES: [Opcode; 14] = [
    Opcode::Testp,
    Opcode::Copysign,
    Opcode::Add,
    Opcode::Sub,
    Opcode::Mul,
    Opcode::Fma,
    Opcode::Mad,
    Opcode::Div,
    Opcode::Abs,
    Opcode::Neg,
    Opcode::Min,
    Opcode::Max,
    Opcode::Rcp,
    Opcode::Sqrt,
];

const HALF: [Type; 4] = [F16, F16x2, Bf16, Bf16x2];

/// The types of a family (9.7.3.x syntax blocks; 9.7.4 for the half types).
pub fn types(op: Opcode) -> Vec<Type> {
    match op {
        // 9.7.3.3-6, 9.7.4.1-4: add/sub/mul/fma on f32, f32x2, f64 and the four half types.
        Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Fma => Type::ALL.to_vec(),
        // 9.7.3.7, 9.7.3.8, 9.7.3.13, 9.7.3.15.
        Opcode::Mad | Opcode::Div | Opcode::Rcp | Opcode::Sqrt => vec![F32, F64],
        // 9.7.3.9-12 and 9.7.4 abs/neg/min/max.
        Opcode::Abs | Opcode::Neg | Opcode::Min | Opcode::Max => [&HALF[..], &[F32, F64]].concat(),
        // 9.7.3.1, 9.7.3.2.
        Opcode::Testp | Opcode::Copysign => vec![F32, F64],
        _ => vec![],
    }
}

fn rounded() -> Vec<Precision> {
    Rounding::ALL.iter().map(|&r| Precision::Rounded(r)).collect()
}

/// Rounding choices: `{.rnd}` optional (Default) for add/sub/mul, required for the rest.
fn precisions(op: Opcode, ty: Type) -> Vec<Precision> {
    let half = ty.is_half();
    match op {
        Opcode::Add | Opcode::Sub | Opcode::Mul if half => vec![Precision::Default, Precision::Rounded(Rounding::Rn)],
        Opcode::Add | Opcode::Sub | Opcode::Mul => [vec![Precision::Default], rounded()].concat(),
        // 9.7.4 fma: ".rnd = { .rn }".
        Opcode::Fma if half => vec![Precision::Rounded(Rounding::Rn)],
        Opcode::Fma | Opcode::Mad | Opcode::Div | Opcode::Rcp | Opcode::Sqrt => rounded(),
        _ => vec![Precision::Default],
    }
}

/// `.ftz` exists for f32/f32x2 and f16/f16x2 (never f64, never bf16), and not for testp/copysign.
fn ftzs(op: Opcode, ty: Type) -> Vec<Ftz> {
    let has = matches!(ty, F32 | F32x2 | F16 | F16x2) && !matches!(op, Opcode::Testp | Opcode::Copysign);
    if has {
        vec![Ftz::Preserve, Ftz::Flush]
    } else {
        vec![Ftz::Preserve]
    }
}

/// `.sat` on f32 add/sub/mul/fma/mad and f16/f16x2 add/sub/mul/fma; `.relu` on half fma.
fn clamps(op: Opcode, ty: Type) -> Vec<Clamp> {
    use Clamp::*;
    match (op, ty) {
        (Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Mad, F32) => vec![None, Sat],
        (Opcode::Add | Opcode::Sub | Opcode::Mul, F16 | F16x2) => vec![None, Sat],
        (Opcode::Fma, F32) => vec![None, Sat],
        (Opcode::Fma, F16 | F16x2) => vec![None, Sat, Relu],
        (Opcode::Fma, Bf16 | Bf16x2) => vec![None, Relu],
        _ => vec![None],
    }
}

/// min/max: `{.NaN}{.xorsign.abs}` with two inputs, `{.NaN}{.abs}` with three (f32 only);
/// min.f64 has neither.
fn min_max_variants(ty: Type, inputs: u8) -> Vec<(NanMode, AbsMode)> {
    if ty == F64 {
        return vec![(NanMode::Number, AbsMode::None)];
    }
    let abs = if inputs == 3 { AbsMode::Abs } else { AbsMode::XorsignAbs };
    let mut v = Vec::new();
    for n in [NanMode::Number, NanMode::Propagate] {
        for a in [AbsMode::None, abs] {
            v.push((n, a));
        }
    }
    v
}

/// Operand counts of a family on a type (min/max take 3 inputs on f32 only).
pub fn arities(op: Opcode, ty: Type) -> Vec<u8> {
    match op {
        Opcode::Min | Opcode::Max if ty == F32 => vec![2, 3],
        _ => vec![Instr::new(op, ty).inputs],
    }
}

/// Every form of `op` on `ty` with `inputs` operands.
pub fn forms(op: Opcode, ty: Type, inputs: u8) -> Vec<Instr> {
    let mut out = Vec::new();
    let testps: Vec<Option<TestpOp>> =
        if op == Opcode::Testp { TestpOp::ALL.iter().map(|&t| Some(t)).collect() } else { vec![None] };
    let mm = if matches!(op, Opcode::Min | Opcode::Max) {
        min_max_variants(ty, inputs)
    } else {
        vec![(NanMode::Number, AbsMode::None)]
    };
    for &testp in &testps {
        for &precision in &precisions(op, ty) {
            for &ftz in &ftzs(op, ty) {
                for &clamp in &clamps(op, ty) {
                    for &(nan, abs) in &mm {
                        let mut i = Instr::new(op, ty);
                        i.testp = testp;
                        i.precision = precision;
                        i.ftz = ftz;
                        i.clamp = clamp;
                        i.nan = nan;
                        i.abs = abs;
                        i.inputs = inputs;
                        out.push(i);
                    }
                }
            }
        }
    }
    out
}

/// The forms the agreement runs use: the oracle's table plus any further legal form of
/// `ptx::isa` (ptxas-only ones such as `fma.rz.bf16`), approximate forms left out.
pub fn tested(op: Opcode, ty: Type, inputs: u8) -> Vec<Instr> {
    let mut v = forms(op, ty, inputs);
    for i in ptx::isa::all_forms() {
        if i.op == op && i.ty == ty && i.inputs == inputs && !i.is_approximate() && !v.contains(&i) {
            v.push(i);
        }
    }
    v
}

/// Every form of the suite.
pub fn all() -> Vec<Instr> {
    let mut v = Vec::new();
    for op in FAMILIES {
        for ty in types(op) {
            for n in arities(op, ty) {
                v.extend(forms(op, ty, n));
            }
        }
    }
    v
}

/// The PTX mnemonic, e.g. `min.ftz.NaN.xorsign.abs.f32`, `fma.rn.ftz.relu.f16x2`.
pub fn spell(i: &Instr) -> String {
    let mut s = i.op.name().to_string();
    if let Some(t) = i.testp {
        s += ".";
        s += t.name();
    }
    match i.precision {
        Precision::Default => {}
        Precision::Rounded(r) => {
            s += ".";
            s += r.name();
        }
        Precision::Approx => s += ".approx",
        Precision::Full => s += ".full",
    }
    if i.ftz == Ftz::Flush {
        s += ".ftz";
    }
    match i.clamp {
        Clamp::None => {}
        Clamp::Sat => s += ".sat",
        Clamp::Relu => s += ".relu",
    }
    if i.nan == NanMode::Propagate {
        s += ".NaN";
    }
    match i.abs {
        AbsMode::None => {}
        AbsMode::Abs => s += ".abs",
        AbsMode::XorsignAbs => s += ".xorsign.abs",
    }
    s + "." + i.ty.name()
}

// Run by the oracle binary only (see `self_tests!` in oracle.rs).
self_tests! {
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_matches_spec_examples() {
        let mut i = Instr::new(Opcode::Min, F32);
        i.ftz = Ftz::Flush;
        i.nan = NanMode::Propagate;
        i.abs = AbsMode::XorsignAbs;
        assert_eq!(spell(&i), "min.ftz.NaN.xorsign.abs.f32");
        let mut f = Instr::new(Opcode::Fma, F16x2);
        f.precision = Precision::Rounded(Rounding::Rn);
        f.ftz = Ftz::Flush;
        f.clamp = Clamp::Relu;
        assert_eq!(spell(&f), "fma.rn.ftz.relu.f16x2");
        let mut t = Instr::new(Opcode::Testp, F64);
        t.testp = Some(TestpOp::NotANumber);
        assert_eq!(spell(&t), "testp.notanumber.f64");
    }

    #[test]
    fn form_counts() {
        // add.f32: 5 precisions x ftz x sat; add.bf16: Default and .rn.
        assert_eq!(forms(Opcode::Add, F32, 2).len(), 20);
        assert_eq!(forms(Opcode::Add, Bf16, 2).len(), 2);
        assert_eq!(forms(Opcode::Fma, F16, 3).len(), 6);
        assert_eq!(forms(Opcode::Min, F32, 3).len(), 8);
        assert_eq!(forms(Opcode::Testp, F32, 1).len(), 6);
        assert_eq!(forms(Opcode::Max, F64, 2).len(), 1);
    }
}
}
