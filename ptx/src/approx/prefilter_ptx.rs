//! The pre-filter's decision as PTX, for the GPU sweep kernel (`crate::vm::sweep`): the same
//! operations as [`Prefilter::judge`] and [`audited`], in the same order, each an IEEE f64
//! operation rounded to nearest or an integer one, so the GPU reaches the verdict the CPU
//! reaches for every (input, output) pair. Kept beside the Rust definition so that a change to
//! one is seen next to the other.
//!
//! It assembles with ptxas 13.5 for sm_80/90/100 (`ptx/tests/ptxas.rs`). The approximate
//! decision ran on an H200 (`sweep rcp.approx.f32`, 2^32 inputs: 0 disagreements, 0 escapes;
//! docs/hardware/nvidia-h200-2026-11-26/), and so did the rounded one ([`super::rounded`]):
//! `sweep add.rn.f16` and `mul.rn.bf16` over 2^32 pairs in 2.3 s each, the H100's
//! fingerprints (docs/hardware/nvidia-h200-2026-11-29/). On a GPU the sweep audits one passed input in 1024 on the CPU and reports any the
//! judge rejects, and cross-checks every kept input against [`Prefilter::judge`].

use std::fmt::Write;

#[cfg(doc)]
use super::audited;
use super::{BoundKind, Kind, Prefilter, Reference, REL_SHARE};

/// The registers the decision uses, each its own name (`%pf_` prefix), for the caller to
/// declare with [`PTX_REG_DECLS`]: inputs `%pf_x` (the input's f32 bits, zero-extended to 64)
/// and `%pf_h` (the output's), results `%pf_keep` ([`Prefilter::judge`] says `Keep`) and
/// `%pf_aud` (the input is [`audited`]).
pub const PTX_REGS: [&str; 4] = ["%pf_x", "%pf_h", "%pf_keep", "%pf_aud"];

/// Declarations of every register the decision text uses.
pub const PTX_REG_DECLS: &str = "\t.reg .b64 %pf_x;\n\t.reg .b64 %pf_h;\n\t.reg .pred %pf_keep;\n\t.reg .pred %pf_aud;\n\t.reg .pred %pf_q;\n\
\t.reg .pred %pf_n;\n\t.reg .b64 %pf_t<6>;\n\t.reg .b32 %pf_w<4>;\n\t.reg .f32 %pf_g<4>;\n\t.reg .f64 %pf_d<8>;\n\t.reg .b16 %pf_s<2>;\n";

/// An f64 constant as PTX writes it exactly (`0dXXXXXXXXXXXXXXXX`).
fn d(v: f64) -> String {
    format!("0d{:016X}", v.to_bits())
}

