//! Random checks of the acceptance model against the independent high-precision reference
//! (`highprec`): the correctly rounded value is always accepted and is the recorded
//! reference; the ends of every accepted range are within the bound; the values just
//! outside are rejected and are beyond the bound. Plus cross-checks with the ISA table.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::highprec::{self, Fx};
use super::reference::{round_nearest, to_f64};
use super::{bounds, eval, BoundKind, Form, Func};
use crate::format::{Format, Scalar, BF16, F16, F32};
use crate::expect::Outcome;
use crate::isa::{Ftz, Instr};

/// The exact value, or "beyond 2^2000" (ex2 of large inputs).
enum Truth {
    Value(Fx),
    Huge,
}

fn fx<F: Format>(bits: u64) -> Fx {
    Fx::from_f64(to_f64::<F>(bits)).expect("format values are exact in Fx")
}

fn truth<F: Format>(func: Func, a: u64, b: u64) -> Truth {
    let x = fx::<F>(a);
    Truth::Value(match func {
        Func::Rcp => Fx::int(1).div(&x),
        Func::DivApprox | Func::DivFull => x.div(&fx::<F>(b)),
        Func::Sqrt => highprec::sqrt(&x),
        Func::Rsqrt => Fx::int(1).div(&highprec::sqrt(&x)),
        Func::Sin => highprec::sin_cos(&x).0,
        Func::Cos => highprec::sin_cos(&x).1,
        Func::Lg2 => highprec::log2(&x),
        Func::Ex2 => match highprec::exp2(&x) {
            Some(v) => v,
            None => return Truth::Huge,
        },
        Func::Tanh => highprec::tanh(&x),
        Func::RcpGross | Func::RsqrtGross => unreachable!(),
    })
}

fn vkey<F: Format>(bits: u64) -> i64 {
    super::accept::vkey::<F>(bits)
}
fn from_vkey<F: Format>(k: i64) -> u64 {
    if k < 0 {
        F::SIGN_MASK | (-k) as u64
    } else {
        k as u64
    }
}

/// T rounded to nearest-even in F, by exact comparison with midpoints.
fn round_exact<F: Format>(t: &Fx) -> u64 {
    let mut k = vkey::<F>(round_nearest::<F>(t.to_f64()));
    let kinf = F::INF as i64;
    let val = |k: i64| -> Fx {
        // Value of key k on the grid continued one step past MAX (the overflow threshold).
        if k.abs() >= kinf {
            let top = fx::<F>(F::MAX_FINITE);
            let ulp = fx::<F>(F::MAX_FINITE).sub(&fx::<F>(F::MAX_FINITE - 1));
            let v = top.add(&ulp);
            if k < 0 {
                Fx(-v.0)
            } else {
                v
            }
        } else {
            fx::<F>(from_vkey::<F>(k))
        }
    };
    let mid = |k: i64| val(k).add(&val(k + 1)).shl(-1); // between k and k+1
    loop {
        if k < kinf && *t > mid(k) || (*t == mid(k) && k & 1 == 1) {
            k += 1;
        } else if k > -kinf && (*t < mid(k - 1) || (*t == mid(k - 1) && k & 1 == 1)) {
            k -= 1;
        } else {
            break;
        }
    }
    let k = k.clamp(-kinf, kinf);
    let r = from_vkey::<F>(k);
    if k == 0 && t.is_negative() {
        F::SIGN_MASK
    } else {
        r
    }
}

struct Tally {
    samples: usize,
    ranges: usize,
    over_bound_ends: usize,
}

