//! The interpreter against the independent oracle of the tests (ptx/tests/oracle/, included by
//! path, unchanged): an arbitrary IEEE-rounded form of the 14 oracle families (the oracle's
//! table plus the ptxas-only forms of `ptx::isa`) on arbitrary operands, compared by the
//! oracle suite's own `check_case` (the interpreter accepts the oracle's result, its primary is
//! one the oracle allows, it lists no extra reading where the result is unambiguous).
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use ptx::isa::Instr;

/// The oracle modules' unit tests run in the oracle test binary, not here.
macro_rules! self_tests {
    ($($t:tt)*) => {};
}

#[path = "../../ptx/tests/oracle/agree.rs"]
#[allow(dead_code)]
mod agree;
#[path = "../../ptx/tests/oracle/apf.rs"]
#[allow(dead_code)]
mod apf;
#[path = "../../ptx/tests/oracle/exact.rs"]
#[allow(dead_code)]
mod exact;
#[path = "../../ptx/tests/oracle/forms.rs"]
#[allow(dead_code)]
mod forms;
#[path = "../../ptx/tests/oracle/model.rs"]
#[allow(dead_code)]
mod model;

/// Every form the oracle suite tests, in its order.
fn all_forms() -> &'static [Instr] {
    static FORMS: OnceLock<Vec<Instr>> = OnceLock::new();
    FORMS.get_or_init(|| {
        let mut v = Vec::new();
        for op in forms::FAMILIES {
            for ty in forms::types(op) {
                for n in forms::arities(op, ty) {
                    v.extend(forms::tested(op, ty, n));
                }
            }
        }
        v
    })
}

/// The operands of a form: raw bits each (which libFuzzer's comparison tracing steers well),
/// or the program generator's values, by the input's choice: 3/4 from the special list, and an
/// operand after the first repeats an earlier one (same, negated or one ulp away) with odds
/// 1/4, which gives the squares, cancellations and near-ties the special cases hide behind.
fn case(data: &[u8]) -> Result<(Instr, [u64; 3])> {
    let mut u = Unstructured::new(data);
    let forms = all_forms();
    let instr = forms[u.choose_index(forms.len())?];
    let n = instr.inputs as usize;
    let mut regs = [0u64; 3];
    if u.arbitrary()? {
        let mask = if instr.ty.bits() == 64 { u64::MAX } else { (1 << instr.ty.bits()) - 1 };
        for r in regs.iter_mut().take(n) {
            *r = u.arbitrary::<u64>()? & mask;
        }
    } else {
        let mut out = Vec::with_capacity(3);
        ptx::gen::case_into(&mut u, &[ptx::program::ValType::Float(instr.ty); 3][..n], 49152, 16384, &mut out)?;
        regs[..n].copy_from_slice(&out);
    }
    Ok((instr, regs))
}

/// Beyond `check_case`, which checks the oracle's primary reading is accepted: every other
/// reading the oracle allows is accepted too (in its lane, the other lanes at the
/// interpreter's primary), so a reading the interpreter leaves out is found.
fn check_alternatives(instr: &Instr, regs: &[u64], verdict: &model::Verdict) {
    let model::Verdict::Lanes(lanes) = verdict else { return };
    let exp = ptx::interp::eval(instr, regs).expect("check_case evaluated it");
    let s = instr.ty.scalar();
    let w = s.bits();
    for (i, lane) in lanes.iter().enumerate() {
        for alt in &lane.alts {
            let bits = match alt {
                model::Out::Bits(b) => *b,
                // A quiet NaN with every fraction bit set, as `primary_bits` writes "any NaN".
                model::Out::AnyNan => s.mask() >> 1,
            };
            if known_gap(instr, &exp, i, bits) {
                continue;
            }
            let shift = i as u32 * w;
            let reg = exp.primary_bits() & !(s.mask() << shift) | bits << shift;
            assert!(
                exp.accepts(reg),
                "{instr} {regs:#x?}: lane {i}: the oracle also allows {alt:?} ({lane}), the interpreter does not: {exp}"
            );
        }
    }
}

/// Readings the oracle allows and the interpreter leaves out, known and reported
/// (docs/fuzzing.md, "Found"); the lead decides which side changes.
/// 1. `.ftz` before rounding *and* a clamp that keeps -0.0, e.g. `mul.rn.ftz.sat.f16 0x87ff,
///    0x3800` (the exact product rounds to -2^-14 but lies below the smallest normal; flushed
///    first it is -0.0, which `.sat` may keep) or `fma.rn.ftz.relu.f16`: the interpreter lists
///    each open question's reading alone, not the two together (its lane: +0.0 only).
/// 2. `copysign.f64` with a signalling NaN b: the oracle also allows it quieted; the
///    interpreter (docs/semantics.md question 12) returns b's bits with a's sign only.
fn known_gap(instr: &Instr, exp: &ptx::interp::Expectation, lane: usize, bits: u64) -> bool {
    let s = instr.ty.scalar();
    let ftz_and_clamp = bits == 1 << (s.bits() - 1)
        && instr.ftz == ptx::isa::Ftz::Flush
        && instr.clamp != ptx::isa::Clamp::None
        && exp.lanes[lane].primary == ptx::interp::Outcome::Bits(0);
    let copysign_quiets = instr.op == ptx::isa::Opcode::Copysign && s == ptx::Scalar::F64 && s.is_nan(bits);
    ftz_and_clamp || copysign_quiets
}

fuzz_target!(|data: &[u8]| {
    let Ok((instr, regs)) = case(data) else { return };
    let regs = &regs[..instr.inputs as usize];
    match agree::check_case(&instr, regs) {
        Ok(verdict) => check_alternatives(&instr, regs, &verdict),
        Err(msg) => panic!("interpreter and oracle disagree:\n{msg}"),
    }
});
