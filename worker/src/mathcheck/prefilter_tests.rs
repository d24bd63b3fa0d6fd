//! Tests of the math-check pre-filter's decision: which functions get one, that a decided
//! input's bin is exactly the judge's on constructed hard cases, and that the CUDA C twin
//! decides as the Rust one.

use super::*;
use rug::float::Round;
use rug::Float;

const PREC: u32 = 300;

fn build() -> Build {
    Build::default()
}

#[test]
fn plain_ulp_functions_get_a_filter_with_their_table_8_counterpart() {
    let f = Filter::of("expf", &build()).unwrap();
    assert_eq!((f.row.name, f.bound, f.reference.name), ("expf", 2, "exp"));
    assert_eq!(f.rel, 3.0 * f64::EPSILON, "exp: 1 ulp (Table 8), plus 2 ulps of slack");
    let f = Filter::of("sinf", &build()).unwrap();
    assert_eq!((f.bound, f.reference.name, f.rel), (2, "sin", 4.0 * f64::EPSILON));
    let f = Filter::of("logf", &build()).unwrap();
    assert_eq!((f.bound, f.reference.name), (1, "log"));
    assert_eq!(Filter::of("1/sqrtf", &build()).unwrap().reference.name, "rsqrt");
    assert!(f.reference_text().starts_with("log (") && f.reference_text().contains("1 (full range)"), "{}", f.reference_text());
}

#[test]
fn functions_without_a_plain_bound_or_a_counterpart_are_judged_on_the_cpu() {
    // __expf: 2 + floor(|1.173 x|) ulps (Table 10).
    assert!(matches!(Filter::of("__expf", &build()), Err(Unfiltered::NotPlainUlps(_))));
    // -use_fast_math turns expf into __expf (Table 9).
    let fast = Build { flags: mathlib::Flags::FAST_MATH, ..build() };
    assert!(matches!(Filter::of("expf", &fast), Err(Unfiltered::NotPlainUlps(_))));
    assert_eq!(Filter::of("sincosf", &build()).unwrap_err(), Unfiltered::NotUnaryF32);
    assert_eq!(Filter::of("powf", &build()).unwrap_err(), Unfiltered::NotUnaryF32);
    assert_eq!(Filter::of("exp", &build()).unwrap_err(), Unfiltered::NotUnaryF32);
    // j0f's bound is absolute for |x| >= 8 (Table 7): not one row over the full range.
    assert!(matches!(Filter::of("j0f", &build()), Err(Unfiltered::NotPlainUlps(_))));
}

/// `v`'s neighbours in f64: `j` ulps down and up.
fn f64_step(v: f64, j: i64) -> f64 {
    let o = |b: u64| if b >> 63 == 1 { -((b & !(1 << 63)) as i64) } else { b as i64 };
    let back = |o: i64| if o < 0 { (1u64 << 63) | o.unsigned_abs() } else { o as u64 };
    f64::from_bits(back(o(v.to_bits()) + j))
}

/// Float `c`'s neighbour `j` steps away on the ulp scale (±0 one point).
fn f32_step(c: u32, j: i64) -> u32 {
    let o = if c >> 31 == 1 { -((c & 0x7fff_ffff) as i64) } else { (c & 0x7fff_ffff) as i64 };
    let n = (o + j).clamp(-0x7f80_0000, 0x7f80_0000);
    if n < 0 {
        0x8000_0000 | n.unsigned_abs() as u32
    } else {
        n as u32
    }
}

/// Exact values where rounding is hardest: each anchor float, the midpoints to its
/// neighbours, and points a hair either side of them, at binade edges, in the subnormals, at
/// the smallest subnormal's half (2^-150) and at the overflow threshold.
fn hard_values() -> Vec<Float> {
    let anchors: [u32; 12] = [
        0x3f80_0000, // 1: its lower neighbour is half an ulp closer (binade edge)
        0x3fc0_0000,
        0x4b80_0001,
        0x3f7f_ffff,
        0x0080_0000, // smallest normal
        0x007f_ffff, // largest subnormal
        0x0000_0001, // smallest subnormal: its lower midpoint is 2^-150
        0x0000_0002,
        0x7f7f_ffff, // largest finite: its upper midpoint is the overflow threshold
        0x1234_5678,
        0x6543_2101,
        0x2000_0000,
    ];
    let mut out = Vec::new();
    for a in anchors {
        for sign in [0, 0x8000_0000u32] {
            let c = Float::with_val(PREC, f32::from_bits(a | sign));
            out.push(c.clone());
            for nb in [f32_step(a | sign, -1), f32_step(a | sign, 1)] {
                // The neighbour of the largest finite value is the infinity: its midpoint is
                // the threshold 2^128 - 2^103, where rounding overflows.
                let n = if nb & 0x7fff_ffff == 0x7f80_0000 {
                    let ulp = Float::with_val(PREC, 2f64.powi(104));
                    if sign == 0 {
                        c.clone() + ulp
                    } else {
                        c.clone() - ulp
                    }
                } else {
                    Float::with_val(PREC, f32::from_bits(nb))
                };
                let m: Float = Float::with_val(PREC, &c + &n) / 2;
                out.push(m.clone());
                for k in [20, 30, 45, 50, 52, 53, 54, 56, 60, 80, 200] {
                    let e = m.clone().abs() * Float::with_val(PREC, 2f64.powi(-k));
                    out.push(m.clone() + &e);
                    out.push(m.clone() - &e);
                }
            }
        }
    }
    out.push(Float::with_val(PREC, 0));
    out.push(Float::with_val(PREC, 2f64.powi(-160)));
    out.push(-Float::with_val(PREC, 2f64.powi(-160)));
    out
}

