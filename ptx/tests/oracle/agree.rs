//! The agreement check between `ptx::interp::eval` and the oracle for one case, and the
//! failure report (form, operands and both results in hex).

use ptx::interp::{eval, Expectation, Outcome};
use ptx::isa::Instr;
use ptx::{Format, Scalar, BF16, F16, F32, F64};

use crate::forms::spell;
use crate::model::{oracle, Allowed, Out, Verdict};

/// Three NaN encodings that "any NaN" must all cover: canonical, the default quiet NaN, and
/// a negative quiet NaN with a payload.
fn nan_reps(s: Scalar) -> [u64; 3] {
    fn reps<F: Format>() -> [u64; 3] {
        [F::CANONICAL_NAN, F::INF | F::QUIET_BIT, F::SIGN_MASK | F::INF | F::QUIET_BIT | 1]
    }
    match s {
        Scalar::F16 => reps::<F16>(),
        Scalar::BF16 => reps::<BF16>(),
        Scalar::F32 => reps::<F32>(),
        Scalar::F64 => reps::<F64>(),
    }
}

/// The register holding every lane's primary, NaN lanes as the `k`-th representative.
fn assemble(s: Scalar, lanes: &[Allowed], k: usize) -> u64 {
    lanes.iter().enumerate().fold(0, |acc, (i, l)| {
        let v = match l.primary {
            Out::Bits(b) => b,
            Out::AnyNan => nan_reps(s)[k],
        };
        acc | (v << (i as u32 * s.bits()))
    })
}

fn outcome_in(s: Scalar, mine: &Allowed, o: Outcome) -> bool {
    match o {
        Outcome::Bits(b) => mine.contains(s, b),
        Outcome::AnyNan => mine.allows_any_nan(),
        // The oracle covers the IEEE-exact forms only: a bound-based outcome there is wrong.
        Outcome::Range { .. } | Outcome::Unbounded { .. } => false,
    }
}

/// Compare the interpreter's expectation with the oracle's verdict for one case.
pub fn compare(instr: &Instr, exp: &Expectation, verdict: &Verdict) -> Result<(), String> {
    match verdict {
        Verdict::Pred(p) => {
            let p = *p as u64;
            if exp.scalar.is_some() || exp.lanes.len() != 1 {
                return Err("testp must give one predicate lane".into());
            }
            if !exp.is_primary(p) || exp.accepts(p ^ 1) {
                return Err(format!("predicate should be exactly {p}"));
            }
        }
        Verdict::Lanes(lanes) => {
            let s = instr.ty.scalar();
            if exp.scalar != Some(s) || exp.lanes.len() != lanes.len() {
                return Err(format!("expected {} lane(s) of {}", lanes.len(), s.name()));
            }
            // 1. The interpreter accepts the oracle's result (every NaN encoding where the
            //    oracle allows any NaN).
            let reps = if lanes.iter().any(|l| l.primary == Out::AnyNan) { 3 } else { 1 };
            for k in 0..reps {
                let reg = assemble(s, lanes, k);
                if !exp.accepts(reg) {
                    return Err(format!("interp rejects the oracle's result {reg:#x}"));
                }
            }
            for (i, (mine, theirs)) in lanes.iter().zip(&exp.lanes).enumerate() {
                // 2. The interpreter's primary is a result the oracle allows.
                if !outcome_in(s, mine, theirs.primary) {
                    return Err(format!("lane {i}: interp's primary {:?} is not allowed by the oracle", theirs.primary));
                }
                // 3. Where the oracle finds one definite number, the interpreter lists no
                //    other reading.
                if mine.is_definite() && !matches!(mine.primary, Out::Bits(b) if s.is_nan(b)) {
                    if let Some((o, r)) = theirs.alternatives.iter().find(|(o, _)| !outcome_in(s, mine, *o)) {
                        return Err(format!("lane {i}: interp also allows {o:?} ({}) where the result is unambiguous", r.name()));
                    }
                }
            }
            // 4. No ambiguity: the oracle's result is the interpreter's primary reading.
            if lanes.iter().all(Allowed::is_definite) && !exp.is_primary(assemble(s, lanes, 0)) {
                return Err("the oracle's result is not the interpreter's primary".into());
            }
        }
    }
    Ok(())
}

