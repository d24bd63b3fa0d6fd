//! Every legal form (`isa::all_forms`) on every combination of special operands: `eval` never
//! panics, and what it returns keeps the invariants of its modifiers.

use super::*;
use crate::format::FpClass;
use crate::isa::{all_forms, Clamp, Ftz, NanMode};

/// ±0, ±smallest and largest subnormal, ±smallest normal, ±1, ±largest finite, ±inf, a quiet
/// NaN, a signalling NaN (with payload), a negative quiet NaN.
fn specials(s: Scalar) -> Vec<u64> {
    let (bits, frac) = match s {
        Scalar::F16 => (16, 10),
        Scalar::BF16 => (16, 7),
        Scalar::F32 => (32, 23),
        Scalar::F64 => (64, 52),
    };
    let sign = 1u64 << (bits - 1);
    let min_normal = 1u64 << frac;
    let inf = (sign - 1) & !(min_normal - 1);
    let one = (inf >> 1) & !(min_normal - 1);
    let quiet = 1u64 << (frac - 1);
    let mut v = Vec::new();
    for m in [0, 1, min_normal - 1, min_normal, one, inf - 1, inf] {
        v.push(m);
        v.push(m | sign);
    }
    v.extend([inf | quiet, inf | 5, inf | quiet | 3 | sign]);
    v
}

fn outcomes(lane: &LaneExpectation) -> impl Iterator<Item = Outcome> + '_ {
    std::iter::once(lane.primary).chain(lane.alternatives.iter().map(|(o, _)| *o))
}

fn check(instr: &Instr, ops: &[u64]) {
    let e = match eval(instr, ops) {
        // The approximate forms' own invariants are tested in crate::approx.
        Ok(_) if instr.is_approximate() => return,
        Ok(e) => e,
        Err(err) => panic!("{instr} {ops:x?}: {err}"),
    };
    assert!(!instr.is_approximate(), "{instr}: approximate form evaluated");
    let Some(scalar) = e.scalar else {
        assert!(instr.dest_is_predicate(), "{instr}: predicate result");
        assert!(e.primary_bits() <= 1);
        return;
    };
    assert_eq!(scalar, instr.ty.scalar(), "{instr}");
    assert_eq!(e.width(), instr.ty.bits(), "{instr}");
    assert!(e.accepts(e.primary_bits()), "{instr} {ops:x?}: {e}");
    for (i, lane) in e.lanes.iter().enumerate() {
        let lane_ops: Vec<u64> = ops.iter().map(|&v| (v >> (i as u32 * scalar.bits())) & scalar.mask()).collect();
        let any_nan_input = lane_ops.iter().any(|&v| scalar.is_nan(v));
        if instr.nan == NanMode::Propagate && any_nan_input {
            let canonical = scalar.mask() >> 1;
            assert_eq!(*lane, LaneExpectation::exact(canonical), "{instr} {ops:x?}: .NaN gives canonical NaN");
        }
        for o in outcomes(lane) {
            let Outcome::Bits(b) = o else {
                assert!(instr.clamp != Clamp::Sat, "{instr} {ops:x?}: .sat result NaN");
                continue;
            };
            assert_eq!(b & !scalar.mask(), 0, "{instr}: lane bits wider than the lane");
            let class = scalar.classify(b);
            let negative = b >> (scalar.bits() - 1) != 0;
            if instr.ftz == Ftz::Flush && instr.op != Opcode::Copysign {
                assert_ne!(class, FpClass::Subnormal, "{instr} {ops:x?}: .ftz left a subnormal in {e}");
            }
            match instr.clamp {
                Clamp::Sat => {
                    let v = scalar.to_f64(b);
                    assert!((0.0..=1.0).contains(&v), "{instr} {ops:x?}: .sat outside [0, 1] in {e}");
                    assert!(!negative || lane.primary != o, "{instr} {ops:x?}: .sat primary -0.0");
                }
                Clamp::Relu => {
                    assert!(class == FpClass::Nan || !negative || class == FpClass::Zero, "{instr}: .relu negative");
                    if class == FpClass::Nan {
                        assert_eq!(b, scalar.mask() >> 1, "{instr}: .relu NaN must be canonical");
                    }
                }
                Clamp::None => {}
            }
        }
    }
}