/// References within `kd` ulps of `v` (the correctly rounded one when kd is 0): the
/// farthest either side and the nearest.
fn references(v: &Float, kd: u32) -> Vec<f64> {
    let (dn, up) = (v.to_f64_round(Round::Down), v.to_f64_round(Round::Up));
    if kd == 0 {
        return vec![v.to_f64_round(Round::Nearest)];
    }
    let j = kd as i64 - 1;
    let mut r = vec![f64_step(dn, -j), f64_step(up, j), dn, up];
    r.retain(|x| x.is_finite());
    r
}

#[test]
fn a_decided_input_has_exactly_the_judges_bin_on_the_hardest_constructed_values() {
    let (mut decided, mut kept) = (0u64, 0u64);
    for v in hard_values() {
        let cr = v.to_f32_round(Round::Nearest).to_bits();
        for kd in [0u32, 1, 2, 5] {
            let rel = (kd as f64 + 2.0) * f64::EPSILON;
            for r in references(&v, kd) {
                for bound in [0u32, 1, 2] {
                    for j in -3..=3 {
                        let y = f32_step(cr, j);
                        let verdict = decide(y, r, rel, bound);
                        if verdict == KEEP {
                            kept += 1;
                            continue;
                        }
                        decided += 1;
                        let want = steps(y, cr);
                        assert!(
                            verdict == want && verdict <= bound && (bound > 0 || y == cr),
                            "v = {v:e}, reference {r:e} ({kd} ulp), y = {y:#x}, bound {bound}: decided {verdict}, the exact bin is {want} (cr {cr:#x})"
                        );
                    }
                    assert_eq!(decide(0x7fc0_0000, r, rel, bound), KEEP, "a NaN result against a number is kept");
                }
            }
        }
    }
    // Many are decided (results within the bound, references clear of the boundary): the
    // assertion above ran on them. Most are kept by design: these values sit on boundaries.
    assert!(decided > 20_000 && kept > 0, "decided {decided}, kept {kept}");
}

#[test]
fn away_from_rounding_boundaries_every_input_within_the_bound_is_decided() {
    let mut rng = crate::campaign::source::Rng::new(5);
    for _ in 0..100_000 {
        // A normal float, and an exact value a quarter ulp from it.
        let c = ((rng.next_u64() % 0xfd) as u32 + 1) << 23 | (rng.next_u64() as u32 & 0x7f_ffff);
        let v = Float::with_val(PREC, f32::from_bits(c)) * (1.0 + 2f64.powi(-26));
        let r = v.to_f64_round(Round::Nearest);
        assert_eq!(decide(c, r, 3.0 * f64::EPSILON, 2), 0, "{c:#x}");
        assert_eq!(decide(f32_step(c, 2), r, 3.0 * f64::EPSILON, 2), 2, "{c:#x}");
        assert_eq!(decide(f32_step(c, -3), r, 3.0 * f64::EPSILON, 2), KEEP, "beyond the bound: {c:#x}");
    }
}

#[test]
fn special_references_decide_only_what_the_judge_allows() {
    let rel = 3.0 * f64::EPSILON;
    // NaN reference: any NaN result is allowed, a number is not.
    assert_eq!(decide(0x7fc0_0000, f64::NAN, rel, 2), 0);
    assert_eq!(decide(0xffc1_2345, f64::NAN, rel, 0), 0);
    assert_eq!(decide(0x3f80_0000, f64::NAN, rel, 2), KEEP);
    // Infinite reference: that infinity only.
    assert_eq!(decide(0x7f80_0000, f64::INFINITY, rel, 2), 0);
    assert_eq!(decide(0x7f7f_ffff, f64::INFINITY, rel, 2), KEEP);
    assert_eq!(decide(0x7f80_0000, f64::NEG_INFINITY, rel, 2), KEEP);
    // A finite reference past the overflow threshold: the correctly rounded result is +inf,
    // and the largest float is one step below it.
    assert_eq!(decide(0x7f80_0000, 1e39, rel, 2), 0);
    assert_eq!(decide(0x7f7f_ffff, 1e39, rel, 2), 1);
    // A zero reference: ±0 are one point, the smallest subnormal one step; a bound of 0 needs
    // the zero's sign, which a zero reference does not decide.
    assert_eq!(decide(0x8000_0000, 0.0, rel, 1), 0);
    assert_eq!(decide(0x0000_0001, 0.0, rel, 1), 1);
    assert_eq!(decide(0x0000_0000, 0.0, rel, 0), KEEP);
    assert_eq!(decide(0x0000_0000, 1e-60, rel, 0), 0, "a tiny positive reference decides +0");
}

