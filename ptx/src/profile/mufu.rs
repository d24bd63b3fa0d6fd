//! The H100's f32 function units (SASS `MUFU.*`) as data: a quadratic per segment of the
//! operand's leading significand bits, with fixed-point coefficients, summed as the unit's
//! datapath sums them (issue #15; docs/approx.md, "Models"). One evaluator, one table per unit
//! in the profile file (`approx_units`).
//!
//! The datapath (found by exact search against `dense/rcp.approx.f32.3f800000.8388608.dxz`,
//! `scripts/approx-unit-fit`): the significand's top `segment_bits` bits pick a segment
//! `[a, c1, c2]`, the remaining `low_bits` are `xl`, and the unit's significand is
//!
//! ```text
//! (a << a_shift) + bias + ((c1 * xl) << c1_shift) + c2 * sq(xl)   >> result_shift
//! ```
//!
//! where `sq(xl)` is `xl^2` with only the squarer's partial products at or above bit
//! `square_column` (a truncated squarer: `xl^2 = sum b_i 2^2i + sum_{i<j} b_i b_j 2^(i+j+1)`),
//! and the final shift truncates. It is the multifunction interpolator of Oberman and Siu
//! (ARITH 2005: table lookup, quadratic, truncated squarer, carry-save sum) with this GPU's
//! coefficients. The SASS that ptxas wraps around the units for each form is `sass`.

mod sass;

use crate::format::Scalar;
use serde::Deserialize;

/// The f32 infinity's bits.
const F32_INF: u32 = 0x7f80_0000;

/// Which function a unit computes: it fixes how the operand is reduced to a significand and how
/// the result's exponent is made (the coefficients only give the significand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Function {
    /// `MUFU.RCP`: 1/x. The 23-bit fraction of x -> the significand of 1/x in (0.5, 1).
    Rcp,
    /// `MUFU.RSQ`: 1/sqrt(x). The exponent's parity and the fraction (x reduced to [1, 4), 24
    /// bits) -> the significand of 1/sqrt(x) in (0.5, 1).
    Rsqrt,
    /// `MUFU.SQRT`: sqrt(x). As `Rsqrt` -> the significand of sqrt(x) in (1, 2).
    Sqrt,
    /// `MUFU.EX2`: 2^x. The 23-bit fraction of x's fixed-point reading -> the significand of
    /// 2^f in [1, 2).
    Ex2,
    /// `MUFU.LG2`: log2(x). The 23-bit fraction of x -> log2(1.f) as fixed point with 36
    /// fraction bits, to which the exponent is added before the result is made a float.
    Lg2,
    /// `MUFU.SIN` and `MUFU.COS` (one table): the operand in turns, its position u in its
    /// quarter turn as 23 fraction bits -> sin(pi/2 u) as fixed point with 37 fraction bits.
    Sin,
}

impl Function {
    /// Whether an approximate form runs on this unit (ptxas 13.5's SASS, docs/approx.md): the
    /// f32 form of the unit's function, `div.approx`/`div.full` (MUFU.RCP then FMUL), and the
    /// gross f64 forms (MUFU.RCP64H / RSQ64H: the same unit on the high word).
    pub fn computes(self, form: &crate::approx::Form) -> bool {
        use crate::approx::Func as F;
        match (self, form.func, form.scalar) {
            (Function::Rcp, F::Rcp | F::DivApprox | F::DivFull, Scalar::F32) => true,
            (Function::Rsqrt, F::Rsqrt, Scalar::F32) | (Function::Sqrt, F::Sqrt, Scalar::F32) | (Function::Ex2, F::Ex2, Scalar::F32) => true,
            (Function::Lg2, F::Lg2, Scalar::F32) | (Function::Sin, F::Sin | F::Cos, Scalar::F32) => true,
            (Function::Rcp, F::RcpGross, Scalar::F64) | (Function::Rsqrt, F::RsqrtGross, Scalar::F64) => true,
            // rsqrt.approx.f64: MUFU.RSQ64H, then one correction step in f64 (`rsqrt_f64`).
            (Function::Rsqrt, F::Rsqrt, Scalar::F64) => true,
            _ => false,
        }
    }