/// Check one lane of `form` at operands (a, b); `log2_scale` caches 2^log2 in Fx per row.
fn check_lane<F: Format>(instr: &Instr, form: &Form, a: u64, b: u64, tally: &mut Tally) {
    let ops: Vec<u64> = [a, b][..form.arity].to_vec();
    let e = eval(instr, &ops).unwrap();
    let lane = &e.lanes[0];
    let flush = |v: u64| if form.ftz == Ftz::Flush { F::flush(v) } else { v };
    let (fa, fb) = (flush(a), flush(b));
    let (lo, hi) = match lane.primary {
        Outcome::Range { lo, hi, .. } => (lo, hi),
        Outcome::Bits(v) => (v, v),
        Outcome::Unbounded { .. } => (0, 0),
        Outcome::AnyNan => return,
    };
    // Results fixed by the special-value tables (tested row by row in special_rows) and the
    // NaN of negative inputs are not bounds.
    let special = match form.func {
        Func::DivApprox | Func::DivFull => {
            form.func == Func::DivApprox && super::special::div_large_divisor(fb)
                || F::is_zero(fb)
                || F::is_inf(fa)
                || F::is_inf(fb)
                || F::is_zero(fa) && F::is_zero(fb)
        }
        _ => {
            form.special(super::special::Class::of::<F>(fa)).is_some()
                || F::sign(fa) && matches!(form.func, Func::Sqrt | Func::Rsqrt | Func::Lg2)
        }
    };
    if special {
        return;
    }
    let operand = if form.arity == 2 { fb } else { fa };
    let row = bounds::select(form.rows, to_f64::<F>(operand)).unwrap();
    let Truth::Value(t) = truth::<F>(form.func, fa, fb) else {
        // Beyond 2^2000: only +inf.
        assert_eq!(lane.primary, Outcome::Bits(F::INF), "{instr} {a:#x}");
        return;
    };
    let mut cr = flush(round_exact::<F>(&t));
    if t.0.sign() == num_bigint::Sign::NoSign && form.arity == 2 {
        // An exact zero quotient has the sign of the operands (IEEE 754 6.3).
        cr = F::zero(F::sign(fa) != F::sign(fb));
    }
    tally.samples += 1;
    let ctx = format!("{instr} on {a:#x} {b:#x}: exact {:e}, expectation {e}", t.to_f64());
    assert!(e.accepts(cr), "{ctx}: rejects the correctly rounded {cr:#x}");
    assert_eq!(e.primary_bits(), cr, "{ctx}: recorded reference is not the correctly rounded value");
    if matches!(lane.primary, Outcome::Unbounded { .. }) {
        assert_eq!(row.kind, BoundKind::Undocumented, "{ctx}");
        return;
    }
    tally.ranges += 1;

    // The bound as a predicate on a value of F (None: within; Some(excess) beyond).
    let kinf = F::INF as i64;
    let within = |v: u64, strict: bool| -> bool {
        match row.kind {
            BoundKind::Ulps(n) => {
                let pos_t = if F::is_inf(round_exact::<F>(&t)) {
                    // Steps past 2^(EMAX+1) on the continued grid.
                    let top = fx::<F>(F::MAX_FINITE).add(&fx::<F>(F::MAX_FINITE).sub(&fx::<F>(F::MAX_FINITE - 1)));
                    let spacing = fx::<F>(F::MAX_FINITE).sub(&fx::<F>(F::MAX_FINITE - 1)).shl(1);
                    let k = i64::try_from(t.abs().sub(&top).div(&spacing).round()).unwrap_or(i64::MAX / 4);
                    let p = kinf + k.max(0);
                    if t.is_negative() {
                        -p
                    } else {
                        p
                    }
                } else {
                    vkey::<F>(round_exact::<F>(&t))
                };
                (vkey::<F>(v) - pos_t).abs() <= n as i64
            }
            BoundKind::Abs { log2, .. } | BoundKind::Rel { log2, .. } => {
                if F::is_inf(v) {
                    return false;
                }
                let mut bound = highprec::exp2(&Fx::from_f64(log2).unwrap()).unwrap();
                if matches!(row.kind, BoundKind::Rel { .. }) {
                    bound = bound.mul(&t.abs());
                }
                let d = fx::<F>(v).sub(&t).abs();
                if strict {
                    d <= bound
                } else {
                    // accept.rs widens by 2^-48 (|y| + d): allow 2^-46 here.
                    d <= bound.add(&t.abs().add(&bound).shl(-46))
                }
            }
            BoundKind::Undocumented => true,
        }
    };

    // Ends of the range: within the bound, unless the correctly rounded value itself (kept
    // where the bound is finer than the format) or a zero made by .ftz flushing.
    for v in [lo, hi] {
        let flushed_zero = form.ftz == Ftz::Flush && F::is_zero(v);
        if v == cr || flushed_zero {
            continue;
        }
        assert!(within(v, false), "{ctx}: end {v:#x} is beyond the bound");
        if !within(v, true) {
            tally.over_bound_ends += 1;
            if std::env::var_os("APPROX_DEBUG").is_some() {
                println!("over-bound end {v:#x}: {ctx}");
            }
        }
    }
    // Just outside: the next values (skipping subnormals under .ftz, which are never
    // results) are rejected and beyond the bound.
    let step = |v: u64, up: bool| -> Option<u64> {
        let mut k = F::order_key(v);
        loop {
            k += if up { 1 } else { -1 };
            let bits = if k < 0 { F::SIGN_MASK | (-k - 1) as u64 } else { k as u64 };
            if F::is_nan(bits) {
                return None;
            }
            if !(form.ftz == Ftz::Flush && F::is_subnormal(bits)) {
                return Some(bits);
            }
        }
    };
    for n in [step(lo, false), step(hi, true)].into_iter().flatten() {
        assert!(!e.accepts(n), "{ctx}: accepts {n:#x} just outside the range");
        let same_value_as_end = F::is_zero(n) && (F::is_zero(lo) || F::is_zero(hi));
        if !same_value_as_end {
            assert!(!within(n, true), "{ctx}: rejects {n:#x}, which is within the bound");
        }
    }
}

