//! The rounded pre-filter against the judge (`interp::eval`, the exact reference): no output it
//! passes is one the judge rejects, and on the forms without `.ftz` it passes every output the
//! judge's primary gives, so the CPU sees only the audit.

use super::*;
use crate::interp::{eval, Kernel, Operands};

/// Every form with a rounded pre-filter at sm_100 (f16 and bf16, scalar and x2, f16 `.sat`).
fn forms() -> Vec<Instr> {
    let fs: Vec<Instr> = crate::vm::arms(100).unwrap().into_iter().filter(|f| Rounded::new(f).is_some()).collect();
    assert_eq!(fs.len(), 60, "{fs:?}");
    fs
}

/// The operands of input number `x`, lanes copied for a packed form (the sweep's numbering).
fn operands(f: &Instr, x: u32) -> [u64; 2] {
    let lane = |v: u32| if f.ty.lanes() == 2 { (v | v << 16) as u64 } else { v as u64 };
    [lane(x & 0xffff), lane(x >> 16)]
}

/// 16-bit operands where rounding, flushing and special values turn, for both formats.
fn edges() -> Vec<u32> {
    let mut v = vec![0, 1, 2, 0x3ff, 0x400, 0x401, 0x7f, 0x80, 0x81, 0x3c00, 0x3c01, 0x3bff, 0x3f80, 0x3f81, 0x3f7f];
    v.extend([0x7bff, 0x7c00, 0x7c01, 0x7e00, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0, 0x7fff, 0x4000, 0x4001, 0x0800, 0x0c00]);
    let neg: Vec<u32> = v.iter().map(|x| x | 0x8000).collect();
    v.extend(neg);
    v
}

#[derive(Default, Debug)]
struct Tally {
    pairs: u64,
    passed: u64,
    primaries_kept: u64,
}

/// Judge input `x` with its primary, the primary's neighbours and two NaNs; panic on a pass
/// the judge rejects.
fn check(f: &Instr, p: &Rounded, x: u32, t: &mut Tally) {
    let ops = operands(f, x);
    let e = eval(f, &ops).unwrap();
    let primary = e.primary_bits() as u32;
    let both = |v: u32| if f.ty.lanes() == 2 { v | v << 16 } else { v };
    let lane0 = primary & 0xffff;
    let mut outs: Vec<u32> = (-2i32..=2).map(|d| both(lane0.wrapping_add_signed(d) & 0xffff)).collect();
    outs.extend([both(0x7fff), both(0xffc1), both(0x7e00), primary ^ 0x8000]);
    for h in outs {
        t.pairs += 1;
        if p.judge(x, h) == Verdict::Pass {
            t.passed += 1;
            assert!(e.accepts(h as u64), "{f}: input {x:#010x} output {h:#x} passed, but the judge allows only {e}");
        }
    }
    t.primaries_kept += (p.judge(x, primary) == Verdict::Keep) as u64;
}

#[test]
fn no_passed_output_is_rejected_and_every_primary_passes_without_ftz() {
    let edges = edges();
    for f in forms() {
        let (p, mut t) = (Rounded::new(&f).unwrap(), Tally::default());
        // Every pair of edge operands, then a stride through all 2^32 pairs.
        for &a in &edges {
            for &b in &edges {
                check(&f, &p, a | b << 16, &mut t);
            }
        }
        for x in (0..=u32::MAX).step_by(65_521 * 7) {
            check(&f, &p, x, &mut t);
        }
        if p.ftz {
            assert!(t.primaries_kept > 0 && t.passed > 0, "{f}: {t:?}");
        } else {
            assert_eq!(t.primaries_kept, 0, "{f}: the judge's own answer was kept: {t:?}");
        }
    }
}

