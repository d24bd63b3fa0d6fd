//! How complicated an input value looks, and simpler candidates for it: the minimizer's
//! measure of values (a float lane's sign, significant bits and distance from 1; an integer's
//! sign, length and significant bits).

use ptx::integer::IntType;
use ptx::isa::Type;
use ptx::program::ValType;
use ptx::Scalar;

/// The complexity of a register value of an input type (floats: the sum over lanes).
pub fn register_complexity(ty: ValType, v: u64) -> u64 {
    match ty {
        ValType::Int(t) => int_complexity(t, v),
        ValType::Float(f) => lanes(f, v).map(|l| value_complexity(f.scalar(), l)).sum(),
        // Never an input; counted by its bits.
        _ => v.count_ones() as u64,
    }
}

/// Strictly simpler register values for an input of type `ty` (a float one lane at a time),
/// simplest first.
pub fn simpler_registers(ty: ValType, v: u64) -> Vec<u64> {
    match ty {
        ValType::Int(t) => simpler_ints(t, v),
        ValType::Float(f) => {
            let s = f.scalar();
            let w = s.bits();
            let mut out = Vec::new();
            for (lane, l) in lanes(f, v).enumerate() {
                let shift = lane as u32 * w;
                out.extend(simpler_values(s, l).into_iter().map(|cand| (v & !(s.mask() << shift)) | (cand << shift)));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// How complicated an integer looks (0 for 0): its sign, its length in bits and its set
/// bits, so that 2^24 is simpler than 2^24 + 1, both simpler than -(2^24 + 1), and clearing
/// any bit simplifies.
pub fn int_complexity(t: IntType, v: u64) -> u64 {
    let x = t.value(v);
    let m = x.unsigned_abs();
    if m == 0 {
        return 0;
    }
    (x < 0) as u64 + (128 - m.leading_zeros()) as u64 + m.count_ones() as u64
}

/// Strictly simpler values of `t` for `v`, simplest first, each as its register holds it.
pub fn simpler_ints(t: IntType, v: u64) -> Vec<u64> {
    let x = t.value(v);
    let m = x.unsigned_abs() as i128;
    let sign = if x < 0 { -1 } else { 1 };
    let mut c: Vec<i128> = vec![0, 1, -1, m, x / 2];
    // The top bits only, as many as 1, 2, 4, ... of them; and each set bit below the top
    // one cleared alone (a rounding failure needs the top bit and the few low bits past the
    // float's precision: 0x013d8443 steps down to 0x01000003, 2^24 + 3).
    if m != 0 {
        let len = 128 - m.leading_zeros();
        for keep in [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48] {
            if keep < len {
                c.push(sign * (m & !((1i128 << (len - keep)) - 1)));
            }
        }
        c.extend((0..len - 1).filter(|&b| m >> b & 1 == 1).map(|b| sign * (m & !(1i128 << b))));
    }
    let here = int_complexity(t, v);
    let mut c: Vec<u64> = c
        .into_iter()
        .filter(|y| (t.min()..=t.max()).contains(y))
        .map(|y| t.extend(y as u64, t.reg_bits()))
        .filter(|&y| int_complexity(t, y) < here)
        .collect();
    c.sort_by_key(|&y| (int_complexity(t, y), y));
    c.dedup();
    c
}

/// The lanes of a register value, lane 0 first.
pub fn lanes(ty: Type, v: u64) -> impl Iterator<Item = u64> {
    let s = ty.scalar();
    let w = s.bits();
    (0..ty.lanes()).map(move |l| (v >> (l * w)) & s.mask())
}

/// Exponent and fraction widths of a lane format.
pub(crate) fn fields(s: Scalar) -> (u32, u32) {
    match s {
        Scalar::F16 => (5, 10),
        Scalar::BF16 => (8, 7),
        Scalar::F32 => (8, 23),
        Scalar::F64 => (11, 52),
    }
}

/// How complicated a value looks (0 for +0): the sign, the significant fraction bits, and how
/// far the exponent is from 1's; infinities and the canonical NaN are cheap, other NaNs pay
/// for their payload.
pub fn value_complexity(s: Scalar, v: u64) -> u64 {
    let (eb, fb) = fields(s);
    let sign = (v >> (eb + fb)) & 1;
    let exp = (v >> fb) & ((1 << eb) - 1);
    let frac = v & ((1u64 << fb) - 1);
    let sig_bits = if frac == 0 { 0 } else { (fb - frac.trailing_zeros()) as u64 };
    let bias = (1u64 << (eb - 1)) - 1;
    let all_ones = (1u64 << eb) - 1;
    sign + match exp {
        0 if frac == 0 => 0,
        // Subnormals: as far from 1 as it gets, plus their bits.
        0 => 2 + eb as u64 + sig_bits,
        e if e == all_ones && frac == 0 => 2,
        e if e == all_ones => {
            let canonical = frac == (1u64 << fb) - 1 && sign == 0;
            if canonical {
                3
            } else {
                4 + sig_bits
            }
        }
        e => 1 + (64 - e.abs_diff(bias).leading_zeros()) as u64 + sig_bits,
    }
}

/// Candidate replacements for one lane value, simplest first, all strictly simpler.
pub fn simpler_values(s: Scalar, v: u64) -> Vec<u64> {
    let (eb, fb) = fields(s);
    let sign_bit = 1u64 << (eb + fb);
    let frac_mask = (1u64 << fb) - 1;
    let exp_mask = ((1u64 << eb) - 1) << fb;
    let bias = (1u64 << (eb - 1)) - 1;
    let one = bias << fb;
    let sign = v & sign_bit;
    let exp = (v & exp_mask) >> fb;
    let frac = v & frac_mask;
    let mut c = vec![
        0,
        sign_bit,
        one,
        one | sign_bit,
        (bias + 1) << fb,
        (bias - 1) << fb,
        exp_mask,
        exp_mask | sign_bit,
        exp_mask | frac_mask, // canonical NaN
        1u64 << fb,           // smallest normal
        exp_mask - 1,         // largest finite
        1,                    // smallest subnormal
        frac_mask,            // largest subnormal
        v & !sign_bit,
    ];
    // Fewer significant fraction bits (a NaN keeps a non-zero fraction).
    if frac != 0 {
        let sig = fb - frac.trailing_zeros();
        for keep in [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40] {
            if keep < sig {
                let f = frac & !((1u64 << (fb - keep)) - 1);
                if f != 0 || exp != (1 << eb) - 1 {
                    c.push(sign | (exp << fb) | f);
                }
            }
        }
    }
    // The exponent toward 1's, keeping a normal normal.
    if exp != 0 && exp != (1 << eb) - 1 && exp != bias {
        c.push(sign | (bias << fb) | frac);
        let half = (exp + bias) / 2;
        c.push(sign | (half << fb) | frac);
    }
    let here = value_complexity(s, v);
    let mut c: Vec<u64> = c.into_iter().filter(|&x| x != v && value_complexity(s, x) < here).collect();
    c.sort_by_key(|&x| value_complexity(s, x));
    c.dedup();
    c
}


#[cfg(test)]
mod tests {
    use super::*;

    const S32: IntType = IntType { signed: true, bits: 32 };
    const S8: IntType = IntType { signed: true, bits: 8 };

    #[test]
    fn simpler_integers_are_strictly_simpler_in_range_and_sorted() {
        for &(t, v) in &[(S32, (1u64 << 24) + 1), (S32, 0xff00_0001), (S8, 0xff80), (S8, 0x7f), (S32, 0x7fff_ffff)] {
            let here = int_complexity(t, v);
            let c = simpler_ints(t, v);
            assert!(!c.is_empty(), "{v:#x}");
            assert!(c.iter().all(|&y| int_complexity(t, y) < here && t.extend(y, t.reg_bits()) == y), "{v:#x}: {c:x?}");
            assert!(c.windows(2).all(|w| int_complexity(t, w[0]) <= int_complexity(t, w[1])));
        }
        assert_eq!(simpler_ints(S32, (1 << 24) + 1)[..2], [0, 1]);
        assert!(simpler_ints(S32, (1 << 24) + 1).contains(&(1 << 24)), "the top bit alone");
        assert!(simpler_ints(S32, 0).is_empty(), "0 is the simplest integer");
        assert!(simpler_ints(S32, 0x013d_8443).contains(&0x013d_8441), "bit 1 cleared alone");
        assert!(int_complexity(S32, 1 << 24) < int_complexity(S32, (1 << 24) + 1));
        assert!(int_complexity(S32, (1 << 24) + 1) < int_complexity(S32, (-(1i64 << 24) - 1) as u64));
    }
}