fn instr(m: &str) -> Instr {
    Instr::parse_default(m).unwrap_or_else(|e| panic!("{m}: {e}"))
}

/// Random operands: raw bits, or values from `pick` (a function of the rng).
fn run<F: Format>(mnemonic: &str, samples: usize, pick: impl Fn(&mut StdRng) -> u64) {
    let i = instr(mnemonic);
    let form = Form::of(&i).unwrap();
    let mut rng = StdRng::seed_from_u64(0x5eed ^ mnemonic.len() as u64);
    let mut tally = Tally { samples: 0, ranges: 0, over_bound_ends: 0 };
    for _ in 0..samples {
        let a = if rng.gen_bool(0.3) { rng.gen::<u64>() & F::MASK } else { pick(&mut rng) };
        let b = if rng.gen_bool(0.3) { rng.gen::<u64>() & F::MASK } else { pick(&mut rng) };
        if F::is_nan(a) || F::is_nan(b) {
            continue;
        }
        check_lane::<F>(&i, &form, a, b, &mut tally);
    }
    assert!(tally.ranges > samples / 4, "{mnemonic}: only {} ranges checked", tally.ranges);
    // Ends beyond the exact bound but inside accept.rs's 2^-48 tolerance (borderline cases
    // decided for acceptance): rare, e.g. tanh near saturation where 1 - 2^-11 sits within
    // 2^-50 of the edge.
    println!(
        "{mnemonic}: {} samples, {} ranges, {} ends beyond the bound by less than the tolerance",
        tally.samples, tally.ranges, tally.over_bound_ends
    );
}

fn f32_in(rng: &mut StdRng, lo: f32, hi: f32) -> u64 {
    rng.gen_range(lo..hi).to_bits() as u64
}

const N: usize = 600;

#[test]
fn rcp_ranges_hold_one_ulp() {
    for m in ["rcp.approx.f32", "rcp.approx.ftz.f32"] {
        run::<F32>(m, N, |r| if r.gen_bool(0.5) { r.gen_range(0..0x0100_0000u64) } else { r.gen_range(0x7e00_0000..0x7f80_0000u64) });
    }
}

#[test]
fn div_ranges_hold_two_ulps() {
    for m in ["div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"] {
        run::<F32>(m, N, |r| {
            let near = [0x0080_0000u64, 0x0100_0000, 0x7e80_0000, 0x7f00_0000, 0x3f80_0000];
            (near[r.gen_range(0..near.len())] + r.gen_range(0..4u64) - 2) | (r.gen::<u64>() & 0x8000_0000)
        });
    }
}

#[test]
fn sqrt_and_rsqrt_ranges_hold_their_relative_bounds() {
    for m in ["sqrt.approx.f32", "sqrt.approx.ftz.f32", "rsqrt.approx.f32", "rsqrt.approx.ftz.f32"] {
        run::<F32>(m, N, |r| r.gen_range(0..0x7f80_0000u64));
    }
}

#[test]
fn sin_and_cos_ranges_hold_their_absolute_bounds() {
    for m in ["sin.approx.f32", "sin.approx.ftz.f32", "cos.approx.f32", "cos.approx.ftz.f32"] {
        run::<F32>(m, N, |r| match r.gen_range(0..4) {
            0 => f32_in(r, -6.3, 6.3),
            1 => f32_in(r, -315.0, 315.0),
            2 => f32_in(r, -1e-30, 1e-30),
            _ => (std::f32::consts::PI * r.gen_range(-100..100) as f32).to_bits() as u64,
        });
    }
}

