//! setp, set and selp: the Floating Point Notes' table entry by entry, every operator against
//! Rust's IEEE comparisons over every pair of a set of f16 and f32 edge values, integer and
//! bit-size comparisons, the destination encodings, spellings, rules and requirements.

use super::*;

fn form(s: &str) -> Compare {
    Compare::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn setp(s: &str, ops: &[u64]) -> (bool, bool) {
    match eval(&form(s), ops).unwrap() {
        Compared::Predicates { p, q } => (p, q.unwrap_or(!p)),
        other => panic!("{s}: {other:?}"),
    }
}

fn reg(s: &str, ops: &[u64]) -> u64 {
    match eval(&form(s), ops).unwrap() {
        Compared::Register { bits, .. } => bits,
        other => panic!("{s}: {other:?}"),
    }
}

/// The operator by Rust's IEEE comparisons (the partial order: false for any NaN) and the
/// Notes' definitions of the unordered ones, num and nan.
fn by_rust(op: CmpOp, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => !unordered && a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Equ => unordered || a == b,
        CmpOp::Neu => unordered || a != b,
        CmpOp::Ltu => unordered || a < b,
        CmpOp::Leu => unordered || a <= b,
        CmpOp::Gtu => unordered || a > b,
        CmpOp::Geu => unordered || a >= b,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
        CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs => unreachable!("unsigned only"),
    }
}

/// An f16's value from its fields (not through the crate's formats).
fn f16_value(x: u64) -> f64 {
    let sign = if x >> 15 & 1 == 1 { -1.0 } else { 1.0 };
    let (e, f) = ((x >> 10) & 0x1f, (x & 0x3ff) as f64);
    match e {
        0 => sign * f * 2f64.powi(-24),
        31 if f == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + f / 1024.0) * 2f64.powi(e as i32 - 15),
    }
}

const F32_EDGES: [u32; 14] = [
    0, 0x8000_0000, 1, 0x8000_0001, 0x007f_ffff, 0x0080_0000, 0x3f80_0000, 0xbf80_0000, 0x7f7f_ffff, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffff_ffff, 0x7f80_0001,
];

#[test]
fn every_float_operator_agrees_with_ieee_comparison_on_every_pair_of_edges() {
    let float_ops = CmpOp::ALL.into_iter().filter(|o| !o.unsigned_only());
    for op in float_ops {
        let s = format!("setp.{}.f32", op.name());
        for &a in &F32_EDGES {
            for &b in &F32_EDGES {
                let want = by_rust(op, f32::from_bits(a) as f64, f32::from_bits(b) as f64);
                assert_eq!(setp(&s, &[a as u64, b as u64]), (want, !want), "{s} {a:#x} {b:#x}");
            }
        }
        // Every pair of f16 values of a stride, both lanes of the packed form.
        let s = format!("setp.{}.f16x2", op.name());
        for a in (0..1u64 << 16).step_by(251) {
            for b in (0..1u64 << 16).step_by(509) {
                let v = f16_value;
                let want = by_rust(op, v(a), v(b));
                let (p, q) = setp(&s, &[a | 0x3c00 << 16, b | 0x3c00 << 16]);
                assert_eq!(p, want, "{s} low lane {a:#x} {b:#x}");
                assert_eq!(q, by_rust(op, 1.0, 1.0), "{s} high lane");
            }
        }
    }
}

#[test]
fn the_floating_point_notes_hold_entry_by_entry() {
    let nan = 0x7fc0_0000u64;
    // Ordered with a NaN: false, ne included.
    assert_eq!(setp("setp.ne.f32", &[nan, 0x3f80_0000]), (false, true));
    assert_eq!(setp("setp.eq.f32", &[nan, nan]), (false, true));
    // Unordered with a NaN: true.
    assert!(setp("setp.equ.f32", &[nan, 0]).0);
    assert!(setp("setp.ltu.f64", &[0x7ff8_0000_0000_0000, 0]).0);
    // num and nan.
    assert!(setp("setp.num.f32", &[0x3f80_0000, 0]).0);
    assert_eq!(setp("setp.num.f32", &[nan, 0]).0, false);
    assert_eq!(setp("setp.nan.bf16", &[0x7fc1, 0]).0, true);
    // -0 equals +0.
    assert_eq!(setp("setp.eq.f32", &[0x8000_0000, 0]).0, true);
    // .ftz: a subnormal equals zero, without it it does not.
    assert_eq!(setp("setp.eq.f32", &[1, 0]).0, false);
    assert_eq!(setp("setp.eq.ftz.f32", &[1, 0]).0, true);
    assert_eq!(setp("setp.gt.ftz.f16", &[1, 0]).0, false);
    assert_eq!(setp("setp.gt.f16", &[1, 0]).0, true);
    // BoolOp: p = BoolOp(t, c), q = BoolOp(!t, c).
    assert_eq!(setp("setp.lt.and.f32", &[0, 0x3f80_0000, 1]), (true, false));
    assert_eq!(setp("setp.lt.and.f32", &[0, 0x3f80_0000, 0]), (false, false));
    assert_eq!(setp("setp.lt.xor.f32", &[0, 0x3f80_0000, 1]), (false, true));
    assert_eq!(setp("setp.ge.or.f32", &[0, 0x3f80_0000, 1]), (true, true));
    // The scalar half forms write p only.
    assert_eq!(eval(&form("setp.lt.f16"), &[0, 0x3c00]).unwrap(), Compared::Predicates { p: true, q: None });
    // Packed: p the low lane, q the high lane, each combined with c.
    assert_eq!(setp("setp.lt.f16x2", &[0x3c00_0000, 0x0000_3c00]), (true, false));
    assert_eq!(setp("setp.lt.or.bf16x2", &[0x3f80_0000, 0x0000_3f80, 1]), (true, true));
}

