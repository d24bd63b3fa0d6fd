//! math-check's GPU pre-filter (issue 12, point 4): an exhaustive check of a one-argument
//! single-precision function decides most inputs on the GPU and sends the CPU only the rest.
//!
//! The GPU computes, per input x, the function's result y, a double-precision reference
//! r = F(x) (the function's Table 8 counterpart: `exp` for `expf`, documented within k ulps),
//! and from r the correctly rounded result wherever r decides it. Those inputs it bins by ulp
//! error (a histogram, and per bin one input); it sends back only the others ("kept"), and one
//! passed input in 1024 with the bin it chose (the audit, `ptx::approx::prefilter::audited`,
//! the sweep's sample). mathlib's correctly rounded reference stays the judge of record: the
//! CPU judges every kept and audited input, and an audited input it bins differently from the
//! GPU is a pre-filter failure that math-check reports loudly and exits non-zero on.
//!
//! The decision, [`decide`] here and [`DECIDE_C`] on the GPU (the same IEEE double
//! operations, so the same answers; a test compiles the C with the host compiler and compares
//! them on hard and random vectors):
//! - the exact value v lies within `d = rel |r| + 2^-1060` of r. Table 8 bounds the double
//!   function by k ulps, an ulp of a double is at most 2^-52 |v|, so |r - v| <= k 2^-52 |v|;
//!   `rel = (k + 2) 2^-52` covers that, |v| against |r| and the roundings of `r ± d`; 2^-1060
//!   covers double subnormals (whose ulp is 2^-1074), far below any float's resolution;
//! - rounding to nearest is monotone: when `r - d` and `r + d` round to the same float, every
//!   value between them does, so that float is the correctly rounded result (overflow to an
//!   infinity included). When both round to a zero (of either sign) the result is zero, one
//!   point of mathlib's ulp scale: decided unless the bound is 0, where the zero's sign counts;
//! - the result's error is the number of steps between y and that float (mathlib::allowed's
//!   measure: ±0 one point, the infinities one step past the largest finite values), and the
//!   input passes when it is within the bound (bits equal for a bound of 0);
//! - a NaN reference passes a NaN result (any NaN is allowed); an infinite reference (an exact
//!   infinity, or the double overflowing, when the float overflows too) passes that infinity;
//! - everything else is kept: a NaN result against a number, an interval that straddles a
//!   rounding boundary (the hard-to-round inputs), an error beyond the bound.
//!
//! The guarantee rests on the double function meeting its Table 8 bound on the GPU, which
//! nothing here proves; the audit samples it (a violation shows as audited inputs binned
//! differently), and `--no-prefilter` judges every input on the CPU.

use mathlib::op::Ty;
use mathlib::table::{ArgRange, Bound, Condition};
use mathlib::{Build, Fmt, MathFn};

/// The verdict meaning "the CPU judges this input".
pub const KEEP: u32 = u32::MAX;

/// Ulp errors the GPU bins: 0..BINS-1. A bound of BINS or more is not pre-filtered.
pub const BINS: usize = 64;

/// Why a check runs without the pre-filter (every input judged on the CPU).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unfiltered {
    #[error("it is not a one-argument single-precision function")]
    NotUnaryF32,
    #[error("its bound ({0}) is not a plain ulp bound over the full range")]
    NotPlainUlps(&'static str),
    #[error("no row bounds it under these flags and this compute capability")]
    NoRow,
    #[error("Table 8 has no double-precision {0:?} with a plain ulp bound over the full range to compute the reference")]
    NoReference(mathlib::op::Kernel),
}

/// A pre-filter for one function under one build.
#[derive(Clone, Copy, Debug)]
pub struct Filter {
    /// The single-precision row checked (its bound holds for every argument).
    pub row: &'static MathFn,
    /// Its bound in whole ulps (`mathlib::allowed`: k >= 1 accepts floor(k) steps, below 1
    /// the correctly rounded bits only).
    pub bound: u32,
    /// The double-precision row whose function computes the reference on the GPU.
    pub reference: &'static MathFn,
    /// Relative width of the interval around the reference that holds the exact value.
    pub rel: f64,
}

fn plain_ulps(row: &MathFn) -> Option<f64> {
    match (row.bound, row.condition) {
        (Bound::Ulp(k), Condition { args: ArgRange::Full, .. }) => Some(k),
        _ => None,
    }
}

