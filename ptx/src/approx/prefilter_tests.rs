//! The pre-filter against the judge: no output it passes is one the judge rejects, over every
//! mantissa of two binades (which holds each form's hardest inputs: those whose exact result
//! lies closest to a rounding boundary or to the bound's edge) and a sample of every binade,
//! with outputs on both sides of each edge of the allowed set.

use super::*;
use crate::isa::Instr;

fn form(m: &str) -> Form {
    Form::of(&Instr::parse_default(m).unwrap()).unwrap()
}

const FILTERED: [&str; 6] =
    ["rcp.approx.f32", "rcp.approx.ftz.f32", "sqrt.approx.f32", "sqrt.approx.ftz.f32", "rsqrt.approx.f32", "rsqrt.approx.ftz.f32"];

#[derive(Default, Debug)]
struct Tally {
    /// (input, output) pairs judged.
    pairs: u64,
    passed: u64,
    /// Primary outputs (what a faithful target gives) and those of them kept.
    primaries: u64,
    primaries_kept: u64,
}

/// Judge `x` with outputs from 3 below to 3 above the primary (every edge of an allowed set
/// of at most 1 ulp each side, and the first value beyond it); panic on a pass the judge
/// rejects.
fn check(f: &Form, p: &Prefilter, m: &str, x: u32, t: &mut Tally) {
    let e = f.eval(&[x as u64]);
    let primary = e.primary_bits() as u32;
    for d in -3i32..=3 {
        let h = primary.wrapping_add_signed(d);
        let v = p.judge(x, h);
        t.pairs += 1;
        if v == Verdict::Pass {
            t.passed += 1;
            assert!(e.accepts(h as u64), "{m}: input {x:#010x} output {h:#010x} passed, but the judge allows only {e}");
        }
        if d == 0 {
            t.primaries += 1;
            t.primaries_kept += (v == Verdict::Keep) as u64;
        }
    }
}

#[test]
fn no_passed_output_is_rejected_by_the_judge_over_two_whole_binades() {
    // [1, 4): every f32 mantissa at both exponent parities (sqrt and rsqrt depend on it).
    for m in ["rcp.approx.f32", "sqrt.approx.f32", "rsqrt.approx.f32"] {
        let (f, mut t) = (form(m), Tally::default());
        let p = Prefilter::new(&f).unwrap();
        for x in 0x3f80_0000u32..0x4080_0000 {
            check(&f, &p, m, x, &mut t);
        }
        eprintln!("{m} over [1, 4): {t:?}");
        // Nearly every pass that could be is one: the outputs one ulp beyond the allowed set
        // are rejected, and the primary is kept only where the reference interval straddles a
        // rounding boundary or the bound's edge.
        assert!(t.primaries_kept * 1000 < t.primaries, "{m}: {t:?}");
        assert!(t.passed * 4 > t.pairs, "{m}: {t:?}");
    }
}

#[test]
fn no_passed_output_is_rejected_by_the_judge_in_any_binade() {
    for m in FILTERED {
        let (f, mut t) = (form(m), Tally::default());
        let p = Prefilter::new(&f).unwrap();
        // Every binade and sign, subnormals and specials included, 4099 inputs apart.
        for x in (0..=u32::MAX).step_by(4099) {
            check(&f, &p, m, x, &mut t);
        }
        // The last mantissas below each power of two and the first above (rcp's results
        // cross a binade there), and the ends of the normal range.
        for e in 1u32..255 {
            for x in [(e << 23) - 3, (e << 23) - 1, e << 23, (e << 23) + 1] {
                check(&f, &p, m, x, &mut t);
                check(&f, &p, m, x | 0x8000_0000, &mut t);
            }
        }
        assert!(t.passed > 0, "{m}");
    }
}

#[test]
fn special_values_a_wrong_sign_and_results_beyond_the_normal_range_are_kept() {
    let rcp = Prefilter::new(&form("rcp.approx.f32")).unwrap();
    let sqrt = Prefilter::new(&form("sqrt.approx.f32")).unwrap();
    let one = 0x3f80_0000;
    assert_eq!(rcp.judge(one, one), Verdict::Pass);
    for x in [0, 0x8000_0000, 1, 0x007f_ffff, 0x7f80_0000, 0x7fc0_0000] {
        assert_eq!(rcp.judge(x, one), Verdict::Keep, "input {x:#x}");
    }
    for h in [0, 1, 0x7f80_0000, 0x7fc0_0000] {
        assert_eq!(rcp.judge(one, h), Verdict::Keep, "output {h:#x}");
    }
    assert_eq!(rcp.judge(one, 0xbf80_0000), Verdict::Keep, "1/1 = -1 has the wrong sign");
    assert_eq!(rcp.judge(0xbf80_0000, 0xbf80_0000), Verdict::Pass, "1/-1 = -1");
    assert_eq!(sqrt.judge(0xbf80_0000, one), Verdict::Keep, "sqrt(-1) is NaN: the CPU's");
    // 1/2^126 = 2^-126, the smallest normal: the interval around it reaches below, kept; its
    // mirror 1/2^-126 = 2^126 is well inside the range, passed.
    assert_eq!(rcp.judge(0x7e80_0000, 0x0080_0000), Verdict::Keep);
    assert_eq!(rcp.judge(0x0080_0000, 0x7e80_0000), Verdict::Pass);
}