#[test]
fn lg2_ranges_hold_absolute_then_relative_bounds() {
    for m in ["lg2.approx.f32", "lg2.approx.ftz.f32"] {
        run::<F32>(m, N, |r| match r.gen_range(0..3) {
            0 => f32_in(r, 0.5, 2.0),
            1 => 0x3f80_0000u64.wrapping_add_signed(r.gen_range(-40..40)),
            _ => r.gen_range(0..0x7f80_0000u64),
        });
    }
}

#[test]
fn ex2_ranges_hold_two_ulps() {
    for m in ["ex2.approx.f32", "ex2.approx.ftz.f32"] {
        run::<F32>(m, N, |r| match r.gen_range(0..3) {
            0 => f32_in(r, -155.0, 129.0),
            1 => f32_in(r, -1e-6, 1e-6),
            _ => (r.gen_range(-152..130) as f32).to_bits() as u64,
        });
    }
}

#[test]
fn tanh_f32_ranges_hold_the_relative_bound() {
    run::<F32>("tanh.approx.f32", N, |r| match r.gen_range(0..2) {
        0 => f32_in(r, -10.0, 10.0),
        _ => f32_in(r, -1e-3, 1e-3),
    });
}

#[test]
fn half_ex2_and_tanh_ranges_hold_their_bounds() {
    run::<F16>("ex2.approx.f16", N, |r| r.gen_range(0..0x10000u64));
    run::<F16>("tanh.approx.f16", N, |r| r.gen_range(0..0x10000u64));
    run::<BF16>("ex2.approx.ftz.bf16", N, |r| r.gen_range(0..0x10000u64));
    run::<BF16>("tanh.approx.bf16", N, |r| r.gen_range(0..0x10000u64));
}

#[test]
fn f16_and_bf16_references_never_meet_a_double_rounding_tie() {
    // reference.rs rounds CORE-MATH's f64 value once more for f16/bf16; that is correct
    // unless the f64 value is exactly half-way between two narrow values. Check all inputs.
    fn all<F: Format>(func: Func) {
        for x in 0..=0xffffu64 {
            if F::is_nan(x) || F::is_inf(x) {
                continue;
            }
            let y = super::reference::exact(func, to_f64::<F>(x));
            if !y.is_finite() || y == 0.0 {
                continue;
            }
            let c = round_nearest::<F>(y);
            if F::is_inf(c) {
                continue;
            }
            // An exact result on a tie (2^-25 for ex2 of -25) rounds correctly: only an
            // inexact f64 value on a tie would be a double rounding.
            let exact_result = func == Func::Ex2 && to_f64::<F>(x).fract() == 0.0;
            if exact_result {
                continue;
            }
            let k = vkey::<F>(c);
            for n in [k - 1, k + 1] {
                let m = (to_f64::<F>(c) + to_f64::<F>(from_vkey::<F>(n))) / 2.0;
                assert_ne!(y, m, "{func:?} {} on {x:#x}: f64 value on a tie", F::NAME);
            }
        }
    }
    all::<F16>(Func::Ex2);
    all::<F16>(Func::Tanh);
    all::<BF16>(Func::Ex2);
    all::<BF16>(Func::Tanh);
}

#[test]
fn every_legal_approximate_form_is_modelled_and_nothing_else() {
    let forms = crate::isa::all_forms();
    let mut modelled = 0;
    for i in &forms {
        let ours = Form::of(i).is_some();
        assert_eq!(ours, i.is_approximate(), "{i}");
        modelled += ours as usize;
    }
    // rcp f32 x2 ftz, rcp.ftz.f64, div x4, sqrt x2, rsqrt f32 x2 + f64 x2, sin/cos/lg2/ex2 x2,
    // tanh f32, ex2 half x4, tanh half x4.
    assert_eq!(modelled, 2 + 1 + 4 + 2 + 4 + 8 + 1 + 4 + 4, "{modelled} forms");
}

#[test]
fn packed_lanes_are_independent() {
    let i = instr("ex2.approx.f16x2");
    // lane 0: 2^1 = 2 exactly representable; lane 1: -inf -> +0.
    let e = eval(&i, &[0xfc00_3c00]).unwrap();
    assert!(e.accepts(0x0000_4000));
    assert!(!e.accepts(0x3c00_4000));
    assert_eq!(super::exact_value_lane(&i, &[0xfc00_3c00], 0), Some(2.0));
    assert_eq!(super::exact_value_lane(&i, &[0xfc00_3c00], 1), Some(0.0));
    assert_eq!(super::correctly_rounded(&i, &[0xfc00_3c00]).unwrap(), 0x0000_4000);
}