#[test]
fn every_form_on_special_operands_keeps_its_invariants() {
    let mut evaluated = 0usize;
    for instr in all_forms() {
        let sp = specials(instr.ty.scalar());
        let lane_bits = instr.ty.scalar().bits();
        // Packed: lane 1 takes the specials in reverse order, so the lanes differ.
        let reg = |i: usize| {
            if instr.ty.lanes() == 2 {
                sp[i] | sp[sp.len() - 1 - i] << lane_bits
            } else {
                sp[i]
            }
        };
        let n = instr.inputs as usize;
        let count = sp.len().pow(n as u32);
        for k in 0..count {
            let ops: Vec<u64> = (0..n).map(|j| reg(k / sp.len().pow(j as u32) % sp.len())).collect();
            check(&instr, &ops);
            evaluated += 1;
        }
    }
    assert!(evaluated > 100_000, "only {evaluated} evaluations");
}

/// Every `cvt` in programs (`isa::conversion::cvt_forms`): the batch kernel has
/// a loop of its own and gives `eval`'s primary on every pair of specials (both lanes of the
/// packed destinations and sources; every element of an fp8 source in both lanes).
#[test]
fn cvt_kernel_loop_gives_the_primary_of_eval_on_every_form() {
    let mut checked = 0;
    for instr in crate::isa::conversion::cvt_forms() {
        let kernel = Kernel::new(&instr).unwrap();
        assert!(kernel.dedicated(), "{instr}");
        let sp = match instr.int_source() {
            // The integer's edges, and bits above its width (an 8-bit source in a .b16).
            Some(t) => [0, 1, 2, 0x7f, 0x80, 0xff, 0x1ff, 0x7fff, 0x8000, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 1 << 24 | 1, u64::MAX, 1 << 63]
                .iter()
                .map(|&v: &u64| if t.reg_bits() == 64 { v } else { v & ((1 << t.reg_bits()) - 1) })
                .collect(),
            // A narrow pair: every element in each lane (the low one counting up, the high
            // down); e2m1x2's .b8 every register value.
            None if instr.narrow_source().is_some_and(|n| n.packed_bits() == 8) => (0..256u64).collect(),
            None if instr.narrow_source().is_some() => (0..256u64).map(|i| i | (255 - i) << 8).collect(),
            // A half pair: the specials in both lanes, the high one shifted along.
            None if instr.src_type().lanes() == 2 => {
                let sp = specials(instr.src_type().scalar());
                sp.iter().enumerate().map(|(k, &a)| a | sp[(k + 1) % sp.len()] << 16).collect()
            }
            None => specials(instr.src_type().scalar()),
        };
        let n = usize::from(instr.inputs);
        let cases: Vec<[u64; 3]> =
            sp.iter().flat_map(|&a| sp.iter().map(move |&b| [a, if n == 2 { b } else { 0 }, 0])).collect();
        let mut out = vec![0; cases.len()];
        kernel.run(&cases, &mut out);
        for (c, got) in cases.iter().zip(&out) {
            assert_eq!(*got, eval(&instr, &c[..n]).unwrap().primary_bits(), "{instr} {:x?}", &c[..n]);
            checked += 1;
        }
    }
    assert!(checked > 40_000, "{checked}");
}

/// Every comparison in programs (`setp`, `set`, `selp`): the batch kernel's loop gives
/// `eval`'s result on every pair of specials (a pair's two lanes differ), with the predicate
/// source both false and true.
#[test]
fn compare_kernel_loop_gives_the_result_of_eval_on_every_form() {
    let mut checked = 0;
    for instr in crate::isa::comparison::compare_forms() {
        let kernel = Kernel::new(&instr).unwrap();
        assert!(kernel.dedicated(), "{instr}");
        let src = instr.src_type();
        let sp = specials(src.scalar());
        let w = src.scalar().bits();
        let value = |k: usize, a: u64| if src.lanes() == 2 { a | sp[(k + 1) % sp.len()] << w } else { a };
        let n = usize::from(instr.inputs);
        let preds: &[u64] = if instr.reads_predicate(2) { &[0, 1] } else { &[0] };
        let cases: Vec<[u64; 3]> = sp
            .iter()
            .enumerate()
            .flat_map(|(k, &a)| sp.iter().enumerate().flat_map(move |(l, &b)| preds.iter().map(move |&p| [value(k, a), value(l, b), p])))
            .collect();
        let mut out = vec![0; cases.len()];
        kernel.run(&cases, &mut out);
        for (c, got) in cases.iter().zip(&out) {
            assert_eq!(*got, eval(&instr, &c[..n]).unwrap().primary_bits(), "{instr} {:x?}", &c[..n]);
            checked += 1;
        }
    }
    assert!(checked > 100_000, "{checked}");
}