impl Filter {
    /// The pre-filter for `name` built with `build`, or why there is none.
    pub fn of(name: &str, build: &Build) -> Result<Filter, Unfiltered> {
        let effective = mathlib::table::effective_name(name, &build.flags);
        // The row `select` picks for every argument: the first that applies to the build.
        let row = mathlib::table::rows_named(effective).find(|r| r.applies_to_build(build)).ok_or(Unfiltered::NoRow)?;
        if row.op.fmt != Fmt::F32 || row.op.arg_types(1) != [Ty::F32] || row.op.result_types() != [Ty::F32] {
            return Err(Unfiltered::NotUnaryF32);
        }
        let k = plain_ulps(row).filter(|&k| k < BINS as f64).ok_or(Unfiltered::NotPlainUlps(row.text))?;
        let reference = mathlib::FUNCTIONS
            .iter()
            .filter(|r| r.op.kernel == row.op.kernel && r.op.fmt == Fmt::F64 && r.op.dir == row.op.dir)
            .filter(|r| r.op.result_types() == [Ty::F64] && r.applies_to_build(build))
            .find(|r| !r.name.starts_with("__") && plain_ulps(r).is_some())
            .ok_or(Unfiltered::NoReference(row.op.kernel))?;
        let kd = plain_ulps(reference).unwrap_or(0.0).ceil();
        Ok(Filter { row, bound: if k >= 1.0 { k.floor() as u32 } else { 0 }, reference, rel: (kd + 2.0) * f64::EPSILON })
    }

    /// `exp (Table 8, 1 ulp)`.
    pub fn reference_text(&self) -> String {
        format!("{} ({}, {})", self.reference.name, self.reference.table.citation(), self.reference.text)
    }
}

/// Steps between two non-NaN floats on mathlib's ulp scale (±0 one point).
pub fn steps(a: u32, b: u32) -> u32 {
    let ord = |v: u32| {
        let m = (v & 0x7fff_ffff) as i64;
        if v >> 31 == 1 {
            -m
        } else {
            m
        }
    };
    (ord(a) - ord(b)).unsigned_abs() as u32
}

fn is_nan(b: u32) -> bool {
    b & 0x7fff_ffff > 0x7f80_0000
}

/// The ulp error of result `y` (bits) against the correctly rounded result that reference `r`
/// decides, or [`KEEP`]. The twin of [`DECIDE_C`]'s `pf_decide`, operation for operation.
pub fn decide(y: u32, r: f64, rel: f64, bound: u32) -> u32 {
    if r.is_nan() {
        return if is_nan(y) { 0 } else { KEEP };
    }
    if is_nan(y) {
        return KEEP;
    }
    if r.is_infinite() {
        return if (r as f32).to_bits() == y { 0 } else { KEEP };
    }
    let d = rel * r.abs() + f64::from_bits(0x0130_0000_0000_0000); // 2^-1060
    let (lo, hi) = (((r - d) as f32).to_bits(), ((r + d) as f32).to_bits());
    let cr = if lo == hi {
        lo
    } else if (lo | hi) & 0x7fff_ffff == 0 && bound > 0 {
        0
    } else {
        return KEEP;
    };
    let u = steps(y, cr);
    if u > bound || (bound == 0 && y != cr) {
        KEEP
    } else {
        u
    }
}