#[test]
fn integer_and_bit_size_comparisons_use_their_types_order() {
    assert_eq!(setp("setp.lt.s32", &[0xffff_ffff, 0]).0, true, "-1 < 0 signed");
    assert_eq!(setp("setp.lt.u32", &[0xffff_ffff, 0]).0, false, "0xffffffff > 0 unsigned");
    assert_eq!(setp("setp.lo.u16", &[1, 2]).0, true);
    assert_eq!(setp("setp.hs.u64", &[u64::MAX, 1]).0, true);
    assert_eq!(setp("setp.eq.b16", &[0x1_0005, 5]).0, true, "only the type's bits count");
    assert_eq!(setp("setp.ne.b64", &[1, 2]).0, true);
}

#[test]
fn set_writes_each_destination_types_true_and_false() {
    assert_eq!(reg("set.lt.u32.f32", &[0, 0x3f80_0000]), 0xffff_ffff);
    assert_eq!(reg("set.lt.s32.f64", &[0x3ff0_0000_0000_0000, 0]), 0);
    assert_eq!(reg("set.lt.f32.s32", &[0xffff_ffff, 0]), 0x3f80_0000, "1.0f");
    assert_eq!(reg("set.eq.f16.f16", &[0x3c00, 0x3c00]), 0x3c00);
    assert_eq!(reg("set.eq.bf16.f32", &[0, 0x8000_0000]), 0x3f80);
    assert_eq!(reg("set.gt.u16.f16", &[0x3c00, 0]), 0xffff);
    assert_eq!(reg("set.gt.s32.bf16", &[0x3f80, 0]), 0xffff_ffff);
    // Packed sources: one 16-bit lane per comparison.
    assert_eq!(reg("set.lt.f16x2.f16x2", &[0x3c00_0000, 0x0000_3c00]), 0x0000_3c00);
    assert_eq!(reg("set.lt.u32.f16x2", &[0x3c00_0000, 0x0000_3c00]), 0x0000_ffff);
    assert_eq!(reg("set.equ.bf16x2.bf16x2", &[0x7fc0_3f80, 0x0000_3f80]), 0x3f80_3f80);
    assert_eq!(reg("set.num.xor.s32.bf16", &[0x3f80, 0, 1]), 0, "num is true, xor with 1");
}

#[test]
fn selp_picks_a_when_c_is_true() {
    assert_eq!(reg("selp.f32", &[0x3f80_0000, 0x4000_0000, 1]), 0x3f80_0000);
    assert_eq!(reg("selp.f64", &[1, 2, 0]), 2);
    assert_eq!(reg("selp.b16", &[0x1_0001, 2, 1]), 1);
}

#[test]
fn documented_spellings_parse_back_and_undocumented_ones_name_their_rule() {
    let all = Compare::all();
    for c in &all {
        assert_eq!(&Compare::parse(&c.to_string()).unwrap(), c, "{c}");
    }
    assert!(all.len() > 1000, "{}", all.len());
    let rule = |s: &str| match Compare::parse(s) {
        Err(CompareError::Illegal { rule, section, .. }) => format!("{rule} ({section})"),
        other => panic!("{s}: {other:?}"),
    };
    assert!(rule("setp.lo.s32").contains("For unsigned values"));
    assert!(rule("setp.lt.b32").contains("bit-size comparisons are eq and ne"));
    assert!(rule("setp.ltu.s32").contains("unordered"));
    assert!(rule("setp.lt.ftz.f64").contains(".ftz applies only to .f32"));
    assert!(rule("setp.lt.ftz.bf16").contains("never on a .bf16 line"));
    assert!(rule("set.lt.ftz.bf16.f32").contains("never on a .bf16 line"));
    assert!(rule("set.lt.ftz.f16.f64").contains("ptxas 13.5 also refuses"));
    assert_eq!(form("set.lt.ftz.f16.f32").to_string(), "set.lt.ftz.f16.f32");
    assert!(rule("set.lt.f32.f16").contains("set.dtype.stype"));
    assert!(rule("set.lt.f16.bf16").contains("9.7.7.1"));
    assert!(rule("selp.f16").contains(".type = "));
    assert!(rule("setp.f32").contains("comparison operator"));
    assert!(matches!(Compare::parse("setp.lt.f32.f32"), Err(CompareError::Spelling { .. })));
    assert!(matches!(Compare::parse("setp.lt.f8"), Err(CompareError::Spelling { .. })));
    assert!(matches!(eval(&form("setp.lt.and.f32"), &[0, 0]), Err(CompareError::Operands { want: 3, got: 2, .. })));
}

