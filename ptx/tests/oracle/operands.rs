//! Deterministic operand generation: about half special values (zeros, infinities, NaNs with
//! payloads, subnormal and normal extremes, 1.0 and its neighbours, .sat bounds), half random
//! bits, then, for a third of the cases, a relation between the operands that steers the
//! exact result to a hard spot: cancellation, halfway points, overflow and underflow
//! boundaries, results just below the smallest normal, exact squares.

use ptx::{Format, Rounding};

use crate::apf::{ieee, IeeeOp, OracleFormat};

/// xoshiro256** seeded by splitmix64: fast, and the same on every machine.
pub struct Rng([u64; 4]);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed;
        let mut next = || {
            z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut x = z;
            x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            x ^ (x >> 31)
        };
        Rng([next(), next(), next(), next()])
    }

    pub fn next(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// Uniform in `0..n` (n > 0; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }

    pub fn sign<F: Format>(&mut self) -> u64 {
        if self.one_in(2) {
            F::SIGN_MASK
        } else {
            0
        }
    }

    /// A normal number with unbiased exponent in `lo..=hi` (clamped to the normal range) and
    /// a random fraction.
    pub fn normal<F: Format>(&mut self, lo: i64, hi: i64) -> u64 {
        let e = self.range(lo, hi);
        let frac = self.fraction::<F>();
        normal_with::<F>(e, frac)
    }

    /// A random fraction field, often with structure (all zeros, all ones, one bit).
    fn fraction<F: Format>(&mut self) -> u64 {
        match self.below(6) {
            0 => 0,
            1 => F::FRAC_MASK,
            2 => 1,
            3 => F::FRAC_MASK - self.below(4),
            _ => self.next() & F::FRAC_MASK,
        }
    }

    /// One special or biased value (sign random where it makes sense).
    pub fn special<F: Format>(&mut self) -> u64 {
        let payload = (self.next() & F::FRAC_MASK) | 1;
        let v = match self.below(24) {
            0 => 0,
            1 => F::INF,
            2 => F::CANONICAL_NAN,
            3 => F::INF | F::QUIET_BIT,                          // the default quiet NaN
            4 => F::INF | F::QUIET_BIT | payload,                // quiet NaN with a payload
            5 => F::INF | (payload & !F::QUIET_BIT).max(1),      // signalling NaN with a payload
            6 => 1,                                              // smallest subnormal
            7 => F::MIN_NORMAL - 1,                              // largest subnormal
            8 => 1 + self.below(F::MIN_NORMAL - 1),              // some subnormal
            9 => F::MIN_NORMAL,
            10 => F::MIN_NORMAL + self.below(3),
            11 => F::MAX_FINITE - self.below(3),
            12 => F::ONE,
            13 => F::ONE + 1,                                    // 1 + ulp
            14 => F::ONE - 1,                                    // 1 - ulp/2 (largest below 1)
            15 => F::ONE - (1 << F::FRAC_BITS),                  // 0.5
            16 => F::ONE + (1 << F::FRAC_BITS),                  // 2.0
            17 => F::ONE | (1 << (F::FRAC_BITS - 1)),             // 1.5
            18 => self.normal::<F>(-3, 3),           // near 1
            19 => self.normal::<F>(F::EMAX as i64 - 3, F::EMAX as i64), // near overflow
            20 => self.normal::<F>(F::EMIN as i64, F::EMIN as i64 + 3), // near underflow
            21 => self.normal::<F>(F::EMIN as i64, F::EMAX as i64),
            22 => F::ONE - 1 - self.below(4),                    // just below 1 (.sat bound)
            _ => self.below(F::MIN_NORMAL >> (F::FRAC_BITS / 2)).max(1), // tiny subnormal
        };
        v | self.sign::<F>()
    }

    /// Half special values, half uniformly random bit patterns.
    pub fn value<F: Format>(&mut self) -> u64 {
        if self.one_in(2) {
            self.special::<F>()
        } else {
            self.next() & F::MASK
        }
    }

    /// Fill `out` with operands for an operation of the given shape.
    pub fn operands<F: OracleFormat>(&mut self, shape: Shape, out: &mut [u64]) {
        for v in out.iter_mut() {
            *v = self.value::<F>();
        }
        if shape == Shape::Root && !self.one_in(4) {
            // Half the operands of sqrt would be negative (NaN results): keep a quarter.
            out[0] &= !F::SIGN_MASK;
        }
        if self.below(3) == 0 {
            self.relate::<F>(shape, out);
        }
    }

    fn relate<F: OracleFormat>(&mut self, shape: Shape, v: &mut [u64]) {
        let emax = F::EMAX as i64;
        let emin = F::EMIN as i64;
        let prec = F::PREC as i64;
        let n = v.len();
        match shape {
            Shape::Sum => match self.below(5) {
                // Exact cancellation for add (b = -a) or for sub (b = a).
                0 => v[1] = v[0] ^ self.sign::<F>(),
                // Near cancellation: b = -(a +- 1 ulp).
                1 => v[1] = (v[0] ^ F::SIGN_MASK).wrapping_add(self.pick(&[1, F::MASK])) & F::MASK,
                // b about half an ulp of a: halfway points (power-of-two b) and sticky cases.
                2 => {
                    let ea = exponent::<F>(v[0]);
                    let f = if self.one_in(2) { 0 } else { self.fraction::<F>() };
                    v[1] = encode::<F>(ea - prec + self.range(-2, 2), f) | self.sign::<F>();
                }
                // Both near overflow: overflow (same signs in add) or large cancellation.
                3 => {
                    v[0] = self.normal::<F>(emax - 1, emax) | self.sign::<F>();
                    v[1] = if self.one_in(2) { F::MAX_FINITE } else { self.normal::<F>(emax - 3, emax) } | self.sign::<F>();
                }
                // Around the smallest normal: results just below it, or subnormal.
                _ => {
                    v[0] = (F::MIN_NORMAL + self.below(4)) | self.sign::<F>();
                    v[1] = (1 + self.below(F::MIN_NORMAL >> 2)) | self.sign::<F>();
                }
            },
            Shape::Product | Shape::MulAdd => {
                self.product_pair::<F>(v);
                if shape == Shape::MulAdd {
                    let p = ieee::<F>(IeeeOp::Mul, &v[..2], Rounding::Rn);
                    v[2] = match self.below(4) {
                        // Catastrophic cancellation of the rounded product.
                        0 => p ^ F::SIGN_MASK,
                        // c about half an ulp of the product.
                        1 => {
                            let f = if self.one_in(2) { 0 } else { self.fraction::<F>() };
                            encode::<F>(exponent::<F>(p) - prec + self.range(-2, 1), f) | self.sign::<F>()
                        }
                        // Bounds of .sat and .relu.
                        2 => self.pick(&[0, F::SIGN_MASK, F::ONE, F::ONE | F::SIGN_MASK]),
                        _ => v[2],
                    };
                }
            }
            Shape::Quotient => match self.below(4) {
                0 => v[1] = v[0] ^ self.sign::<F>(),
                1 => v[0] = ieee::<F>(IeeeOp::Mul, &[v[1], encode::<F>(self.range(0, 4), self.next() & 7 << (F::FRAC_BITS - 3))], Rounding::Rn),
                2 => {
                    let ea = self.range(emin, emax);
                    let target = if self.one_in(2) { emax + self.range(-1, 1) } else { emin - self.range(-1, prec + 1) };
                    v[0] = self.normal::<F>(ea, ea) | self.sign::<F>();
                    v[1] = encode::<F>(ea - target, self.fraction::<F>()) | self.sign::<F>();
                }
                _ => v[1] = encode::<F>(self.range(emin - prec, emax), 0) | self.sign::<F>(),
            },
            Shape::Reciprocal => {
                v[0] = match self.below(4) {
                    0 => encode::<F>(self.range(emin - prec, emax), 0),
                    1 => self.normal::<F>(emax - 2, emax),
                    2 => (F::MIN_NORMAL >> self.below(3)) + self.below(3),
                    _ => F::ONE + self.below(3) - 1,
                } | self.sign::<F>();
            }
            Shape::Root => {
                v[0] = match self.below(3) {
                    // An exact square (root with at most PREC/2 bits), or a neighbour of one.
                    0 => {
                        // A root of PREC/2 significant bits squares exactly.
                        let half = F::PREC / 2 - 1;
                        let x = encode::<F>(self.range(emin / 2, emax / 2), (self.next() & ((1 << half) - 1)) << (F::FRAC_BITS - half));
                        let sq = ieee::<F>(IeeeOp::Mul, &[x, x], Rounding::Rn);
                        sq.wrapping_add(self.pick(&[0, 0, 1, F::MASK])) & F::MASK & !F::SIGN_MASK
                    }
                    1 => self.normal::<F>(emin, emax) | F::SIGN_MASK,
                    _ => 1 + self.below(F::MIN_NORMAL - 1),
                };
            }
            Shape::Compare => {
                // Equal magnitudes (and the +-0 pair), neighbours, and NaNs in chosen places.
                let i = self.below(n as u64) as usize;
                let j = (i + 1 + self.below(n as u64 - 1) as usize) % n;
                match self.below(4) {
                    0 => v[j] = v[i] ^ self.sign::<F>(),
                    1 => v[j] = v[i].wrapping_add(self.pick(&[1, F::MASK])) & F::MASK,
                    2 => v[i] = self.nan::<F>(),
                    _ => {
                        v[i] = self.nan::<F>();
                        v[j] = self.nan::<F>();
                    }
                }
            }
            Shape::Unary => {}
        }
    }

    /// a and b whose product lands near the overflow or underflow boundary, or near 1.
    fn product_pair<F: Format>(&mut self, v: &mut [u64]) {
        let (emax, emin, prec) = (F::EMAX as i64, F::EMIN as i64, F::PREC as i64);
        let ea = self.range(emin, emax);
        match self.below(4) {
            0 => {
                v[0] = self.normal::<F>(ea, ea) | self.sign::<F>();
                v[1] = encode::<F>(emax - ea + self.range(-2, 1), self.fraction::<F>()) | self.sign::<F>();
            }
            1 => {
                v[0] = self.normal::<F>(ea, ea) | self.sign::<F>();
                v[1] = encode::<F>(emin - ea - self.range(-1, prec + 1), self.fraction::<F>()) | self.sign::<F>();
            }
            // (2 - ulp) * 2^(EMIN-1): halfway between the largest subnormal and the smallest
            // normal, or just around it; .rn rounds it up to the smallest normal.
            2 => {
                let e = self.range(-2, 2);
                v[0] = encode::<F>(e, F::FRAC_MASK - self.below(2)) | self.sign::<F>();
                v[1] = encode::<F>(emin - 1 - e, self.below(2)) | self.sign::<F>();
            }
            // Near 1 (the .sat upper bound).
            _ => {
                v[0] = F::ONE.wrapping_add(self.range(-2, 2) as u64) | self.sign::<F>();
                v[1] = F::ONE.wrapping_add(self.range(-2, 2) as u64) | self.sign::<F>();
            }
        }
    }

    fn nan<F: Format>(&mut self) -> u64 {
        let payload = self.next() & F::FRAC_MASK;
        let quiet = if self.one_in(2) { F::QUIET_BIT } else { 0 };
        let frac = (payload & !F::QUIET_BIT) | quiet;
        F::INF | frac.max(1) | self.sign::<F>()
    }
}

