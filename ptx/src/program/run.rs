//! Running a program in the interpreter: per output (and, traced, per instruction) the set of
//! results PTX allows.
//!
//! Each instruction reads the PRIMARY bits of earlier results: alternatives of one instruction
//! are not propagated (that would multiply), with one exception, contraction. A mul and an
//! add/sub without rounding modifier may be fused into one fma by ptxas (9.7.3.3-5 notes:
//! "mul/add sequences with no rounding modifiers may be optimized to use fused-multiply-add
//! instructions"), which changes every later value. So a program with such pairs also runs with
//! the pairs fused, and each result gains the fused run's primary as a [`Reading::Contracted`]
//! alternative.

use crate::interp::{self, EvalError, Expectation, LaneExpectation, Reading};
use crate::isa::{AbsMode, Clamp, Instr, NanMode, Opcode, Precision, Type};
use crate::rounding::Rounding;

use super::{Program, Reg};

/// Why a program cannot be run on given inputs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("the program takes {expected} input(s), got {got}")]
    InputCount { expected: usize, got: usize },
    #[error("input {reg} (.{ty}): 0x{value:x} has more than {bits} bits")]
    InputWidth { reg: String, ty: &'static str, value: u64, bits: u32 },
    #[error("instruction {index} (`{text}`): {cause}")]
    Eval { index: usize, text: String, cause: EvalError },
}

/// The allowed results of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// One per program output, in order.
    pub outputs: Vec<Expectation>,
    /// One per instruction (its destination), in program order; empty unless traced.
    pub intermediates: Vec<Expectation>,
}

/// A mul (`mul`) whose only use is the add/sub `add`, as operand `pos` of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fusion {
    mul: usize,
    add: usize,
    pos: usize,
}

impl Program {
    /// The allowed results for each output.
    pub fn run(&self, inputs: &[u64]) -> Result<Vec<Expectation>, RunError> {
        Ok(self.run_mode(inputs, false)?.outputs)
    }

    /// The allowed results for each output and for every instruction's destination.
    pub fn trace(&self, inputs: &[u64]) -> Result<Run, RunError> {
        self.run_mode(inputs, true)
    }

    fn run_mode(&self, inputs: &[u64], traced: bool) -> Result<Run, RunError> {
        self.check_inputs(inputs)?;
        let mut per_stmt = self.eval_all(inputs, &[])?;
        for choice in self.fusion_choices() {
            let fused = self.eval_all(inputs, &choice)?;
            for (e, f) in per_stmt.iter_mut().zip(&fused) {
                add_contracted(e, f);
            }
        }
        let outputs = self
            .outputs
            .iter()
            .map(|&r| match self.definition(r) {
                Some(j) => per_stmt[j].clone(),
                None => self.inputs[r.0 as usize].exact_input(inputs[r.0 as usize]),
            })
            .collect();
        Ok(Run { outputs, intermediates: if traced { per_stmt } else { Vec::new() } })
    }

    fn check_inputs(&self, inputs: &[u64]) -> Result<(), RunError> {
        if inputs.len() != self.inputs.len() {
            return Err(RunError::InputCount { expected: self.inputs.len(), got: inputs.len() });
        }
        for (i, (&ty, &v)) in self.inputs.iter().zip(inputs).enumerate() {
            if ty.bits() < 64 && v >> ty.bits() != 0 {
                return Err(RunError::InputWidth {
                    reg: self.name(Reg(i as u16)).to_string(),
                    ty: ty.name(),
                    value: v,
                    bits: ty.bits(),
                });
            }
        }
        Ok(())
    }

    /// Evaluate every instruction on the primary bits of its sources; the adds of `fused` are
    /// evaluated as the fma of their mul.
    fn eval_all(&self, inputs: &[u64], fused: &[Fusion]) -> Result<Vec<Expectation>, RunError> {
        let k = self.inputs.len();
        let mut values = Vec::with_capacity(self.reg_count());
        values.extend_from_slice(inputs);
        let mut out = Vec::with_capacity(self.body.len());
        for (j, s) in self.body.iter().enumerate() {
            let mut ops = [0u64; 3];
            for (o, r) in ops.iter_mut().zip(s.srcs()) {
                *o = values[r.0 as usize];
            }
            let n = s.srcs().len();
            let result = match fused.iter().find(|f| f.add == j) {
                None => interp::eval(&s.instr, &ops[..n]),
                Some(f) => {
                    let m = &self.body[f.mul];
                    let (a, b) = (values[m.src[0].0 as usize], values[m.src[1].0 as usize]);
                    let c = ops[1 - f.pos];
                    let neg = sign_mask(s.instr.ty);
                    // a*b + c; m - c = a*b + (-c); c - m = (-a)*b + c.
                    let (a, c) = match (s.instr.op, f.pos) {
                        (Opcode::Sub, 0) => (a, c ^ neg),
                        (Opcode::Sub, _) => (a ^ neg, c),
                        _ => (a, c),
                    };
                    interp::eval(&fused_fma(&s.instr), &[a, b, c])
                }
            };
            let e = result.map_err(|e| RunError::Eval { index: j, text: self.stmt_text(j), cause: e })?;
            values.push(e.primary_bits());
            out.push(e);
        }
        debug_assert_eq!(values.len(), k + self.body.len());
        Ok(out)
    }