/// Evaluate and compare one case, describing a failure in full; the oracle's verdict on success.
pub fn check_case(instr: &Instr, regs: &[u64]) -> Result<Verdict, String> {
    let verdict = oracle(instr, regs);
    let describe = |why: String, exp: Option<&Expectation>| {
        let w = (instr.ty.bits() as usize).div_ceil(4);
        let ops: Vec<String> = regs.iter().map(|r| format!("{r:#0w$x}", w = w + 2)).collect();
        let mine = match &verdict {
            Verdict::Pred(p) => format!("{}", *p as u8),
            Verdict::Lanes(l) => l.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(" ; "),
        };
        let theirs = exp.map_or("-".to_string(), |e| e.to_string());
        format!("{} {}: {why}\n    oracle: {mine}\n    interp: {theirs}", spell(instr), ops.join(" "))
    };
    match eval(instr, regs) {
        Err(e) => Err(describe(format!("eval failed: {e}"), None)),
        Ok(exp) => match compare(instr, &exp, &verdict) {
            Ok(()) => Ok(verdict),
            Err(why) => Err(describe(why, Some(&exp))),
        },
    }
}


// Run by the oracle binary only (see `self_tests!` in oracle.rs).
self_tests! {
#[cfg(test)]
mod tests {
    use super::*;
    use ptx::interp::{LaneExpectation, Reading};
    use ptx::isa::{Clamp, Opcode, Type};

    fn lane(o: Out) -> Outcome {
        match o {
            Out::Bits(b) => Outcome::Bits(b),
            Out::AnyNan => Outcome::AnyNan,
        }
    }

    /// The expectation an interpreter that reads the spec exactly as the oracle would return.
    fn mirror(instr: &Instr, regs: &[u64]) -> (Expectation, Verdict) {
        let v = oracle(instr, regs);
        let e = match &v {
            Verdict::Pred(p) => Expectation::predicate(*p),
            Verdict::Lanes(ls) => {
                let l: Vec<LaneExpectation> = ls
                    .iter()
                    .map(|a| {
                        let mut le = LaneExpectation { primary: lane(a.primary), alternatives: Default::default() };
                        for &o in &a.alts {
                            le = le.or(lane(o), Reading::SatKeepsNegativeZero);
                        }
                        le
                    })
                    .collect();
                let s = instr.ty.scalar();
                if l.len() == 2 {
                    Expectation::packed(s, l[0].clone(), l[1].clone())
                } else {
                    Expectation::scalar(s, l[0].clone())
                }
            }
        };
        (e, v)
    }

    #[test]
    fn compare_accepts_an_interpreter_that_reads_like_the_oracle() {
        let mut add = Instr::new(Opcode::Add, Type::F32);
        add.clamp = Clamp::Sat;
        for regs in [[0x3f80_0000u64, 0x3f80_0000], [0x8000_0000, 0x8000_0000], [0x7fc0_0000, 0]] {
            let (e, v) = mirror(&add, &regs);
            assert_eq!(compare(&add, &e, &v), Ok(()));
        }
        let min = Instr::new(Opcode::Min, Type::F16x2);
        let (e, v) = mirror(&min, &[0x7e00_3c00, 0x7e01_4000]);
        assert_eq!(compare(&min, &e, &v), Ok(()));
    }

    #[test]
    fn compare_rejects_a_wrong_or_too_loose_interpreter() {
        let add = Instr::new(Opcode::Add, Type::F32);
        let (mut e, v) = mirror(&add, &[0x3f80_0000, 0x3f80_0000]);
        // Off by one ulp.
        e.lanes[0].primary = Outcome::Bits(0x4000_0001);
        assert!(compare(&add, &e, &v).is_err());
        // Right primary, but a spurious alternative.
        e.lanes[0] = LaneExpectation::exact(0x4000_0000).or(Outcome::Bits(0), Reading::FtzBeforeRounding);
        assert!(compare(&add, &e, &v).is_err());
        // "Any NaN" where the spec gives a number.
        e.lanes[0] = LaneExpectation::any_nan();
        assert!(compare(&add, &e, &v).is_err());
        // A specific NaN where any NaN is allowed: rejects other encodings.
        let (mut e, v) = mirror(&add, &[0x7f80_0000, 0xff80_0000]);
        e.lanes[0] = LaneExpectation::exact(0x7fff_ffff);
        assert!(compare(&add, &e, &v).is_err());
        // testp: the wrong predicate.
        let mut t = Instr::new(Opcode::Testp, Type::F64);
        t.testp = Some(ptx::isa::TestpOp::Normal);
        let (_, v) = mirror(&t, &[0]);
        assert!(compare(&t, &Expectation::predicate(false), &v).is_err());
        assert_eq!(compare(&t, &Expectation::predicate(true), &v), Ok(()));
    }
}
}