#[test]
fn forms_without_a_reference_of_proven_bound_have_no_prefilter() {
    for m in ["sin.approx.f32", "cos.approx.f32", "lg2.approx.f32", "ex2.approx.f32", "tanh.approx.f32", "div.approx.f32",
        "div.full.f32", "ex2.approx.f16", "tanh.approx.bf16", "rsqrt.approx.f64"]
    {
        assert!(Prefilter::new(&form(m)).is_none(), "{m}");
    }
    for m in FILTERED {
        assert!(Prefilter::new(&form(m)).is_some(), "{m}");
    }
}

#[test]
fn one_passed_input_in_1024_is_audited_and_every_stretch_has_some() {
    let n = (0..1u64 << 20).filter(|&i| audited(i)).count() as u64;
    assert!(n.abs_diff((1 << 20) / AUDIT_EVERY) < 64, "{n}");
    for start in (0..1u64 << 20).step_by(1 << 14) {
        assert!((start..start + (1 << 14)).any(audited), "no audit in {start}..+2^14");
    }
}

/// Whether the judge allows `h` when the exact value is `y` (an f64, so exact here): the
/// accepted set `Form::lane` builds from it.
fn judge_allows(bound: BoundKind, y: f64, h: u32) -> bool {
    use super::super::accept::{bound_range, ulp_range};
    use crate::expect::{Expectation, LaneExpectation};
    use crate::isa::Ftz;
    let cr = (y as f32).to_bits() as u64;
    let outcome = match bound {
        BoundKind::Ulps(n) => ulp_range::<F32>(cr, n, || y, Ftz::Preserve),
        BoundKind::Rel { scale, .. } => bound_range::<F32>(y, scale * y.abs(), cr, Ftz::Preserve),
        _ => unreachable!(),
    };
    Expectation::scalar(Scalar::F32, LaneExpectation::of(outcome)).accepts(h as u64)
}

/// The exact values where a decision is hardest: f32 values, the midpoints between
/// neighbours (where rounding to nearest turns: an ulp bound's edge moves there) and, for a
/// relative bound, the values whose bound edge falls exactly on an f32 (`h = y (1 +- s)`).
fn hard_exact_values(bound: BoundKind, v: f32) -> Vec<f64> {
    let (a, b) = (v as f64, f32::from_bits(v.to_bits() + 1) as f64);
    let mut ys = vec![a, b, (a + b) / 2.0];
    if let BoundKind::Rel { scale, .. } = bound {
        for h in [a, b] {
            for y in [h / (1.0 + scale), h / (1.0 - scale)] {
                ys.extend([y.next_down(), y, y.next_up()]);
            }
        }
    }
    ys
}

#[test]
fn the_margin_holds_on_rounding_boundaries_and_bound_edges_with_the_reference_off_by_its_whole_bound() {
    let rel_23 = BoundKind::Rel { log2: -23.0, scale: (-23f64).exp2() };
    let rows: Vec<BoundKind> = FILTERED.iter().map(|m| bounds::select(form(m).rows, 1.0).unwrap().kind).collect();
    let mut passes_at_the_edge = 0;
    for bound in rows.into_iter().chain([BoundKind::Ulps(1), BoundKind::Ulps(2), rel_23]) {
        let mut bases: Vec<f32> = vec![1.0, 1.5, 1.999_999_9, 2.0, 3.141_592_7, f32::MIN_POSITIVE * 4.0, f32::MAX / 4.0];
        bases.extend((0..2000u32).map(|i| f32::from_bits(0x0100_0000 + i.wrapping_mul(0x0003_f1a7) % 0x7d00_0000)));
        for v in bases {
            for y in hard_exact_values(bound, v) {
                for rel in [f64::EPSILON / 2.0, 3.0 * f64::EPSILON / 2.0] {
                    // The reference at either end of its error bound, and exact.
                    let refs = [(y - y * rel).next_up(), y, (y + y * rel).next_down()];
                    let cr = (y as f32).to_bits();
                    for r in refs {
                        for d in -3i32..=3 {
                            let h = cr.wrapping_add_signed(d);
                            if decide(bound, r, rel, h) == Verdict::Pass {
                                assert!(
                                    judge_allows(bound, y, h),
                                    "{bound:?}: exact {y:e}, reference {r:e} (rel. error {rel:e}), output {h:#010x} passed but is not allowed"
                                );
                                passes_at_the_edge += (!judge_allows(bound, y, h.wrapping_add_signed(d.signum()))) as u32;
                            }
                        }
                    }
                }
            }
        }
    }
    // The test reaches the edges: outputs passed whose next value outward is not allowed.
    assert!(passes_at_the_edge > 1000, "{passes_at_the_edge}");
}