    /// The mul/add pairs ptxas may contract: both without rounding modifier (Precision::Default),
    /// same type and `.ftz`, the mul unclamped, not an output, and read by nothing but that
    /// add/sub (the rule ptxas 13.5 follows in the SASS of sm_80/90/100: `.sat` on the add
    /// becomes FFMA.SAT, a `.ftz` mismatch or `.sat` on the mul keeps FMUL + FADD). An add
    /// reading two such muls may fuse either, so up to two choices are returned (empty when
    /// nothing is contractible).
    fn fusion_choices(&self) -> Vec<Vec<Fusion>> {
        if !self.has_contractible() {
            return Vec::new();
        }
        let k = self.inputs.len();
        let mut uses = vec![0u32; self.body.len()];
        // A stored mul counts as used: ptxas 13.5 (sm_80, 90, 100) keeps FMUL + FADD when the
        // product is also a program output, and fuses when the add is its only reader.
        for r in self.body.iter().flat_map(|s| s.srcs()).chain(&self.outputs) {
            if let Some(j) = (r.0 as usize).checked_sub(k) {
                uses[j] += 1;
            }
        }
        let (mut first, mut last) = (Vec::new(), Vec::new());
        for (j, s) in self.body.iter().enumerate() {
            // A mixed-precision add/sub (`add.f32.f16`) is not contracted: ptxas 13.5 keeps
            // FMUL + FHADD for `mul.f32` feeding its `c` on sm_100, with or without `.rn`.
            if !matches!(s.instr.op, Opcode::Add | Opcode::Sub) || s.instr.precision != Precision::Default || s.instr.atype.is_some() {
                continue;
            }
            let candidates = s.srcs().iter().enumerate().filter_map(|(pos, r)| {
                let i = self.definition(*r)?;
                let m = &self.body[i].instr;
                let ok = m.op == Opcode::Mul
                    && m.precision == Precision::Default
                    && m.ty == s.instr.ty
                    && m.ftz == s.instr.ftz
                    && m.clamp == Clamp::None
                    && uses[i] == 1;
                ok.then_some(Fusion { mul: i, add: j, pos })
            });
            let mut it = candidates;
            if let Some(f) = it.next() {
                first.push(f);
                last.push(it.next_back().unwrap_or(f));
            }
        }
        match (first.is_empty(), first == last) {
            (true, _) => Vec::new(),
            (false, true) => vec![first],
            (false, false) => vec![first, last],
        }
    }
}

/// The fma that a contracted mul + `add` computes: one `.rn` rounding, the add's `.ftz` and
/// `.sat` (fma takes both, 9.7.3.6 and 9.7.4).
fn fused_fma(add: &Instr) -> Instr {
    Instr {
        op: Opcode::Fma,
        testp: None,
        precision: Precision::Rounded(Rounding::Rn),
        ftz: add.ftz,
        clamp: add.clamp,
        nan: NanMode::Number,
        abs: AbsMode::None,
        ty: add.ty,
        inputs: 3,
        conv: None,
        cmp: None,
        selp_int: None,
        atype: None,
    }
}

/// The sign bit of every lane of a register of type `ty`.
fn sign_mask(ty: Type) -> u64 {
    let w = ty.scalar().bits();
    (0..ty.lanes()).fold(0, |m, l| m | 1u64 << (l * w + w - 1))
}