#[test]
fn the_correctly_rounded_result_and_any_nan_for_a_nan_pass_everything_else_is_kept() {
    let add = Rounded::new(&Instr::parse_default("add.rn.f16").unwrap()).unwrap();
    let (one, two, three) = (0x3c00u32, 0x4000u32, 0x4200u32);
    assert_eq!(add.judge(one | two << 16, three), Verdict::Pass);
    assert_eq!(add.judge(one | two << 16, three + 1), Verdict::Keep);
    // 1 + 2^-11 is a tie: to even, 1.
    assert_eq!(add.judge(one | 0x1000 << 16, one), Verdict::Pass);
    assert_eq!(add.judge(one | 0x1000 << 16, one + 1), Verdict::Keep);
    // A NaN operand or inf - inf: any NaN passes, a number is kept.
    assert_eq!(add.judge(0x7e01 | one << 16, 0xfe00), Verdict::Pass);
    assert_eq!(add.judge(0x7c00 | 0xfc00 << 16, 0x7fff), Verdict::Pass);
    assert_eq!(add.judge(0x7c00 | 0xfc00 << 16, 0x7c00), Verdict::Keep);
    // x2: both lanes must be right.
    let add2 = Rounded::new(&Instr::parse_default("add.rn.f16x2").unwrap()).unwrap();
    assert_eq!(add2.judge(one | two << 16, three | three << 16), Verdict::Pass);
    assert_eq!(add2.judge(one | two << 16, three | (three + 1) << 16), Verdict::Keep);
    // .ftz: a subnormal operand is the CPU's.
    let ftz = Rounded::new(&Instr::parse_default("add.rn.ftz.f16").unwrap()).unwrap();
    assert_eq!(ftz.judge(1 | one << 16, one), Verdict::Keep);
    // bf16: 2^100 + 2^-100 rounds to 2^100 (f64 cannot hold the sum exactly: double rounding).
    let bf = Rounded::new(&Instr::parse_default("add.rn.bf16").unwrap()).unwrap();
    let (big, tiny) = (0x7180u32, 0x0d80u32);
    assert_eq!(bf.judge(big | tiny << 16, big), Verdict::Pass);
    assert_eq!(bf.judge(big | tiny << 16, big + 1), Verdict::Keep);
}

#[test]
fn sat_clamps_the_expected_value_and_a_nan_to_plus_zero() {
    let sat = Rounded::new(&Instr::parse_default("add.rn.sat.f16").unwrap()).unwrap();
    let (one, two, half) = (0x3c00u32, 0x4000u32, 0x3800u32);
    assert_eq!(sat.judge(one | two << 16, one), Verdict::Pass, "1 + 2 = 3, clamped to 1");
    assert_eq!(sat.judge(one | two << 16, 0x4200), Verdict::Keep);
    assert_eq!(sat.judge(0xbc00 | half << 16, 0), Verdict::Pass, "-1 + 0.5 = -0.5, clamped to +0");
    assert_eq!(sat.judge(0xbc00 | half << 16, 0x8000), Verdict::Keep, "-0 is the judge's alternative, the CPU's to decide");
    assert_eq!(sat.judge(0x7e00 | half << 16, 0), Verdict::Pass, "NaN: +0");
    assert_eq!(sat.judge(0x7e00 | half << 16, 0x7e00), Verdict::Keep);
    assert_eq!(sat.judge(half | half << 16, one), Verdict::Pass, "0.5 + 0.5 = 1");
}

#[test]
fn relu_fma_approximate_and_non_16_bit_forms_have_no_rounded_prefilter() {
    for m in ["fma.rn.relu.f16", "fma.rn.f16", "add.rn.f32", "min.f16", "ex2.approx.f16", "mul.rn.f64"] {
        assert!(Rounded::new(&Instr::parse_default(m).unwrap()).is_none(), "{m}");
    }
}

/// Every pair of `add.rn.bf16` (where f64 cannot always hold the exact sum, so the reference
/// rounds twice), `add.rn.f16`, `mul.rn.bf16` and `sub.rn.sat.f16`: the pre-filter's
/// reference is the judge's primary, so it passes exactly the one allowed number. 300 s for
/// the four on the 2-core development VM in release (a build running beside it).
#[test]
#[ignore]
fn exhaustive_the_reference_is_the_correctly_rounded_result_for_every_pair() {
    for m in ["add.rn.bf16", "add.rn.f16", "mul.rn.bf16", "sub.rn.sat.f16"] {
        let f = Instr::parse_default(m).unwrap();
        let (p, kernel) = (Rounded::new(&f).unwrap(), Kernel::new(&f).unwrap());
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
        let bad: u64 = std::thread::scope(|s| {
            let hs: Vec<_> = (0..threads)
                .map(|t| {
                    let (p, kernel) = (&p, &kernel);
                    s.spawn(move || {
                        let mut bad = 0u64;
                        let (mut a, mut b, c, mut out) = (vec![0u64; 65536], vec![0u64; 65536], vec![0u64; 65536], vec![0u64; 65536]);
                        for hi in (t..65536).step_by(threads as usize) {
                            for lo in 0..65536u64 {
                                a[lo as usize] = lo;
                                b[lo as usize] = hi;
                            }
                            kernel.run_columns(Operands::new(&a, &b, &c), &mut out);
                            for lo in 0..65536usize {
                                let x = (lo as u64 | hi << 16) as u32;
                                let h = out[lo] as u32;
                                bad += (p.judge(x, h) != Verdict::Pass) as u64;
                            }
                        }
                        bad
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum()
        });
        assert_eq!(bad, 0, "{m}: {bad} pairs whose primary the pre-filter keeps");
    }
}