#[test]
fn the_quick_look_accepts_what_eval_accepts_with_nothing_undocumented_on_every_form() {
    // `Form::unless_documented` is the judge's quick look (`worker::compare::QuickApprox`):
    // it must answer `None` exactly where the full expectation accepts a result and records no
    // undocumented error, and else `eval`'s expectation, or the judge's verdicts would change.
    // Candidates: each lane's primary and the values next to it, the ends of every range and
    // just past them, zeros, NaN, raw bits.
    let mut rng = StdRng::seed_from_u64(0xd0c5);
    let (mut yes, mut unbounded, mut no) = (0, 0, 0);
    for i in crate::isa::all_forms().iter().filter(|i| i.is_approximate()) {
        let form = Form::of(i).unwrap();
        let (w, lanes) = (form.scalar.bits(), form.lanes);
        let reg_mask = if w * lanes >= 64 { u64::MAX } else { (1u64 << (w * lanes)) - 1 };
        for _ in 0..600 {
            let ops: Vec<u64> = (0..form.arity).map(|_| rng.gen::<u64>() & reg_mask).collect();
            let e = eval(i, &ops).unwrap();
            // Per lane: values near what the expectation names, then combined across lanes.
            let near: Vec<Vec<u64>> = e
                .lanes
                .iter()
                .map(|l| {
                    let mut v = vec![0, 1u64 << (w - 1), form.scalar.mask(), rng.gen::<u64>() & form.scalar.mask()];
                    for o in std::iter::once(l.primary).chain(l.alternatives.iter().map(|(o, _)| *o)) {
                        let ends = match o {
                            Outcome::Bits(b) => vec![b],
                            Outcome::Range { lo, hi, reference, .. } => vec![lo, hi, reference],
                            Outcome::Unbounded { reference, .. } => vec![reference],
                            Outcome::AnyNan => vec![],
                        };
                        for b in ends {
                            v.extend([b, b.wrapping_add(1), b.wrapping_sub(1), b.wrapping_add(3), b.wrapping_sub(3)]);
                        }
                    }
                    v.into_iter().map(|b| b & form.scalar.mask()).collect()
                })
                .collect();
            for _ in 0..24 {
                let got = (0..lanes as usize).fold(0u64, |acc, k| {
                    let pick = near[k][rng.gen_range(0..near[k].len())];
                    acc | pick << (k as u32 * w)
                });
                let accepted = e.accepts(got);
                let full = accepted && e.undocumented(got).is_empty();
                assert!(form.takes(&ops) && form.fits(got), "{i}");
                match form.unless_documented(&ops, got) {
                    None => assert!(full, "{i} {ops:x?} got 0x{got:x}: {e:?}"),
                    Some(quick) => assert!(!full && quick == e, "{i} {ops:x?} got 0x{got:x}: {e:?}"),
                }
                match (full, accepted) {
                    (true, _) => yes += 1,
                    (false, true) => unbounded += 1,
                    (false, false) => no += 1,
                }
                // Wrong operand count or a value wider than the register: not for the quick look.
                assert!(!form.takes(&ops[1..]), "{i}");
                if w * lanes < 64 {
                    assert!(!form.fits(got | 1 << (w * lanes)), "{i}");
                    assert!(!form.takes(&ops.iter().map(|&v| v | 1 << (w * lanes)).collect::<Vec<_>>()), "{i}");
                }
            }
        }
    }
    println!("{yes} documented, {unbounded} accepted with no documented bound, {no} rejected");
    assert!(yes > 10_000 && unbounded > 1_000 && no > 10_000);
}