/// The CUDA C of [`decide`] and its helpers; it also compiles as host C (the tests do). On the
/// GPU the conversions are written in PTX so that `-ftz=true` (`-use_fast_math`) cannot flush
/// them: the reference must see the unflushed argument and round exactly.
pub const DECIDE_C: &str = r#"#ifdef __CUDACC__
#define PF_FN __device__ static __forceinline__
PF_FN float pf_d2f(double d) { float f; asm("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(d)); return f; }
PF_FN double pf_f2d(float f) { double d; asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(f)); return d; }
PF_FN unsigned int pf_bits(float f) { return __float_as_uint(f); }
PF_FN unsigned long long pf_dbits(double d) { return (unsigned long long)__double_as_longlong(d); }
/* An intrinsic: never contracted into an fma with the addition after it (-fmad=true). */
PF_FN double pf_mul(double a, double b) { return __dmul_rn(a, b); }
#else
#define PF_FN static
static float pf_d2f(double d) { return (float)d; }
static double pf_f2d(float f) { return (double)f; }
static unsigned int pf_bits(float f) { unsigned int b; memcpy(&b, &f, 4); return b; }
static unsigned long long pf_dbits(double d) { unsigned long long b; memcpy(&b, &d, 8); return b; }
static double pf_mul(double a, double b) { return a * b; }
#endif
#define PF_KEEP 0xffffffffu
/* Steps between two non-NaN floats (+0 and -0 one point). */
PF_FN unsigned int pf_steps(unsigned int a, unsigned int b) {
	long long oa = (long long)(a & 0x7fffffffu), ob = (long long)(b & 0x7fffffffu);
	if (a >> 31) oa = -oa;
	if (b >> 31) ob = -ob;
	return (unsigned int)(oa > ob ? oa - ob : ob - oa);
}
PF_FN int pf_nan(unsigned int b) { return (b & 0x7fffffffu) > 0x7f800000u; }
/* worker/src/mathcheck/prefilter.rs `decide`: the ulp error of result y against the correctly
   rounded result that reference r decides, or PF_KEEP (the CPU judges the input). */
PF_FN unsigned int pf_decide(unsigned int y, double r, double rel, unsigned int bound) {
	unsigned long long rm = pf_dbits(r) & 0x7fffffffffffffffull;
	if (rm > 0x7ff0000000000000ull) return pf_nan(y) ? 0u : PF_KEEP;
	if (pf_nan(y)) return PF_KEEP;
	if (rm == 0x7ff0000000000000ull) return pf_bits(pf_d2f(r)) == y ? 0u : PF_KEEP;
	double d = pf_mul(rel, r < 0 ? -r : r) + 0x1p-1060;
	unsigned int lo = pf_bits(pf_d2f(r - d)), hi = pf_bits(pf_d2f(r + d)), cr;
	if (lo == hi) cr = lo;
	else if (((lo | hi) & 0x7fffffffu) == 0 && bound > 0) cr = 0;
	else return PF_KEEP;
	unsigned int u = pf_steps(y, cr);
	if (u > bound || (bound == 0 && y != cr)) return PF_KEEP;
	return u;
}
"#;

/// What the GPU sends back for a range of inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tallies {
    /// Passed inputs per ulp error.
    pub bins: [u64; BINS],
    /// Per bin, the largest input binned there (to show where the maximum error is).
    pub bin_input: [u32; BINS],
    /// (input, result, verdict): verdict [`KEEP`], or the bin of an audited passed input.
    pub kept: Vec<[u32; 3]>,
}

impl Tallies {
    pub fn new() -> Tallies {
        Tallies { bins: [0; BINS], bin_input: [0; BINS], kept: Vec::new() }
    }

    /// One input's outcome, as the kernel records it.
    pub fn record(&mut self, x: u32, y: u32, verdict: u32) {
        if verdict == KEEP || ptx::approx::prefilter::audited(x as u64) {
            self.kept.push([x, y, verdict]);
        } else {
            self.bins[verdict as usize] += 1;
            self.bin_input[verdict as usize] = self.bin_input[verdict as usize].max(x);
        }
    }

    /// Add another range's tallies.
    pub fn absorb(&mut self, o: Tallies) {
        for b in 0..BINS {
            self.bins[b] += o.bins[b];
            if o.bins[b] > 0 {
                self.bin_input[b] = self.bin_input[b].max(o.bin_input[b]);
            }
        }
        self.kept.extend(o.kept);
    }

    pub fn passed(&self) -> u64 {
        self.bins.iter().sum()
    }
}

impl Default for Tallies {
    fn default() -> Tallies {
        Tallies::new()
    }
}

/// The kernel [`Tallies::record`] emulates, run on the CPU: `y_of` is the function under test,
/// `r_of` the double reference. The tests' stand-in for the GPU.
pub fn emulate(filter: &Filter, xs: impl Iterator<Item = u32>, y_of: impl Fn(u32) -> u32, r_of: impl Fn(u32) -> f64) -> Tallies {
    let mut t = Tallies::new();
    for x in xs {
        let y = y_of(x);
        t.record(x, y, decide(y, r_of(x), filter.rel, filter.bound));
    }
    t
}

#[cfg(test)]
#[path = "prefilter_tests.rs"]
mod tests;
