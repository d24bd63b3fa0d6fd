//! The sweep pre-filter of the IEEE-rounded 16-bit binary forms (`add`, `sub`, `mul`
//! `{.rn}{.ftz}` on `f16`, `f16x2`, `bf16`, `bf16x2`: 9.7.4 gives them no other rounding, and
//! `.ftz` only to f16; the code takes any rounding, see below; issue 12 point 4): the GPU
//! computes the correctly rounded result itself and passes every output equal to it, so the
//! CPU judges only what it keeps (and one passed input in 1024, the audit).
//!
//! The reference, in the order the PTX ([`Rounded::ptx_keep`]) computes it:
//!
//! 1. both operands widened to f64 (exact: every 16-bit value is an f64);
//! 2. `r = a op b` in f64 **with the form's own rounding** (`add.rz.f64` for `add.rz.f16`);
//! 3. `c = cvt.<rnd>.<f16|bf16>.f64 r`, the same rounding again.
//!
//! `c` is the correctly rounded result: for f16 every sum, difference and product of two
//! operands is exact in f64 (at most 40 significant bits: exponents 2^-24..2^15), so step 2
//! does not round; for bf16 a sum may not be exact (exponents 2^-133..2^127), but the directed
//! roundings compose on nested grids (rounding up to f64, then up to bf16, is rounding up to
//! bf16: every bf16 is an f64) and to nearest, double rounding through a format of p' >= 2p + 2
//! bits is innocuous for +, -, * (Figueroa, "When is double rounding innocuous?", SIGNUM 1995:
//! 53 >= 2 * 8 + 2), with no overflow or underflow of f64 in between. The tests check this
//! against the exact judge, exhaustively for `add.rn.bf16` in an ignored test.
//!
//! A NaN `r` (a NaN operand, or inf - inf, 0 * inf) passes when every output lane is a NaN:
//! the PTX ISA allows any NaN there (9.7.3 intro; `ptx::interp::nan`). `.sat` (f16 only,
//! 9.7.4.1) clamps `c` to [+0, 1] and turns a NaN into +0 (9.7.4.1: "NaN results are flushed
//! to +0.0"); a negative `c`, -0 included, becomes +0, which the judge allows (its primary;
//! -0 is only the `sat-keeps-negative-zero` alternative). Kept for the CPU: the `.ftz` forms'
//! subnormal operands and results whose exponent field is 0 (flushing is the judge's
//! business), and every output lane that is not the expected value.

use crate::format::{Format, Scalar, BF16, F16, F64};
use crate::isa::{Clamp, Ftz, Instr, Opcode, Precision};
use crate::rounding::{round_f64, Rounding};

use super::Verdict;

/// The arithmetic of a rounded pre-filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
        }
    }
}

/// The pre-filter of one IEEE-rounded 16-bit binary form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rounded {
    op: Op,
    scalar: Scalar,
    lanes: u32,
    rounding: Rounding,
    ftz: bool,
    sat: bool,
}

impl Rounded {
    /// The pre-filter of `form`, or `None` unless it is an `add`/`sub`/`mul` of a 16-bit type
    /// without `.relu`, rounded (explicitly, or `.rn` by default).
    pub fn new(form: &Instr) -> Option<Rounded> {
        let op = match form.op {
            Opcode::Add => Op::Add,
            Opcode::Sub => Op::Sub,
            Opcode::Mul => Op::Mul,
            _ => return None,
        };
        let scalar = form.ty.scalar();
        if !matches!(scalar, Scalar::F16 | Scalar::BF16) || form.clamp == Clamp::Relu || form.inputs != 2 {
            return None;
        }
        let rounding = match form.precision {
            Precision::Default => Rounding::Rn,
            Precision::Rounded(r) => r,
            Precision::Approx | Precision::Full => return None,
        };
        Some(Rounded { op, scalar, lanes: form.ty.lanes(), rounding, ftz: form.ftz == Ftz::Flush, sat: form.clamp == Clamp::Sat })
    }

    /// The verdict on input number `x` (operand `a` in bits 0..16, `b` in 16..32, as the sweep
    /// numbers them) and output `h` (one lane, or two alike for a packed form).
    pub fn judge(&self, x: u32, h: u32) -> Verdict {
        match self.scalar {
            Scalar::F16 => self.judge_in::<F16>(x, h),
            _ => self.judge_in::<BF16>(x, h),
        }
    }

    fn judge_in<F: Format>(&self, x: u32, h: u32) -> Verdict {
        let (a, b) = ((x & 0xffff) as u64, (x >> 16) as u64);
        let lanes = (0..self.lanes).map(|l| ((h >> (16 * l)) & 0xffff) as u64);
        let subnormal = |v: u64| v & F::EXP_MASK == 0 && v & F::FRAC_MASK != 0;
        if self.ftz && (subnormal(a) || subnormal(b)) {
            return Verdict::Keep;
        }
        let wide = |v: u64| self.scalar.to_f64(v).to_bits();
        let (fa, fb) = (wide(a), wide(b));
        let r = match self.op {
            Op::Add => crate::softfloat::add::<F64>(fa, fb, self.rounding),
            Op::Sub => crate::softfloat::sub::<F64>(fa, fb, self.rounding),
            Op::Mul => crate::softfloat::mul::<F64>(fa, fb, self.rounding),
        };
        let pass = match (F64::is_nan(r), self.sat) {
            (true, false) => lanes.into_iter().all(|l| F::is_nan(l)),
            (true, true) => lanes.into_iter().all(|l| l == 0),
            (false, _) => {
                let mut c = round_f64::<F>(r, self.rounding);
                if self.sat {
                    // Clamped to [+0, 1]: positive values order as their bits.
                    c = if F::sign(c) { 0 } else { c.min(F::ONE) };
                }
                !(self.ftz && c & F::EXP_MASK == 0) && lanes.into_iter().all(|l| l == c)
            }
        };
        if pass {
            Verdict::Pass
        } else {
            Verdict::Keep
        }
    }

