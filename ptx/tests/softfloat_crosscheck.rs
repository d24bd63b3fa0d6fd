//! Cross-checks of `ptx::softfloat`: the dispatched fast paths against the integer reference
//! (`softfloat::exact`) on 10^6 random, special-biased operand tuples per op, format and mode;
//! exhaustive f16/bf16 sqrt; and both against `rustc_apfloat` (an independent software
//! float) on a smaller sample. NaN results are compared by NaN-ness.

use ptx::softfloat::{self, exact};
use ptx::{Format, Rounding, BF16, F16, F32, F64};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, Round};

const CASES: usize = 1_000_000;

/// SplitMix64: fast, deterministic, good enough to spread operands.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn sign<F: Format>(&mut self) -> u64 {
        self.next() & F::SIGN_MASK
    }
}

/// Values every operation must get right.
fn specials<F: Format>() -> [u64; 12] {
    [
        0,
        F::INF,
        F::CANONICAL_NAN,
        F::EXP_MASK | 1, // signalling NaN
        F::ONE,
        1,               // min subnormal
        F::MIN_NORMAL - 1, // max subnormal
        F::MIN_NORMAL,
        F::MAX_FINITE,
        F::ONE + 1,
        F::ONE - 1,
        F::ONE << 1,
    ]
}

/// `x` moved by a few ulps (in bits, either way), staying a finite number of the same sign.
fn jiggle<F: Format>(g: &mut Gen, x: u64) -> u64 {
    let mag = F::abs(x) as i128 + g.below(9) as i128 - 4;
    let mag = mag.clamp(0, F::MAX_FINITE as i128) as u64;
    (x & F::SIGN_MASK) | mag
}

/// One operand, biased toward the hard regions: specials, subnormals, the edges of the
/// exponent range, and significands with few bits (exact results, ties).
fn operand<F: Format>(g: &mut Gen) -> u64 {
    let frac = g.next() & F::FRAC_MASK;
    let field = |e: u64| (e << F::FRAC_BITS) & F::EXP_MASK;
    let max_field = F::EXP_MASK >> F::FRAC_BITS;
    let x = match g.below(8) {
        0 | 1 => g.next() & F::MASK,
        2 => {
            let s = specials::<F>();
            let x = s[g.below(s.len() as u64) as usize];
            if g.below(2) == 0 && !F::is_nan(x) && !F::is_inf(x) { jiggle::<F>(g, x) } else { x }
        }
        3 => frac,                                       // subnormal (or zero)
        4 => field(max_field - 1 - g.below(3)) | frac,   // near overflow
        5 => field(1 + g.below(3)) | frac,               // near underflow
        6 => field(1 + g.below(max_field - 1)) | (frac & !(F::FRAC_MASK >> g.below(5))), // sparse
        _ => field(F::BIAS as u64 - 4 + g.below(9)) | frac, // around 1
    };
    x | g.sign::<F>()
}

/// A partner for `a` in a binary op: independent, or close to +-a (cancellation, ties),
/// or `a` scaled by a nearby power of two.
fn partner<F: Format>(g: &mut Gen, a: u64) -> u64 {
    if F::is_nan(a) || F::is_inf(a) || g.below(2) == 0 {
        return operand::<F>(g);
    }
    let b = match g.below(3) {
        0 => jiggle::<F>(g, a),
        1 => {
            // Same significand, exponent shifted by up to PREC + 3 binades.
            let d = g.below(2 * F::PREC as u64 + 7) as i64 - (F::PREC as i64 + 3);
            let f = F::exp_field(a) as i64 + d;
            if f <= 0 || f >= (F::EXP_MASK >> F::FRAC_BITS) as i64 {
                return operand::<F>(g);
            }
            (a & !F::EXP_MASK) | ((f as u64) << F::FRAC_BITS)
        }
        _ => a,
    };
    b ^ g.sign::<F>()
}

type Unary = fn(u64, Rounding) -> u64;
type Binary = fn(u64, u64, Rounding) -> u64;
type Ternary = fn(u64, u64, u64, Rounding) -> u64;

struct Mismatches {
    list: Vec<String>,
    checked: usize,
}

impl Mismatches {
    fn check<F: Format>(&mut self, what: &str, ops: &[u64], mode: Rounding, fast: u64, reference: u64) {
        self.checked += 1;
        let same = if F::is_nan(reference) { F::is_nan(fast) } else { fast == reference };
        if !same && self.list.len() < 30 {
            let ops: Vec<String> = ops.iter().map(|x| format!("{x:#x}")).collect();
            self.list.push(format!(
                "{} {what}.{}({}): {fast:#x} vs reference {reference:#x}",
                F::NAME,
                mode.name(),
                ops.join(", ")
            ));
        }
    }
    fn assert_none(self, what: &str) {
        println!("{what}: {} cases checked", self.checked);
        assert!(self.list.is_empty(), "{what}: mismatches:\n{}", self.list.join("\n"));
    }
}