    /// How many bits of the reduced operand the datapath reads: the fraction, and for the
    /// square roots the exponent's parity above it.
    fn input_bits(self) -> u32 {
        match self {
            Function::Rcp | Function::Ex2 | Function::Lg2 | Function::Sin => 23,
            Function::Rsqrt | Function::Sqrt => 24,
        }
    }
}

/// A unit's table as the profile file writes it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UnitRow {
    /// Where the table comes from (for the reader of the file; required so that none is silent).
    #[allow(dead_code)]
    about: String,
    function: Function,
    segment_bits: u32,
    low_bits: u32,
    square_column: u32,
    a_shift: u32,
    c1_shift: u32,
    /// 0x-hex: the constant the datapath adds (its rounding and truncation compensation).
    bias: String,
    result_shift: u32,
    /// `[a, c1, c2]` per segment, in segment order.
    segments: Vec<[i64; 3]>,
}

/// A unit, parsed and checked, with its truncated squares precomputed.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    pub function: Function,
    low_bits: u32,
    a_shift: u32,
    c1_shift: u32,
    bias: i64,
    result_shift: u32,
    segments: Vec<[i64; 3]>,
    /// `sq(xl)` for every `xl` (2^low_bits entries).
    squares: Vec<i64>,
}

impl Unit {
    pub(super) fn parse(name: &str, r: &UnitRow) -> Result<Unit, String> {
        let bad = |what: &str| Err(format!("approx unit {name}: {what}"));
        if r.segment_bits + r.low_bits != r.function.input_bits() {
            return bad(&format!("segment_bits + low_bits must be {} (the bits of the operand the unit reads)", r.function.input_bits()));
        }
        if r.segments.len() != 1 << r.segment_bits {
            return bad(&format!("needs 2^segment_bits = {} segments, has {}", 1u32 << r.segment_bits, r.segments.len()));
        }
        // The sum must fit an i64 for every input: with xl < 2^17, a < 2^27, |c1| < 2^24 and
        // |c2| < 2^16, each term stays below 2^61 (bias < 2^60), the sum below 2^63.
        if r.low_bits > 17 || r.a_shift > 33 || r.c1_shift > 20 || r.result_shift >= 62 || r.square_column > 2 * r.low_bits {
            return bad("a width, shift or column is out of range (low_bits <= 17, a_shift <= 33, c1_shift <= 20, result_shift < 62, square_column <= 2 low_bits)");
        }
        if r.segments.iter().any(|s| !(0..1 << 27).contains(&s[0]) || s[1].abs() >= 1 << 24 || s[2].abs() >= 1 << 16) {
            return bad("a segment's coefficients are out of range (0 <= a < 2^27, |c1| < 2^24, |c2| < 2^16)");
        }
        let bias = r.bias.strip_prefix("0x").and_then(crate::value::parse_hex).filter(|b| *b < 1 << 60);
        let Some(bias) = bias else { return bad(&format!("bias '{}' is not 0x-hex below 2^60", r.bias)) };
        Ok(Unit {
            function: r.function,
            low_bits: r.low_bits,
            a_shift: r.a_shift,
            c1_shift: r.c1_shift,
            bias: bias as i64,
            result_shift: r.result_shift,
            segments: r.segments.clone(),
            squares: (0..1u64 << r.low_bits).map(|x| truncated_square(x, r.square_column) as i64).collect(),
        })
    }