/// Add the fused run's primary result, lane by lane, as a `Contracted` alternative.
fn add_contracted(e: &mut Expectation, fused: &Expectation) {
    for (lane, f) in e.lanes.iter_mut().zip(&fused.lanes) {
        let l = std::mem::replace(lane, LaneExpectation::any_nan());
        *lane = l.or(f.primary, Reading::Contracted);
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Outcome;

    #[test]
    fn sign_mask_covers_each_lane() {
        assert_eq!(sign_mask(Type::F32), 0x8000_0000);
        assert_eq!(sign_mask(Type::F16x2), 0x8000_8000);
        assert_eq!(sign_mask(Type::F32x2), 0x8000_0000_8000_0000);
        assert_eq!(sign_mask(Type::F64), 1 << 63);
    }

    fn f32s(v: &[f32]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits() as u64).collect()
    }

    #[test]
    fn contracted_mul_add_gains_fused_alternative() {
        // a*a - 1 with a = 1 + 2^-12: the product 1 + 2^-11 + 2^-24 rounds (ties to even) to
        // 1 + 2^-11, so unfused gives 2^-11 and fused keeps the 2^-24.
        let p = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nmul.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f2, %f1;\n// outputs: %f3\n",
        )
        .unwrap();
        let a = 1.0f32 + 2f32.powi(-12);
        let out = p.run(&f32s(&[a, 1.0])).unwrap();
        let unfused = (a * a - 1.0).to_bits() as u64;
        let fused = a.mul_add(a, -1.0).to_bits() as u64;
        assert_ne!(unfused, fused);
        assert_eq!(out[0].lanes[0].primary, Outcome::Bits(unfused));
        assert_eq!(out[0].lanes[0].alternatives.as_slice(), &[(Outcome::Bits(fused), Reading::Contracted)]);
    }

    #[test]
    fn reversed_sub_negates_the_product() {
        // c - a*b = fma(-a, b, c).
        let p = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nmul.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f1, %f2;\n// outputs: %f3\n",
        )
        .unwrap();
        let a = 1.0f32 + 2f32.powi(-12);
        let out = p.run(&f32s(&[a, 1.0])).unwrap();
        let fused = (-a).mul_add(a, 1.0).to_bits() as u64;
        assert!(out[0].accepts(fused));
        assert!(out[0].accepts((1.0 - a * a).to_bits() as u64));
    }

    #[test]
    fn explicit_rounding_second_use_output_or_ftz_mismatch_prevents_contraction() {
        let a = 1.0f32 + 2f32.powi(-12);
        let fused = a.mul_add(a, -1.0).to_bits() as u64;
        for text in [
            "// inputs: %f0:f32, %f1:f32\nmul.rn.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f2, %f1;\n// outputs: %f3\n",
            "// inputs: %f0:f32, %f1:f32\nmul.f32 %f2, %f0, %f0;\nsub.rn.f32 %f3, %f2, %f1;\n// outputs: %f3\n",
            "// inputs: %f0:f32, %f1:f32\nmul.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f2, %f1;\nadd.rn.f32 %f4, %f2, %f3;\n// outputs: %f3\n",
            "// inputs: %f0:f32, %f1:f32\nmul.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f2, %f1;\n// outputs: %f3, %f2\n",
            "// inputs: %f0:f32, %f1:f32\nmul.ftz.f32 %f2, %f0, %f0;\nsub.f32 %f3, %f2, %f1;\n// outputs: %f3\n",
        ] {
            let out = Program::parse(text).unwrap().run(&f32s(&[a, 1.0])).unwrap();
            assert!(!out[0].accepts(fused), "{text}");
        }
    }

    #[test]
    fn trace_returns_every_intermediate_and_outputs_read_inputs_back() {
        let p = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\ntestp.finite.f32 %p4, %f3;\n// outputs: %p4, %f1\n")
            .unwrap();
        let run = p.trace(&f32s(&[1.0, 2.0])).unwrap();
        assert_eq!(run.intermediates.len(), 3);
        assert!(run.intermediates[0].is_primary(3.0f32.to_bits() as u64));
        assert!(run.intermediates[1].is_primary(9.0f32.to_bits() as u64));
        assert_eq!(run.outputs[0], Expectation::predicate(true));
        assert!(run.outputs[1].is_primary(2.0f32.to_bits() as u64));
    }

    #[test]
    fn input_count_and_width_are_checked() {
        let p = Program::parse("// inputs: %h0:f16\nneg.f16 %h1, %h0;\n// outputs: %h1\n").unwrap();
        assert!(matches!(p.run(&[]), Err(RunError::InputCount { expected: 1, got: 0 })));
        assert!(matches!(p.run(&[0x1_0000]), Err(RunError::InputWidth { bits: 16, .. })));
        assert!(p.run(&[0x3c00]).unwrap()[0].is_primary(0xbc00));
    }
}