fn fast_vs_integer<F: Format>(seed: u64) {
    let mut g = Gen(seed);
    let mut m = Mismatches { list: Vec::new(), checked: 0 };
    let binary: [(&str, Binary, Binary); 5] = [
        ("add", softfloat::add::<F>, exact::add::<F>),
        ("sub", softfloat::sub::<F>, exact::sub::<F>),
        ("mul", softfloat::mul::<F>, exact::mul::<F>),
        ("div", softfloat::div::<F>, exact::div::<F>),
        ("div_near_exact", softfloat::div::<F>, exact::div::<F>),
    ];
    for mode in Rounding::ALL {
        for (name, fast, reference) in binary {
            for _ in 0..CASES {
                let (a, b) = if name == "div_near_exact" {
                    // a = RN(b * q) +- ulps with a short q: exact quotients and near-ties.
                    let b = operand::<F>(&mut g);
                    let q = F::ONE + ((g.next() & F::FRAC_MASK) & !(F::FRAC_MASK >> 6));
                    let q = (q + (g.below(20) << F::FRAC_BITS)) ^ g.sign::<F>();
                    (jiggle::<F>(&mut g, exact::mul::<F>(b, q, Rounding::Rn)), b)
                } else {
                    let a = operand::<F>(&mut g);
                    (a, partner::<F>(&mut g, a))
                };
                m.check::<F>(name, &[a, b], mode, fast(a, b, mode), reference(a, b, mode));
            }
        }
        let (fast, reference): (Ternary, Ternary) = (softfloat::fma::<F>, exact::fma::<F>);
        for _ in 0..CASES {
            let a = operand::<F>(&mut g);
            let b = partner::<F>(&mut g, a);
            let c = match g.below(3) {
                // c close to -a*b: massive cancellation, exact zeros.
                0 => jiggle::<F>(&mut g, exact::mul::<F>(a, b, Rounding::Rn)) ^ F::SIGN_MASK,
                1 => partner::<F>(&mut g, exact::mul::<F>(a, b, Rounding::Rn)),
                _ => operand::<F>(&mut g),
            };
            m.check::<F>("fma", &[a, b, c], mode, fast(a, b, c, mode), reference(a, b, c, mode));
        }
        let (fast, reference): (Unary, Unary) = (softfloat::sqrt::<F>, exact::sqrt::<F>);
        for i in 0..CASES {
            let a = if i % 2 == 0 {
                operand::<F>(&mut g)
            } else {
                // Near a square: exact roots and near-midpoints.
                let s = F::abs(operand::<F>(&mut g));
                jiggle::<F>(&mut g, exact::mul::<F>(s, s, Rounding::Rn))
            };
            m.check::<F>("sqrt", &[a], mode, fast(a, mode), reference(a, mode));
        }
    }
    m.assert_none(&format!("{} fast paths vs integer path", F::NAME));
}

#[test]
fn f16_fast_paths_match_integer_path() {
    fast_vs_integer::<F16>(1);
}

#[test]
fn bf16_fast_paths_match_integer_path() {
    fast_vs_integer::<BF16>(2);
}

#[test]
fn f32_fast_paths_match_integer_path() {
    fast_vs_integer::<F32>(3);
}

#[test]
fn f64_fast_paths_match_integer_path() {
    fast_vs_integer::<F64>(4);
}

/// Every 16-bit pattern through sqrt, fast vs integer, all modes.
fn sqrt_exhaustive<F: Format>() {
    let mut m = Mismatches { list: Vec::new(), checked: 0 };
    for mode in Rounding::ALL {
        for a in 0..=0xffffu64 {
            m.check::<F>("sqrt", &[a], mode, softfloat::sqrt::<F>(a, mode), exact::sqrt::<F>(a, mode));
        }
    }
    m.assert_none(&format!("{} sqrt exhaustive", F::NAME));
}

#[test]
fn f16_and_bf16_sqrt_match_exhaustively() {
    sqrt_exhaustive::<F16>();
    sqrt_exhaustive::<BF16>();
}

fn apfloat_round(mode: Rounding) -> Round {
    match mode {
        Rounding::Rn => Round::NearestTiesToEven,
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
    }
}

/// Both our paths against rustc_apfloat's add, sub, mul, fma, div (it has no sqrt).
fn against_apfloat<F: Format, A: Float>(seed: u64, cases: usize) {
    let mut g = Gen(seed);
    let mut m = Mismatches { list: Vec::new(), checked: 0 };
    let ap = |x: u64| A::from_bits(x as u128);
    for mode in Rounding::ALL {
        let r = apfloat_round(mode);
        for _ in 0..cases {
            let a = operand::<F>(&mut g);
            let b = partner::<F>(&mut g, a);
            let c = if g.below(2) == 0 {
                jiggle::<F>(&mut g, exact::mul::<F>(a, b, Rounding::Rn)) ^ F::SIGN_MASK
            } else {
                operand::<F>(&mut g)
            };
            let (x, y, z) = (ap(a), ap(b), ap(c));
            let want = [
                ("add", x.add_r(y, r).value.to_bits() as u64, softfloat::add::<F>(a, b, mode), exact::add::<F>(a, b, mode)),
                ("sub", x.sub_r(y, r).value.to_bits() as u64, softfloat::sub::<F>(a, b, mode), exact::sub::<F>(a, b, mode)),
                ("mul", x.mul_r(y, r).value.to_bits() as u64, softfloat::mul::<F>(a, b, mode), exact::mul::<F>(a, b, mode)),
                ("div", x.div_r(y, r).value.to_bits() as u64, softfloat::div::<F>(a, b, mode), exact::div::<F>(a, b, mode)),
            ];
            for (name, reference, fast, int) in want {
                m.check::<F>(name, &[a, b], mode, fast, reference);
                m.check::<F>(&format!("{name}(integer)"), &[a, b], mode, int, reference);
            }
            let reference = x.mul_add_r(y, z, r).value.to_bits() as u64;
            m.check::<F>("fma", &[a, b, c], mode, softfloat::fma::<F>(a, b, c, mode), reference);
            m.check::<F>("fma(integer)", &[a, b, c], mode, exact::fma::<F>(a, b, c, mode), reference);
        }
    }
    m.assert_none(&format!("{} against rustc_apfloat", F::NAME));
}

#[test]
fn all_formats_match_rustc_apfloat() {
    against_apfloat::<F16, Half>(11, 50_000);
    against_apfloat::<BF16, BFloat>(12, 50_000);
    against_apfloat::<F32, Single>(13, 50_000);
    against_apfloat::<F64, Double>(14, 50_000);
}