impl Prefilter {
    /// PTX that sets `%pf_keep` to whether [`Prefilter::judge`] keeps input `%pf_x` with
    /// output `%pf_h`, and `%pf_aud` to whether the input is [`audited`]. `label` makes its one
    /// label unique in the module.
    pub fn ptx_keep(&self, label: &str) -> String {
        let end = format!("{label}_END");
        let mut o = String::new();
        let mut line = |s: String| {
            o.push('\t');
            o.push_str(&s);
            o.push('\n');
        };
        let (reference, bound) = match &self.kind {
            Kind::Approx { reference, bound } => (*reference, *bound),
            Kind::Rounded(r) => {
                line(format!("// pre-filter (ptx::approx::prefilter::rounded): {r:?}"));
                audit(&mut line);
                r.ptx_keep(label, &mut line);
                let _ = writeln!(o, "{end}:");
                return o;
            }
        };
        line(format!("// pre-filter (ptx::approx::prefilter): {reference:?} reference, bound {bound:?}"));
        audit(&mut line);
        let keep_if = |line: &mut dyn FnMut(String), pred: &str| {
            line(format!("@{pred} setp.eq.u32 %pf_keep, 0, 0;"));
            line(format!("@{pred} bra {end};"));
        };
        // `is_normal`: kept unless the f32 in `reg` has an exponent neither 0 nor 255.
        let keep_unless_normal = |line: &mut dyn FnMut(String), reg: &str| {
            line(format!("bfe.u64 %pf_t0, {reg}, 23, 8;"));
            line("setp.eq.u64 %pf_q, %pf_t0, 0;".into());
            keep_if(line, "%pf_q");
            line("setp.eq.u64 %pf_q, %pf_t0, 255;".into());
            keep_if(line, "%pf_q");
        };
        // A normal input; sqrt and rsqrt: a positive one.
        keep_unless_normal(&mut line, "%pf_x");
        if reference != Reference::Rcp {
            line("bfe.u64 %pf_t0, %pf_x, 31, 1;".into());
            line("setp.ne.u64 %pf_q, %pf_t0, 0;".into());
            keep_if(&mut line, "%pf_q");
        }
        // r = reference(x as f64).
        line("cvt.u32.u64 %pf_w0, %pf_x;".into());
        line("mov.b32 %pf_g0, %pf_w0;".into());
        line("cvt.f64.f32 %pf_d0, %pf_g0;".into());
        let one = d(1.0);
        match reference {
            Reference::Rcp => line(format!("div.rn.f64 %pf_d1, {one}, %pf_d0;")),
            Reference::Sqrt => line("sqrt.rn.f64 %pf_d1, %pf_d0;".into()),
            Reference::Rsqrt => {
                line("sqrt.rn.f64 %pf_d2, %pf_d0;".into());
                line(format!("div.rn.f64 %pf_d1, {one}, %pf_d2;"));
            }
        }
        // `decide`: a normal output whose sign is the reference's.
        keep_unless_normal(&mut line, "%pf_h");
        line("bfe.u64 %pf_t0, %pf_h, 31, 1;".into());
        line("setp.ne.u64 %pf_n, %pf_t0, 0;".into());
        line(format!("setp.lt.f64 %pf_q, %pf_d1, {};", d(0.0)));
        line("xor.pred %pf_q, %pf_q, %pf_n;".into());
        keep_if(&mut line, "%pf_q");
        // lo, hi = |r| (1 -+ widen); hv = |h| as f64; k = |h|'s bits.
        let widen = 2.0 * reference.rel_err() + f64::EPSILON;
        line("abs.f64 %pf_d2, %pf_d1;".into());
        line(format!("mul.rn.f64 %pf_d4, %pf_d2, {};", d(1.0 - widen)));
        line(format!("mul.rn.f64 %pf_d5, %pf_d2, {};", d(1.0 + widen)));
        line("and.b64 %pf_t3, %pf_h, 2147483647;".into());
        line("cvt.u32.u64 %pf_w1, %pf_t3;".into());
        line("mov.b32 %pf_g1, %pf_w1;".into());
        line("cvt.f64.f32 %pf_d3, %pf_g1;".into());
        // Ends beyond the normal range: kept.
        line(format!("setp.lt.f64 %pf_q, %pf_d4, {};", d(f32::MIN_POSITIVE as f64)));
        keep_if(&mut line, "%pf_q");
        line(format!("setp.gt.f64 %pf_q, %pf_d5, {};", d(f32::MAX as f64)));
        keep_if(&mut line, "%pf_q");
        match bound {
            BoundKind::Ulps(n) => {
                // k - bits(rn(lo)) <= n and bits(rn(hi)) - k <= n, as signed 64-bit.
                line("cvt.rn.f32.f64 %pf_g2, %pf_d4;".into());
                line("mov.b32 %pf_w2, %pf_g2;".into());
                line("cvt.u64.u32 %pf_t4, %pf_w2;".into());
                line("cvt.rn.f32.f64 %pf_g3, %pf_d5;".into());
                line("mov.b32 %pf_w3, %pf_g3;".into());
                line("cvt.u64.u32 %pf_t5, %pf_w3;".into());
                line("sub.s64 %pf_t0, %pf_t3, %pf_t4;".into());
                line(format!("setp.gt.s64 %pf_q, %pf_t0, {n};"));
                keep_if(&mut line, "%pf_q");
                line("sub.s64 %pf_t0, %pf_t5, %pf_t3;".into());
                line(format!("setp.gt.s64 %pf_q, %pf_t0, {n};"));
                keep_if(&mut line, "%pf_q");
            }
            BoundKind::Rel { scale, .. } => {
                // d = scale * lo * REL_SHARE (left to right, as Rust evaluates it); pass when
                // hv - lo <= d and hi - hv <= d (no NaN reaches here).
                line(format!("mul.rn.f64 %pf_d6, {}, %pf_d4;", d(scale)));
                line(format!("mul.rn.f64 %pf_d6, %pf_d6, {};", d(REL_SHARE)));
                line("sub.rn.f64 %pf_d7, %pf_d3, %pf_d4;".into());
                line("setp.gt.f64 %pf_q, %pf_d7, %pf_d6;".into());
                keep_if(&mut line, "%pf_q");
                line("sub.rn.f64 %pf_d7, %pf_d5, %pf_d3;".into());
                line("setp.gt.f64 %pf_q, %pf_d7, %pf_d6;".into());
                keep_if(&mut line, "%pf_q");
            }
            // `Prefilter::new` admits only the two kinds above.
            BoundKind::Abs { .. } | BoundKind::Undocumented => {
                line("setp.eq.u32 %pf_keep, 0, 0;".into());
            }
        }
        let _ = writeln!(o, "{end}:");
        o
    }
}