/// Vectors for the C twin: the hard cases, and random pairs with references near the result.
fn vectors() -> Vec<(u32, f64, f64, u32)> {
    let mut out = Vec::new();
    for v in hard_values() {
        let cr = v.to_f32_round(Round::Nearest).to_bits();
        for kd in [0u32, 1, 5] {
            for r in references(&v, kd) {
                for (j, bound) in [(-1, 1), (0, 0), (2, 2), (3, 2)] {
                    out.push((f32_step(cr, j), r, (kd as f64 + 2.0) * f64::EPSILON, bound));
                }
            }
        }
    }
    let mut rng = crate::campaign::source::Rng::new(17);
    for _ in 0..100_000 {
        let y = rng.next_u64() as u32;
        let x = rng.next_u64();
        let r = match x % 4 {
            0 => f64::from_bits(rng.next_u64()),
            1 => f32::from_bits(y) as f64 * (1.0 + (x >> 8) as f64 * 2f64.powi(-80)),
            _ => f32::from_bits(y) as f64 + f64::from_bits(rng.next_u64() >> 2) * 1e-10,
        };
        out.push((y, r, 3.0 * f64::EPSILON, (x >> 60) as u32 % 3));
    }
    for r in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e39, -1e39, f64::MIN_POSITIVE, 5e-324] {
        for y in [0u32, 0x8000_0000, 1, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x7f7f_ffff] {
            out.push((y, r, 3.0 * f64::EPSILON, 1));
        }
    }
    out
}

#[test]
fn the_cuda_c_decides_as_the_rust_twin_on_hard_and_random_vectors() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-pf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, bin) = (dir.join("decide.c"), dir.join("decide"));
    let harness = format!(
        "#include <stdio.h>\n#include <string.h>\n{DECIDE_C}\n\
         int main(void) {{\n\
         \tunsigned int y, b; unsigned long long r, rel;\n\
         \twhile (scanf(\"%x %llx %llx %u\", &y, &r, &rel, &b) == 4) {{\n\
         \t\tdouble rd, reld; memcpy(&rd, &r, 8); memcpy(&reld, &rel, 8);\n\
         \t\tprintf(\"%u\\n\", pf_decide(y, rd, reld, b));\n\
         \t}}\n\treturn 0;\n}}\n"
    );
    std::fs::write(&src, harness).unwrap();
    // The host's C compiler (the one Rust links with); strict IEEE double, no contraction.
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = std::process::Command::new(&cc)
        .args(["-std=c99", "-O2", "-ffp-contract=off", "-o"])
        .arg(&bin)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("no C compiler `{cc}` ({e}): install one (the Rust toolchain needs it to link) or set CC"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let vs = vectors();
    let input: String = vs.iter().map(|(y, r, rel, b)| format!("{y:x} {:x} {:x} {b}\n", r.to_bits(), rel.to_bits())).collect();
    let mut child = std::process::Command::new(&bin)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let got: Vec<u32> = String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(got.len(), vs.len());
    let mut decided = 0;
    for (&(y, r, rel, b), &c) in vs.iter().zip(&got) {
        assert_eq!(c, decide(y, r, rel, b), "y {y:#x}, r {r:e}, bound {b}");
        decided += (c != KEEP) as u32;
    }
    assert!(decided > 1000, "the vectors exercise the decided path ({decided})");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tallies_bin_decided_inputs_and_keep_the_rest_with_the_audit_sample() {
    let mut t = Tallies::new();
    let audited = (0u32..).find(|&x| ptx::approx::prefilter::audited(x as u64)).unwrap();
    let plain = (0u32..).find(|&x| !ptx::approx::prefilter::audited(x as u64)).unwrap();
    t.record(plain, 7, 1);
    t.record(plain + 5000, 7, KEEP);
    t.record(audited, 9, 2);
    assert_eq!(t.bins[1], 1);
    assert_eq!(t.bin_input[1], plain);
    assert_eq!(t.kept, vec![[plain + 5000, 7, KEEP], [audited, 9, 2]]);
    let mut u = Tallies::new();
    u.record(plain + 1, 3, 1);
    t.absorb(u);
    assert_eq!((t.bins[1], t.bin_input[1], t.passed()), (2, plain.max(plain + 1), 2));
}