    /// The datapath's result for the reduced operand `f`: a significand in [2^23, 2^24), in
    /// units of 2^-24 of the result's value in (0.5, 1) (rcp, rsqrt) or 2^-23 in [1, 2) (sqrt,
    /// ex2); for lg2, log2(1.f) in units of 2^-36.
    pub fn significand(&self, f: u32) -> u64 {
        let s = (f >> self.low_bits) as usize;
        let xl = f & ((1 << self.low_bits) - 1);
        let [a, c1, c2] = self.segments[s];
        let acc = (a << self.a_shift) + self.bias + ((c1 * xl as i64) << self.c1_shift) + c2 * self.squares[xl as usize];
        (acc >> self.result_shift) as u64
    }

    /// The unit on one f32 operand, as `MUFU` runs it: subnormal operands and results are
    /// flushed to zero of the same sign (the `.ftz` forms are the bare unit: ptxas 13.5 emits
    /// `MUFU.RCP` alone for `rcp.approx.ftz.f32`), NaN gives `nan`; special values as the
    /// spec's tables (9.7.3.13, 9.7.3.15-16) give them.
    pub fn run(&self, x: u32, nan: u32) -> u32 {
        let sign = x & 0x8000_0000;
        let exp = (x >> 23) & 0xff;
        let frac = x & 0x7f_ffff;
        if exp == 0xff && frac != 0 {
            return nan;
        }
        // A zero or a flushed subnormal is a zero of its sign.
        let zero = exp == 0;
        match self.function {
            Function::Ex2 => self.ex2(x),
            Function::Lg2 => self.lg2(x, nan),
            Function::Sin => self.sin(x, false, nan),
            Function::Rcp if exp == 0xff => sign, // 1/inf = 0
            Function::Rcp | Function::Rsqrt if zero => sign | F32_INF, // 1/+-0, rsqrt(+-0) = +-inf
            Function::Sqrt if zero => sign,                           // sqrt(+-0) = +-0
            Function::Rsqrt | Function::Sqrt if sign != 0 => nan,    // a negative operand, -inf included
            Function::Rsqrt if exp == 0xff => 0,
            Function::Sqrt if exp == 0xff => F32_INF,
            Function::Rcp | Function::Rsqrt | Function::Sqrt => {
                let (e, sig) = self.power(exp as i32 - 127, frac);
                // Only rcp reaches below the normals (x above 2^126): flushed.
                if e + 127 <= 0 { sign } else { sign | ((e + 127) as u32) << 23 | sig }
            }
        }
    }

    /// rcp, rsqrt or sqrt of 2^e * 1.f (`f` the 23-bit fraction): the result's unbiased
    /// exponent and 23-bit fraction. A power of two (rcp) or of four (the square roots) is
    /// exact; anything else is the datapath's significand, which lies one binade down for rcp
    /// and rsqrt (in (0.5, 1)). The square roots read (p, f), x / 2^2k in [1, 4), with
    /// e = 2k + p; their result is 2^-k or 2^k times the datapath's value.
    fn power(&self, e: i32, frac: u32) -> (i32, u32) {
        let p = (e.rem_euclid(2) as u32) << 23;
        let (k, f) = match self.function {
            Function::Rcp => (-e, frac),
            Function::Rsqrt => (-e.div_euclid(2), p | frac),
            _ => (e.div_euclid(2), p | frac),
        };
        if f == 0 {
            return (k, 0);
        }
        let sig = self.significand(f) as u32 - (1 << 23);
        (if self.function == Function::Sqrt { k } else { k - 1 }, sig)
    }
}

