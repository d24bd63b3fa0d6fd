//! The NaNs the interpreter picked itself: end-to-end judging widens a result's expectation to
//! any NaN where an earlier NaN's bits were the interpreter's choice among several allowed
//! (the target's own intermediate NaN is unseen there). Used by `check_impl` in `mod.rs`.

use arrayvec::ArrayVec;
use ptx::interp::{self, Expectation, LaneExpectation, Outcome, Reading};
use ptx::program::Program;

/// The primary values of instruction `j`'s sources on `inputs`, evaluating instructions
/// `0..j` as `Program::run` does without contraction, and whether one of them is a NaN the
/// interpreter picked (see [`reads_undetermined_nan`]). `scratch`: register values and
/// per-instruction flags, reused.
pub(super) fn primary_operands(p: &Program, inputs: &[u64], j: usize, scratch: &mut (Vec<u64>, Vec<bool>)) -> (ArrayVec<u64, 3>, bool) {
    let (vals, und) = scratch;
    vals.clear();
    vals.extend_from_slice(inputs);
    und.clear();
    let k = inputs.len();
    let reads = |und: &[bool], d: usize| p.body()[d].srcs().iter().any(|s| (s.0 as usize).checked_sub(k).is_some_and(|x| und[x]));
    for d in 0..j {
        let stmt = &p.body()[d];
        let ops: ArrayVec<u64, 3> = stmt.srcs().iter().map(|s| vals[s.0 as usize]).collect();
        let e = interp::eval(&stmt.instr, &ops).unwrap_or_else(|e| unreachable!("{e}"));
        let flag = primary_nan(&e) && (several_nans(&e) || reads(und, d));
        und.push(flag);
        vals.push(e.primary_bits());
    }
    (p.body()[j].srcs().iter().map(|s| vals[s.0 as usize]).collect(), reads(und, j))
}

/// More than one NaN allowed in some lane: "any NaN", or a named alternative payload (x86's
/// fma, for one, gives b's NaN before a's: `nan-payload-from-b`).
fn several_nans(e: &Expectation) -> bool {
    let Some(s) = e.scalar else { return false };
    e.lanes.iter().any(|l| {
        let nans = std::iter::once(l.primary).chain(l.alternatives.iter().map(|(o, _)| *o)).filter(|o| match o {
            Outcome::AnyNan => true,
            Outcome::Bits(b) => s.is_nan(*b),
            _ => false,
        });
        nans.clone().any(|o| o == Outcome::AnyNan) || nans.count() > 1
    })
}

/// Whether some lane's primary result is a NaN.
fn primary_nan(e: &Expectation) -> bool {
    let Some(s) = e.scalar else { return false };
    let bits = e.primary_bits();
    (0..e.lanes.len()).any(|l| s.is_nan((bits >> (l as u32 * s.bits())) & s.mask()))
}

/// Whether instruction `j` reads, directly or through earlier results, a NaN whose bits the
/// interpreter chose itself among several allowed: an "any NaN" outcome (f32 and half
/// results, f64 invalid operations) evaluated onward as the canonical NaN, or the primary of
/// several allowed payloads. f64 instructions pass NaN payloads on
/// (9.7.3), so the primary NaN of everything downstream is an artefact of that choice, and in
/// end-to-end mode (where the target's intermediate NaN is unseen) any NaN must be allowed there.
pub(super) fn reads_undetermined_nan(p: &Program, run: &ptx::program::Run, j: usize) -> bool {
    let k = p.inputs().len();
    let mut undetermined = Vec::with_capacity(j);
    let reads = |und: &[bool], d: usize| p.body()[d].srcs().iter().any(|s| (s.0 as usize).checked_sub(k).is_some_and(|x| und[x]));
    for d in 0..j {
        let e = &run.intermediates[d];
        let flag = primary_nan(e) && (several_nans(e) || reads(&undetermined, d));
        undetermined.push(flag);
    }
    reads(&undetermined, j)
}

/// Allow any NaN in the lanes where `got` is a NaN and some NaN was allowed.
pub(super) fn widen_nans(e: &mut Expectation, got: u64) {
    let Some(s) = e.scalar else { return };
    for (l, lane) in e.lanes.iter_mut().enumerate() {
        let v = (got >> (l as u32 * s.bits())) & s.mask();
        let allows_nan = std::iter::once(lane.primary).chain(lane.alternatives.iter().map(|(o, _)| *o)).any(|o| match o {
            Outcome::AnyNan => true,
            Outcome::Bits(b) => s.is_nan(b),
            _ => false,
        });
        if s.is_nan(v) && allows_nan {
            let old = std::mem::replace(lane, LaneExpectation::any_nan());
            *lane = old.or(Outcome::AnyNan, Reading::NanUnspecified);
        }
    }
}