/// Which operand relations suit an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Sum,
    Product,
    MulAdd,
    Quotient,
    Reciprocal,
    Root,
    Compare,
    Unary,
}

/// The unbiased exponent of a finite value's leading bit (subnormals count as EMIN).
fn exponent<F: Format>(bits: u64) -> i64 {
    let e = F::exp_field(bits) as i64;
    if e == 0 {
        F::EMIN as i64
    } else {
        e - F::BIAS as i64
    }
}

fn normal_with<F: Format>(e: i64, frac: u64) -> u64 {
    let e = e.clamp(F::EMIN as i64, F::EMAX as i64);
    (((e + F::BIAS as i64) as u64) << F::FRAC_BITS) | (frac & F::FRAC_MASK)
}

/// 1.frac * 2^e, going subnormal (the fraction shifted out, hidden bit kept) below EMIN, to
/// the smallest subnormal below that, and to the largest finite above EMAX.
pub fn encode<F: Format>(e: i64, frac: u64) -> u64 {
    let (emin, frac_bits) = (F::EMIN as i64, F::FRAC_BITS as i64);
    if e > F::EMAX as i64 {
        F::MAX_FINITE
    } else if e >= emin {
        normal_with::<F>(e, frac)
    } else if e >= emin - frac_bits {
        let sig = (frac & F::FRAC_MASK) | (1 << F::FRAC_BITS);
        (sig >> (emin - e)).max(1)
    } else {
        1
    }
}