impl Unit {
    /// `MUFU.EX2` on a non-NaN operand. It reads x as fixed point with 23 fraction bits, the
    /// magnitude truncated toward zero (`dense/ex2.approx.f32.3f000000`: inputs 2k and 2k+1
    /// give one output); a negative reading is the magnitude's one's complement (2^23 - 1 - m:
    /// the fit of `dense/ex2.approx.f32.bf000000` fails with the two's complement and holds
    /// with this), except that an integer (a zero fraction) is exact (ex2.approx.f32 -1.0 ->
    /// 0.5 in cases.txt.gz). Results past the largest exponent are infinity, below the
    /// smallest normal zero.
    fn ex2(&self, x: u32) -> u32 {
        let v = f32::from_bits(x);
        if v >= 128.0 {
            return F32_INF;
        }
        if v < -256.0 {
            return 0;
        }
        // |x| < 2^9: the reading fits 32 bits, and a subnormal (flushed) x reads as 0.
        let m = if (x >> 23) & 0xff == 0 { 0 } else { (v.abs() as f64 * 8_388_608.0) as i64 };
        let (i, f) = match (v < 0.0, m & 0x7f_ffff) {
            (false, f) => (m >> 23, f),
            (true, 0) => (-(m >> 23), 0),
            (true, f) => (-(m >> 23) - 1, 0x7f_ffff - f),
        };
        let field = 127 + i;
        if field >= 255 {
            return F32_INF;
        }
        if field <= 0 {
            return 0;
        }
        let sig = self.significand(f as u32);
        // 2^f in [1, 2): a significand of 2^24 would be the next binade.
        if sig >= 1 << 24 {
            return if field + 1 >= 255 { F32_INF } else { ((field + 1) as u32) << 23 };
        }
        (field as u32) << 23 | (sig as u32 - (1 << 23))
    }
}

impl Unit {
    /// `MUFU.LG2` on a non-NaN operand: the exponent e plus the datapath's log2(1.f), as fixed
    /// point with 36 fraction bits (the outputs near 1.0 sit on that grid:
    /// `dense/lg2.approx.f32.3f000000`), made a float by truncation to 24 bits; a negative sum
    /// is made a magnitude by one's complement, as the ex2 unit reads negative operands (the
    /// two's complement misses 18,245 of [0.5, 1)'s 8,388,608 outputs, this none). 1.0 gives
    /// exactly 0 (the datapath alone would give 2^-23.2).
    fn lg2(&self, x: u32, nan: u32) -> u32 {
        let (sign, exp, frac) = (x & 0x8000_0000, (x >> 23) & 0xff, x & 0x7f_ffff);
        match (exp, sign) {
            (0, _) => return 0xff80_0000, // log2(+-0) = -inf, a subnormal flushed
            (_, s) if s != 0 => return nan,
            (0xff, _) => return F32_INF,
            (127, _) if frac == 0 => return 0,
            _ => {}
        }
        let total = ((exp as i64 - 127) << 36) + self.significand(frac) as i64;
        let (neg, mag) = if total < 0 { (0x8000_0000, (-total - 1) as u64) } else { (0, total as u64) };
        if mag == 0 {
            return neg;
        }
        let n = 64 - mag.leading_zeros(); // at most 44 bits: |e| <= 127
        let sig = if n > 24 { mag >> (n - 24) } else { mag << (24 - n) };
        neg | ((n as i32 - 1 - 36 + 127) as u32) << 23 | (sig as u32 & 0x7f_ffff)
    }
}