    /// PTX that sets `%pf_keep` to whether [`Rounded::judge`] keeps input `%pf_x` with output
    /// `%pf_h` (registers of [`super::PTX_REG_DECLS`]); `%pf_aud` is set by the caller.
    /// Branches to `{label}_END` (which the caller places) on a decision.
    pub fn ptx_keep(&self, label: &str, line: &mut dyn FnMut(String)) {
        let end = format!("{label}_END");
        let nan = format!("{label}_NAN");
        let (exp_mask, frac_mask) = match self.scalar {
            Scalar::F16 => (F16::EXP_MASK, F16::FRAC_MASK),
            _ => (BF16::EXP_MASK, BF16::FRAC_MASK),
        };
        let keep_if = |line: &mut dyn FnMut(String), pred: &str| {
            line(format!("@{pred} setp.eq.u32 %pf_keep, 0, 0;"));
            line(format!("@{pred} bra {end};"));
        };
        // The operands' bits: a in %pf_t1, b in %pf_t2.
        line("and.b64 %pf_t1, %pf_x, 65535;".into());
        line("shr.u64 %pf_t2, %pf_x, 16;".into());
        line("and.b64 %pf_t2, %pf_t2, 65535;".into());
        if self.ftz {
            // A subnormal operand (exponent field 0, fraction not): kept.
            for t in ["%pf_t1", "%pf_t2"] {
                line(format!("and.b64 %pf_t0, {t}, {exp_mask};"));
                line("setp.eq.u64 %pf_q, %pf_t0, 0;".into());
                line(format!("and.b64 %pf_t3, {t}, {frac_mask};"));
                line("setp.ne.u64 %pf_n, %pf_t3, 0;".into());
                line("and.pred %pf_q, %pf_q, %pf_n;".into());
                keep_if(line, "%pf_q");
            }
        }
        // Widen each to f64, exactly: f16 through cvt.f32.f16; bf16 is the top half of an f32.
        for (t, dreg) in [("%pf_t1", "%pf_d0"), ("%pf_t2", "%pf_d1")] {
            match self.scalar {
                Scalar::F16 => {
                    line(format!("cvt.u16.u64 %pf_s0, {t};"));
                    line("cvt.f32.f16 %pf_g0, %pf_s0;".into());
                }
                _ => {
                    line(format!("cvt.u32.u64 %pf_w0, {t};"));
                    line("shl.b32 %pf_w0, %pf_w0, 16;".into());
                    line("mov.b32 %pf_g0, %pf_w0;".into());
                }
            }
            line(format!("cvt.f64.f32 {dreg}, %pf_g0;"));
        }
        let rnd = self.rounding.name();
        line(format!("{}.{rnd}.f64 %pf_d2, %pf_d0, %pf_d1;", self.op.name()));
        line("testp.notanumber.f64 %pf_q, %pf_d2;".into());
        line(format!("@%pf_q bra {nan};"));
        // c = cvt.rnd.<16-bit>.f64 r, in %pf_t3.
        line(format!("cvt.{rnd}.{}.f64 %pf_s1, %pf_d2;", self.scalar.name()));
        line("cvt.u64.u16 %pf_t3, %pf_s1;".into());
        if self.sat {
            // Clamp to [+0, 1]: a set sign bit gives +0, bits above one's give one.
            let one = match self.scalar {
                Scalar::F16 => F16::ONE,
                _ => BF16::ONE,
            };
            line("and.b64 %pf_t0, %pf_t3, 32768;".into());
            line("setp.ne.u64 %pf_q, %pf_t0, 0;".into());
            line("selp.b64 %pf_t3, 0, %pf_t3, %pf_q;".into());
            line(format!("setp.gt.u64 %pf_q, %pf_t3, {one};"));
            line(format!("selp.b64 %pf_t3, {one}, %pf_t3, %pf_q;"));
        }
        if self.ftz {
            line(format!("and.b64 %pf_t0, %pf_t3, {exp_mask};"));
            line("setp.eq.u64 %pf_q, %pf_t0, 0;".into());
            keep_if(line, "%pf_q");
        }
        for l in 0..self.lanes {
            line(format!("shr.u64 %pf_t0, %pf_h, {};", 16 * l));
            line("and.b64 %pf_t0, %pf_t0, 65535;".into());
            line("setp.ne.u64 %pf_q, %pf_t0, %pf_t3;".into());
            keep_if(line, "%pf_q");
        }
        line(format!("bra.uni {end};"));
        // A NaN reference: every lane must be a NaN, |lane| > the infinity's bits; under
        // `.sat`, +0.
        line(format!("{nan}:"));
        for l in 0..self.lanes {
            line(format!("shr.u64 %pf_t0, %pf_h, {};", 16 * l));
            if self.sat {
                line("and.b64 %pf_t0, %pf_t0, 65535;".into());
                line("setp.ne.u64 %pf_q, %pf_t0, 0;".into());
            } else {
                line(format!("and.b64 %pf_t0, %pf_t0, {};", exp_mask | frac_mask));
                line(format!("setp.le.u64 %pf_q, %pf_t0, {exp_mask};"));
            }
            keep_if(line, "%pf_q");
        }
    }
}

#[cfg(test)]
#[path = "prefilter_rounded_tests.rs"]
mod tests;