// Run by the oracle binary only (see `self_tests!` in oracle.rs).
self_tests! {
#[cfg(test)]
mod tests {
    use super::*;
    use ptx::{F16, F32};

    #[test]
    fn rng_is_deterministic() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next(), b.next());
        }
        assert_ne!(Rng::new(7).next(), Rng::new(8).next());
    }

    #[test]
    fn encode_covers_normal_subnormal_and_overflow() {
        assert_eq!(encode::<F32>(0, 0), F32::ONE);
        assert_eq!(encode::<F32>(-127, 0), 0x0040_0000);
        assert_eq!(encode::<F32>(-149, 0), 1);
        assert_eq!(encode::<F32>(-300, 0), 1);
        assert_eq!(encode::<F32>(200, 0), F32::MAX_FINITE);
        assert_eq!(encode::<F16>(-15, 0), 0x0200);
    }

    #[test]
    fn about_half_of_values_are_special() {
        let mut r = Rng::new(1);
        let n = 100_000;
        let mut specials = 0;
        for _ in 0..n {
            let v = r.value::<F32>();
            let a = F32::abs(v);
            if a == 0 || !(F32::MIN_NORMAL..F32::INF).contains(&a) || a == F32::ONE {
                specials += 1;
            }
        }
        // Uniform bits hit these classes about 0.8% of the time; the special half far more.
        assert!(specials > n / 5, "{specials}");
    }
}
}