impl Unit {
    /// `MUFU.SIN` (`cos` false) or `MUFU.COS` on an operand in turns. The unit reads |x| as
    /// fixed point with 25 fraction bits, truncated (`dense/sin.approx.f32.3f800000`: the
    /// outputs change only where that reading does), and keeps those 25 bits (whole turns
    /// drop out): the quadrant q (top 2) and the position u in it (23 bits); COS adds a
    /// quarter turn first. One table serves every quadrant: sin(pi/2 u) for even q, and for
    /// odd q the table at the one's complement 2^23 - 1 - u (all 3,600,420 recorded inputs of
    /// the second quadrant agree with the first's at that index, none at 2^23 - u); q >= 2
    /// negates, and so does a negative operand of SIN (sign and magnitude: sin.approx.f32 of
    /// -3.3e-7 is -sin(pi/2 2^-23)). The datapath's value has 37 fraction bits (every output
    /// of the dense dumps lies on that grid) and is made a float by truncation to 24 bits.
    /// A zero value keeps the sign (`cos.approx.f32 0x3fc90fdc` -> -0); infinity gives NaN.
    fn sin(&self, x: u32, cos: bool, nan: u32) -> u32 {
        let exp = (x >> 23) & 0xff;
        if exp == 0xff {
            return nan;
        }
        // |x| 2^25 modulo 2^25, from x = m 2^(exp - 150); a subnormal operand reads as 0.
        let m = u64::from(x & 0x7f_ffff | 0x80_0000);
        let shift = exp as i32 - 125;
        let t = match shift {
            _ if exp == 0 => 0,
            25.. => 0,
            0.. => (m << shift) as u32 & 0x1ff_ffff,
            -23..=-1 => (m >> -shift) as u32,
            _ => 0,
        };
        let t = if cos { (t + (1 << 23)) & 0x1ff_ffff } else { t };
        let (q, u) = (t >> 23, t & 0x7f_ffff);
        let index = if q % 2 == 1 { 0x7f_ffff - u } else { u };
        let negative = (q >= 2) ^ (!cos && x >> 31 == 1);
        let sign = if negative { 0x8000_0000 } else { 0 };
        let v = self.significand(index);
        if v == 0 {
            return sign;
        }
        // v < 2^38: the value v 2^-37 is at most 1 (a 1.0 output is recorded).
        let n = 64 - v.leading_zeros();
        let sig = if n > 24 { v >> (n - 24) } else { v << (24 - n) };
        sign | ((n as i32 - 1 - 37 + 127) as u32) << 23 | (sig as u32 & 0x7f_ffff)
    }
}

/// `x^2` from the squarer's partial products of weight at least `2^column` only.
fn truncated_square(x: u64, column: u32) -> u64 {
    let bits: Vec<u32> = (0..64).filter(|i| x >> i & 1 == 1).collect();
    let mut sum = 0u64;
    for (k, &i) in bits.iter().enumerate() {
        if 2 * i >= column {
            sum += 1 << (2 * i);
        }
        for &j in &bits[k + 1..] {
            if i + j + 1 >= column {
                sum += 1 << (i + j + 1);
            }
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_square_keeps_only_the_partial_products_at_or_above_the_column() {
        for x in [0u64, 1, 3, 0xffff, 0x8001, 12345] {
            assert_eq!(truncated_square(x, 0), x * x, "{x}");
        }
        // 0b11: 1 + 4 + 2 * 2 (the cross product b0 b1 at column 2).
        assert_eq!(truncated_square(3, 1), 8);
        assert_eq!(truncated_square(3, 3), 0);
        // 0xffff squared with columns below 17 dropped is below the full square by less than
        // 17 columns' worth of partial products.
        let t = truncated_square(0xffff, 17);
        assert!(t <= 0xffff * 0xffff && 0xffff * 0xffff - t < 17 << 17, "{t:#x}");
        assert_eq!(t % (1 << 17), 0);
    }

    #[test]
    fn a_unit_table_of_the_wrong_size_or_shape_is_refused_with_its_name() {
        let row = |segments: Vec<[i64; 3]>, low_bits: u32| UnitRow {
            about: "test".into(),
            function: Function::Ex2,
            segment_bits: 6,
            low_bits,
            square_column: 0,
            a_shift: 0,
            c1_shift: 0,
            bias: "0x0".into(),
            result_shift: 0,
            segments,
        };
        assert!(Unit::parse("u", &row(vec![[0, 0, 0]; 64], 17)).is_ok());
        let e = Unit::parse("u", &row(vec![[0, 0, 0]; 65], 17)).unwrap_err();
        assert!(e.contains("approx unit u") && e.contains("64 segments, has 65"), "{e}");
        assert!(Unit::parse("u", &row(vec![[0, 0, 0]; 64], 16)).unwrap_err().contains("23"));
        assert!(Unit::parse("u", &row(vec![[-1, 0, 0]; 64], 17)).unwrap_err().contains("out of range"));
    }
}
