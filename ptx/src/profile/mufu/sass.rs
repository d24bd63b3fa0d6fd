//! The SASS ptxas 13.5 runs around the function units for each approximate form (sm_90,
//! `scripts/approx-sass`, docs/approx.md): the f32 forms' exact scaling, div as MUFU.RCP and
//! FMUL, the f64 forms on the high word, rsqrt.approx.f64's correction step, sin/cos's
//! reduction to turns. A child of `mufu` so that it drives the unit's private datapath.

use super::{Function, Unit};
use crate::format::Scalar;
use crate::rounding::Rounding;

/// The SASS ptxas 13.5 wraps around each unit for the non-`.ftz` f32 forms (docs/approx.md, the
/// `scripts/approx-sass sm_90` table): exact f32 scaling that keeps the unit's operand and
/// result normal. The `.ftz` forms are the bare unit.
impl Unit {
    /// One lane of `form` (one this unit `computes`) on the lane's operands; `nan` is the
    /// GPU's canonical NaN of the lane's format.
    pub fn form_lane(&self, form: &crate::approx::Form, ops: &[u64], nan: u64) -> u64 {
        use crate::approx::Func as F;
        match form.func {
            F::DivApprox | F::DivFull => self.div(form.func == F::DivFull, form.ftz, ops[0] as u32, ops[1] as u32, nan as u32) as u64,
            F::RcpGross | F::RsqrtGross => self.high_word(ops[0], (nan >> 32) as u32),
            F::Rsqrt if form.scalar == Scalar::F64 => self.rsqrt_f64(ops[0]),
            F::Sin | F::Cos => self.sin(turns(ops[0] as u32), form.func == F::Cos, nan as u32) as u64,
            _ => self.f32_lane(form.ftz, ops[0] as u32, nan as u32) as u64,
        }
    }

    /// `div.approx{.ftz}.f32` and `div.full{.ftz}.f32`: a / b as MUFU.RCP of b, then one FMUL
    /// by a. The non-.ftz forms first scale a subnormal divisor (and the dividend) by 2^24;
    /// div.full also scales a divisor above 2^126 (and the dividend) by 1/4, div.approx does
    /// not, so its reciprocal flushes to zero there (the spec's sign-preserving zero, 9.7.3.8).
    /// `.ftz` forms use FMUL.FTZ (`mul_ftz`: flushing on tininess after rounding, as the H100's
    /// recorded div cases show).
    fn div(&self, full: bool, ftz: crate::isa::Ftz, a: u32, b: u32, nan: u32) -> u32 {
        let flush = ftz == crate::isa::Ftz::Flush;
        let (mut a, mut b) = (f32::from_bits(a), f32::from_bits(b));
        let mul = |x: f32, y: f32| if flush { mul_ftz(x, y) } else { x * y };
        if full && b.abs() > 2f32.powi(126) {
            (a, b) = (mul(a, 0.25), mul(b, 0.25));
        }
        if !flush && b.abs() < f32::MIN_POSITIVE {
            (a, b) = (a * 16_777_216.0, b * 16_777_216.0);
        }
        let q = mul(f32::from_bits(self.run(b.to_bits(), nan)), a);
        if q.is_nan() { nan } else { q.to_bits() }
    }

