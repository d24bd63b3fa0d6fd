//! Throughput of `ptx::softfloat` (M ops/s, one core) per op, format and rounding mode, next to
//! the host's native f32/f64 operation measured the same way.
//!
//! `cargo run --release -p ptx --example softfloat_throughput [-- [FILTER] [--bits]]`
//! (FILTER: only the rows containing it, e.g. `"f64 fma"`)
//!
//! Operands: arrays of 2^20 random values, by default finite with exponents in [-k, k],
//! k = min(20, EMAX/2) (results mostly stay normal, as in typical use); `--bits` uses uniformly random bit patterns
//! (every class: subnormals, infinities, NaNs, overflow and underflow). Every result goes
//! through `black_box`; the mode is opaque to the optimiser. Timing: see [`measure`].

use std::hint::black_box;
use std::time::Instant;

use ptx::softfloat;
use ptx::{Format, Rounding, BF16, F16, F32, F64};

const N: usize = 1 << 20;
const CHUNK: usize = 1 << 14;
const PASSES: usize = 3;

struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn operands<F: Format>(g: &mut Gen, bits: bool, positive: bool) -> Vec<u64> {
    (0..N)
        .map(|_| {
            let r = g.next();
            let x = if bits {
                r & F::MASK
            } else {
                // Exponents uniform in [-k, k], k = min(20, EMAX / 2): products and quotients
                // stay in range (f16: k = 7).
                let k = 20.min(F::EMAX as i64 / 2);
                let e = (F::BIAS as i64 + (r >> 32) as i64 % (2 * k + 1) - k) as u64;
                (r & (F::FRAC_MASK | F::SIGN_MASK)) | (e << F::FRAC_BITS)
            };
            if positive {
                x & !F::SIGN_MASK
            } else {
                x
            }
        })
        .collect()
}

/// M ops/s of `f` over the arrays: the arrays are timed in chunks of CHUNK ops, PASSES times,
/// and the fastest chunk counts. The machine is shared (other processes take the cores in
/// slices of milliseconds); a chunk takes tens of microseconds, so the fastest ones ran
/// undisturbed. Timer overhead (~25 ns per chunk) is below 0.1%.
fn measure(mut f: impl FnMut(usize) -> u64) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..PASSES {
        for chunk in (0..N).step_by(CHUNK) {
            let t = Instant::now();
            for i in chunk..chunk + CHUNK {
                black_box(f(i));
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
    }
    CHUNK as f64 / best / 1e6
}

/// The host's own f32/f64 operation on the same operands, measured the same way.
fn native<F: Format>(k: usize, a: &[u64], b: &[u64], c: &[u64], p: &[u64]) -> Option<f64> {
    let f = |x: u64| f32::from_bits(x as u32);
    let d = f64::from_bits;
    Some(match (F::BITS, k) {
        (32, 0) => measure(move |i| (f(a[i]) + f(b[i])).to_bits() as u64),
        (32, 1) => measure(move |i| (f(a[i]) - f(b[i])).to_bits() as u64),
        (32, 2) => measure(move |i| (f(a[i]) * f(b[i])).to_bits() as u64),
        (32, 3) => measure(move |i| f(a[i]).mul_add(f(b[i]), f(c[i])).to_bits() as u64),
        (32, 4) => measure(move |i| (f(a[i]) / f(b[i])).to_bits() as u64),
        (32, 5) => measure(move |i| f(p[i]).sqrt().to_bits() as u64),
        (64, 0) => measure(move |i| (d(a[i]) + d(b[i])).to_bits()),
        (64, 1) => measure(move |i| (d(a[i]) - d(b[i])).to_bits()),
        (64, 2) => measure(move |i| (d(a[i]) * d(b[i])).to_bits()),
        (64, 3) => measure(move |i| d(a[i]).mul_add(d(b[i]), d(c[i])).to_bits()),
        (64, 4) => measure(move |i| (d(a[i]) / d(b[i])).to_bits()),
        (64, 5) => measure(move |i| d(p[i]).sqrt().to_bits()),
        _ => return None,
    })
}

fn row<F: Format>(bits: bool, g: &mut Gen) {
    let a = operands::<F>(g, bits, false);
    let b = operands::<F>(g, bits, false);
    let c = operands::<F>(g, bits, false);
    let p = operands::<F>(g, bits, true);
    let (a, b, c, p) = (&a[..], &b[..], &c[..], &p[..]);
    let names = ["add", "sub", "mul", "fma", "div", "sqrt"];
    let only = std::env::args().nth(1).filter(|a| !a.starts_with("--"));
    for (k, name) in names.iter().enumerate() {
        let mut line = format!("{:>4} {:<5}", F::NAME, name);
        if only.as_ref().is_some_and(|o| !line.contains(o.as_str())) {
            continue;
        }
        for mode in Rounding::ALL {
            let m = black_box(mode);
            let rate = match k {
                0 => measure(move |i| softfloat::add::<F>(a[i], b[i], m)),
                1 => measure(move |i| softfloat::sub::<F>(a[i], b[i], m)),
                2 => measure(move |i| softfloat::mul::<F>(a[i], b[i], m)),
                3 => measure(move |i| softfloat::fma::<F>(a[i], b[i], c[i], m)),
                4 => measure(move |i| softfloat::div::<F>(a[i], b[i], m)),
                _ => measure(move |i| softfloat::sqrt::<F>(p[i], m)),
            };
            line += &format!(" {:>7.1}", rate);
        }
        if let Some(rate) = native::<F>(k, a, b, c, p) {
            line += &format!(" {:>9.1}", rate);
        }
        println!("{line}");
    }
}

fn main() {
    let bits = std::env::args().any(|a| a == "--bits");
    println!(
        "M ops/s, one core, fastest of {} chunks of {CHUNK} ops; operands: {}",
        PASSES * N / CHUNK,
        if bits { "uniformly random bit patterns" } else { "random finite, exponents in [-min(20, EMAX/2), +]" }
    );
    println!("{:<10} {:>7} {:>7} {:>7} {:>7} {:>9}", "form", "rn", "rz", "rm", "rp", "native");
    let mut g = Gen(42);
    row::<F16>(bits, &mut g);
    row::<BF16>(bits, &mut g);
    row::<F32>(bits, &mut g);
    row::<F64>(bits, &mut g);
}