#[test]
fn the_look_near_the_primary_accepts_only_what_the_full_expectation_accepts_on_every_form() {
    // `Form::accepted_near` lets the judge accept a result from the batch path's primary,
    // without the reference function: where it answers, the full expectation must accept the
    // result and list the same undocumented lanes (else the verdicts would change), and it
    // must answer for most results well inside their bound and every one where no bound is
    // documented (else it is no saving). Operands mostly of moderate magnitude (where the
    // bounds are documented), candidates from the primary outwards and at the ends of the
    // accepted range and just past them, where its margin is tested.
    let mut rng = StdRng::seed_from_u64(0x4ea2);
    let (mut decided, mut unbounded, mut left, mut rejected) = (0u64, 0u64, 0u64, 0u64);
    for i in crate::isa::all_forms().iter().filter(|i| i.is_approximate()) {
        let form = Form::of(i).unwrap();
        let (s, lanes) = (form.scalar, form.lanes);
        let w = s.bits();
        let exp_bits = w - 1 - s.frac_bits();
        let bias = (1u64 << (exp_bits - 1)) - 1;
        // Inputs whose results are subnormal or near overflow (ex2), where `.ftz` flushes the
        // primary to a zero that cannot stand for the correctly rounded result.
        let hard: Vec<u64> = [-126.5f64, -130.25, -140.0, -149.5, -15.5, -20.0, -24.5, 127.9, 15.9]
            .iter()
            .map(|&v| match s {
                Scalar::F32 => round_nearest::<F32>(v),
                Scalar::F16 => round_nearest::<F16>(v),
                Scalar::BF16 => round_nearest::<BF16>(v),
                Scalar::F64 => v.to_bits(),
            })
            .collect();
        let lane_value = |rng: &mut StdRng| -> u64 {
            let raw = rng.gen::<u64>() & s.mask();
            match rng.gen_range(0..8) {
                0 | 1 => return raw,
                2 => return hard[rng.gen_range(0..hard.len())],
                _ => {}
            }
            let e = rng.gen_range(bias - 12..=bias + 7);
            raw & !(((1u64 << exp_bits) - 1) << s.frac_bits()) | e << s.frac_bits()
        };
        // Division and the f64 upper-word forms are left to the full look.
        let own_path = matches!(form.func, Func::DivApprox | Func::DivFull | Func::RcpGross | Func::RsqrtGross);
        for _ in 0..400 {
            let ops: Vec<u64> =
                (0..form.arity).map(|_| (0..lanes).fold(0u64, |acc, k| acc | lane_value(&mut rng) << (k * w))).collect();
            let e = eval(i, &ops).unwrap();
            let primary = e.primary_bits();
            let near: Vec<Vec<u64>> = e
                .lanes
                .iter()
                .enumerate()
                .map(|(k, l)| {
                    let p = (primary >> (k as u32 * w)) & s.mask();
                    let mut v: Vec<u64> = [0i64, 1, 2, 3, 5, 8, 13, 40, 200, 2000, 5000]
                        .iter()
                        .flat_map(|&d| [p.wrapping_add(d as u64), p.wrapping_sub(d as u64)])
                        .collect();
                    if let Outcome::Range { lo, hi, .. } = l.primary {
                        v.extend([lo, hi, lo.wrapping_sub(1), hi.wrapping_add(1), lo.wrapping_add(1), hi.wrapping_sub(1)]);
                    }
                    v.extend([s.mask(), 0, 1, 1u64 << (w - 1), 1u64 << (w - 1) | 1]);
                    v.into_iter().map(|b| b & s.mask()).collect()
                })
                .collect();
            for _ in 0..40 {
                let got = (0..lanes as usize).fold(0u64, |acc, k| acc | near[k][rng.gen_range(0..near[k].len())] << (k as u32 * w));
                if got == primary {
                    // The judge's fast path takes these.
                    continue;
                }
                let quick = form.accepted_near(&ops, got, primary);
                let why = || format!("{i} {ops:x?} got 0x{got:x} primary 0x{primary:x}: {e:?}");
                if let Some(u) = &quick {
                    assert!(e.accepts(got), "{}", why());
                    assert_eq!(u, &e.undocumented(got), "{}", why());
                }
                match (quick, e.accepts(got)) {
                    (Some(u), _) if u.is_empty() => decided += 1,
                    (Some(_), _) => unbounded += 1,
                    (None, true) if e.undocumented(got).is_empty() || own_path => left += 1,
                    (None, true) => panic!("an accepted result with no documented bound is left to the full look: {}", why()),
                    (None, false) => rejected += 1,
                }
            }
        }
    }
    println!("{decided} documented and {unbounded} undocumented decided near the primary, {left} documented but left to the full look, {rejected} rejected");
    // Two thirds of the documented candidates (2026-12-04: 83,842 of 127,016, and 14,695
    // undocumented); most of the rest sit at the very ends of their range (placed there on
    // purpose), or are results of `div` and the f64 upper-word forms, left to the full look.
    assert!(decided > 50_000 && decided > left && unbounded > 10_000 && rejected > 50_000);
}