/// `audited` into `%pf_aud` ((x * 0x9e3779b97f4a7c15) >> 54 == 0), and `%pf_keep` cleared:
/// the decision sets it on an early exit.
fn audit(line: &mut dyn FnMut(String)) {
    line("mul.lo.u64 %pf_t0, %pf_x, 0x9E3779B97F4A7C15;".into());
    line("shr.u64 %pf_t0, %pf_t0, 54;".into());
    line("setp.eq.u64 %pf_aud, %pf_t0, 0;".into());
    line("setp.ne.u32 %pf_keep, 0, 0;".into());
}

#[cfg(test)]
mod tests {
    use super::super::Form;
    use super::*;
    use crate::isa::Instr;

    fn text(m: &str) -> String {
        let f = Form::of(&Instr::parse_default(m).unwrap()).unwrap();
        Prefilter::new(&f).unwrap().ptx_keep("PF")
    }

    #[test]
    fn the_ptx_decision_carries_the_rust_constants_exactly() {
        let rcp = text("rcp.approx.f32");
        // widen = 2 * 2^-53 + 2^-52 = 2^-51 for a correctly rounded reference.
        assert!(rcp.contains(&format!("mul.rn.f64 %pf_d4, %pf_d2, {};", d(1.0 - 2f64.powi(-51)))), "{rcp}");
        assert!(rcp.contains("div.rn.f64 %pf_d1, 0d3FF0000000000000, %pf_d0;"));
        assert!(rcp.contains("setp.gt.s64 %pf_q, %pf_t0, 1;"), "rcp's bound is 1 ulp: {rcp}");
        assert!(!rcp.contains("bfe.u64 %pf_t0, %pf_x, 31, 1;"), "rcp keeps negative inputs in the filter");
        let rsqrt = text("rsqrt.approx.f32");
        assert!(rsqrt.contains("sqrt.rn.f64 %pf_d2, %pf_d0;\n\tdiv.rn.f64 %pf_d1"));
        assert!(rsqrt.contains(&d(REL_SHARE)) && rsqrt.contains("bfe.u64 %pf_t0, %pf_x, 31, 1;"));
        assert!(rsqrt.ends_with("PF_END:\n"));
    }
}