#[test]
fn half_forms_need_sm_53_and_bf16_ones_sm_90() {
    assert_eq!(form("setp.lt.f32").requirement().sm, 20);
    assert_eq!(form("setp.lt.f16x2").requirement().ptx, PtxVersion::new(4, 2));
    assert_eq!(form("set.lt.u32.f16x2").requirement().ptx, PtxVersion::new(6, 5));
    assert_eq!(form("set.lt.bf16.f32").requirement().sm, 90);
    assert_eq!(form("setp.lt.bf16x2").requirement().sm, 90);
    let t = Target::new(80, PtxVersion::new(8, 0));
    assert!(form("setp.lt.bf16").check_target(t).is_err());
    assert!(form("setp.lt.f16").check_target(t).is_ok());
}

/// A bf16's value: the upper half of an f32 (not through the crate's formats).
fn bf16_value(x: u64) -> f64 {
    f32::from_bits((x as u32) << 16) as f64
}

/// The 16-bit setp forms checked pair by pair: the type suffix, its value function, `.ftz`.
const HALF_FORMS: [(&str, fn(u64) -> f64, bool); 3] = [("f16", f16_value, false), ("ftz.f16", f16_value, true), ("bf16", bf16_value, false)];

/// Every `b` against each `a` of `rows` for every float operator of each 16-bit form, on every
/// core: `p` as Rust's IEEE comparison of the values (`.ftz`: subnormals as zero, 9.7.7.2
/// "subnormal source operands are flushed to sign-preserving zero").
fn check_half_rows(rows: &[u64]) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    for (ty, value, ftz) in HALF_FORMS {
        let flushed = move |x: u64| {
            let v = value(x);
            if ftz && v != 0.0 && v.abs() < 2f64.powi(-14) {
                0.0
            } else {
                v
            }
        };
        let bs: Vec<f64> = (0..1u64 << 16).map(flushed).collect();
        for op in CmpOp::ALL.into_iter().filter(|o| !o.unsigned_only()) {
            let c = form(&format!("setp.{}.{ty}", op.name()));
            std::thread::scope(|s| {
                for t in 0..threads {
                    let (c, bs) = (&c, &bs);
                    s.spawn(move || {
                        for &a in rows.iter().skip(t).step_by(threads) {
                            let va = flushed(a);
                            for (b, &vb) in bs.iter().enumerate() {
                                let Ok(Compared::Predicates { p, .. }) = eval(c, &[a, b as u64]) else { panic!("{c}: not predicates") };
                                assert_eq!(p, by_rust(op, va, vb), "{c} {a:#06x} {b:#06x}");
                            }
                        }
                    });
                }
            });
        }
    }
}

#[test]
fn every_16_bit_value_compares_as_ieee_against_each_edge_for_every_operator() {
    // Zeros, the subnormal and normal bounds, one, the largest finite, infinities and NaNs
    // (quiet, signalling, negative) of f16 and of bf16, both signs.
    let f16_edges = [0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0x7c00, 0x7c01, 0x7e00, 0x7fff];
    let bf16_edges = [0x0001, 0x007f, 0x0080, 0x3f80, 0x7f7f, 0x7f80, 0x7f81, 0x7fc0];
    let rows: Vec<u64> = f16_edges.iter().chain(&bf16_edges).flat_map(|&e| [e, e | 0x8000]).collect();
    check_half_rows(&rows);
}

#[test]
#[ignore = "every pair of 16-bit values, 14 operators, three forms: 36 CPU-minutes, about 19 minutes on 2 cores (passed 2026-11-27, and 2026-12-01 with the Comparator)"]
fn every_pair_of_16_bit_values_compares_as_ieee_for_every_operator() {
    let rows: Vec<u64> = (0..1u64 << 16).collect();
    check_half_rows(&rows);
}