    /// `rcp.approx.ftz.f64` / `rsqrt.approx.ftz.f64`: MUFU.RCP64H / RSQ64H read the high word
    /// only (sign, 11-bit exponent, 20 fraction bits: `rcp.approx.ftz.f64 0x7ff0000000000001`
    /// is 0, the reciprocal of infinity), run the f32 unit's datapath on the fraction padded
    /// with zeros, and keep the top 20 bits of its significand; the low word is zero
    /// (HFMA2.MMA R4, -RZ, RZ: every recorded case). NaN gives `nan32` in the high word.
    fn high_word(&self, x: u64, nan32: u32) -> u64 {
        const INF: u32 = 0x7ff0_0000;
        let h = (x >> 32) as u32;
        let (sign, exp, frac) = (h & 0x8000_0000, (h >> 20) & 0x7ff, h & 0xf_ffff);
        let hi = match (self.function, exp) {
            (_, 0x7ff) if frac != 0 => nan32,
            (Function::Rsqrt, _) if sign != 0 && (exp != 0) => nan32, // a negative operand
            (Function::Rcp | Function::Rsqrt, 0) => sign | INF,      // a zero or flushed subnormal
            (Function::Rcp, 0x7ff) => sign,
            (Function::Rsqrt, 0x7ff) => 0,
            (Function::Rcp | Function::Rsqrt, _) => {
                // As `run`, on the fraction padded to 23 bits; the top 20 bits are kept.
                let (e, sig) = self.power(exp as i32 - 1023, frac << 3);
                if e + 1023 <= 0 { sign } else { sign | ((e + 1023) as u32) << 20 | sig >> 3 }
            }
            _ => nan32,
        };
        (hi as u64) << 32
    }

    /// `rsqrt.approx.f64` (not `.ftz`) has no unit of its own: ptxas 13.5 emits (sm_90) the
    /// gross MUFU.RSQ64H (`high_word`), then one correction step in f64, every DMUL and DFMA
    /// rounded to nearest: `e = fma(x, -(y0 y0), 1)`, `y = fma(fma(e, 0.375, 0.5), y0 e, y0)`,
    /// the series (1 - e)^(-1/2) = 1 + e/2 + 3e^2/8 to second order. That runs for a positive
    /// normal operand (`IADD3 hi - 0x100000; ISETP.GE.U32 0x7fe00000`); everything else goes to
    /// `__cuda_sm20_drsqrt_f64_slowpath_v2`: +-0 gives +-inf, a NaN `x + x` (quieted, payload
    /// kept), a negative operand 0xfff8000000000000, +inf +0, and a positive subnormal is scaled
    /// by 2^54 before the same step and its result by 2^27 after (docs/approx.md lists the SASS).
    fn rsqrt_f64(&self, x: u64) -> u64 {
        const SIGN: u64 = 1 << 63;
        let hi = (x >> 32) as u32;
        let v = f64::from_bits(x);
        if hi.wrapping_sub(0x10_0000) < 0x7fe0_0000 {
            return self.rsqrt_f64_step(v).to_bits();
        }
        match () {
            // DSETP.NEU x, 0 (f64 compares keep subnormals): a zero.
            _ if v == 0.0 => x & SIGN | 0x7ff0_0000_0000_0000,
            // DADD x, x quiets a signalling NaN and keeps the payload.
            _ if v.is_nan() => x | 0x0008_0000_0000_0000,
            _ if x & SIGN != 0 => 0xfff8_0000_0000_0000,
            _ if v.is_infinite() => 0,
            _ => (self.rsqrt_f64_step(v * 2f64.powi(54)) * 2f64.powi(27)).to_bits(),
        }
    }

    /// The fast path of `rsqrt_f64` on a positive normal `x`: `f64::mul_add` is the fused,
    /// once-rounded DFMA, `*` the DMUL.
    fn rsqrt_f64_step(&self, x: f64) -> f64 {
        let y0 = f64::from_bits(self.high_word(x.to_bits(), 0));
        let e = x.mul_add(-(y0 * y0), 1.0);
        e.mul_add(0.375, 0.5).mul_add(y0 * e, y0)
    }

    /// One f32 lane of the approximate form of this unit's function with `ftz`.
    fn f32_lane(&self, ftz: crate::isa::Ftz, x: u32, nan: u32) -> u32 {
        if ftz == crate::isa::Ftz::Flush {
            return self.run(x, nan);
        }
        if f32::from_bits(x).is_nan() {
            return nan;
        }
        let a = f32::from_bits(x & 0x7fff_ffff);
        // FSETP.GEU |x|, 2^-126 is false: a subnormal or a zero.
        let small = a < f32::MIN_POSITIVE;
        // (operand scale, result scale), both exact powers of two.
        let (pre, post) = match self.function {
            // FSETP.GT |x|, 2^126 as well; FSEL picks 2^24, 1/4 or 1, and one FMUL scales the
            // operand, one the result, by the same value (so a result among the subnormals is
            // rounded there by that FMUL).
            Function::Rcp if small => (16_777_216.0, 16_777_216.0),
            Function::Rcp if a > 2f32.powi(126) => (0.25, 0.25),
            // @!P0 FMUL x, 2^24; MUFU.SQRT; @!P0 FMUL r, 2^-12.
            Function::Sqrt if small => (16_777_216.0, 2f32.powi(-12)),
            // @!P0 FMUL x, 2^24; MUFU.RSQ; @!P0 FMUL r, 4096.
            Function::Rsqrt if small => (16_777_216.0, 4096.0),
            // @!P0 FMUL x, 2^24; MUFU.LG2; @!P0 FADD r, -24 (rounded).
            Function::Lg2 if small => {
                let r = f32::from_bits(self.run((f32::from_bits(x) * 16_777_216.0).to_bits(), nan));
                return if r.is_nan() { nan } else { (r - 24.0).to_bits() };
            }
            // FSETP.GEU x, -126; @!P0 FMUL x, 0.5; MUFU.EX2; @!P0 FMUL r, r, r: 2^x is the
            // square of 2^(x/2), which keeps the unit's result normal.
            Function::Ex2 if f32::from_bits(x) < -126.0 => {
                let r = f32::from_bits(self.run((f32::from_bits(x) * 0.5).to_bits(), nan));
                return (r * r).to_bits();
            }
            _ => (1.0, 1.0),
        };
        let r = f32::from_bits(self.run((f32::from_bits(x) * pre).to_bits(), nan));
        if r.is_nan() {
            return nan;
        }
        (r * post).to_bits()
    }
}

/// `FMUL.RZ x, 0.15915493667125701904` (1/(2 pi) rounded to f32, 0x3e22f983), which both
/// `sin.approx` and `cos.approx` (`.ftz` or not: the same SASS) run before MUFU.SIN/COS: the
/// operand in turns, rounded toward zero. The f64 product of two f32 values is exact.
fn turns(x: u32) -> u32 {
    let p = f64::from(f32::from_bits(x)) * f64::from(f32::from_bits(0x3e22_f983));
    let r = p as f32;
    if f64::from(r).abs() > p.abs() { r.to_bits() - 1 } else { r.to_bits() }
}

/// FMUL.FTZ on sm_90: subnormal operands are zeros, and a result is flushed to a zero of its
/// sign when it is tiny after rounding to 24 bits with an unbounded exponent, IEEE 754's
/// tininess (`div.approx.ftz.f32 0x00800001 0x3f800001 -> 0x00800000`: the exact product
/// 2^-126 (1 - 2^-46) rounds up to the smallest normal and stays; `mul.ftz.f32 0x00800000
/// 0xbf7fffff -> 0x80000000`: 2^-126 (1 - 2^-24) is tiny and goes), `tininess.rs`'s test.
fn mul_ftz(x: f32, y: f32) -> f32 {
    let z = |v: f32| if v != 0.0 && v.abs() < f32::MIN_POSITIVE { 0.0f32.copysign(v) } else { v };
    let (x, y) = (z(x), z(y));
    let r = x * y;
    let tiny = crate::profile::tininess::fma_tiny_unbounded(Scalar::F32, Rounding::Rn, x.to_bits() as u64, y.to_bits() as u64, 0);
    if r.abs() <= f32::MIN_POSITIVE && tiny == Some(true) {
        return 0.0f32.copysign(r);
    }
    r
}
