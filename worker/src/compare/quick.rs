//! The judge's quick look at approximate results off the fast path: accepted without building
//! the expectation where every lane is within its documented bound. Used by `check_impl` in
//! `mod.rs`.

use ptx::approx;
use ptx::interp::Expectation;
use ptx::program::Program;

use super::CompareOptions;

/// The approximate instructions of a program whose results a quick look may accept: each
/// body instruction's [`approx::Form`], looked up once per job, where the instruction is
/// approximate and the profile leaves it the spec's set (unclaimed: `narrow` keeps the set).
/// On a GPU about one approximate result in ten is not the interpreter's primary (it is
/// another value within the bound); [`approx::Form::unless_documented`] accepts those
/// without building the full expectation, which with its moves and the form's lookups was
/// 40 % of the judge's time against GPU-like results (`perf` of `ptxfuzz bench --judge`,
/// 2026-12-04). Any other result gets the expectation `interp::eval` would give, so the
/// verdicts are the same (`compare::tests`).
pub(super) struct QuickApprox(Vec<Option<approx::Form>>);

/// What the quick look concluded about one result. Returned and matched at once, so the large
/// variant is not boxed (a box would be an allocation per result judged).
#[allow(clippy::large_enum_variant)]
pub(super) enum Look {
    /// Accepted, nothing to record.
    Documented,
    /// Judge it against this expectation (`interp::eval`'s).
    Expected(Expectation),
    /// Not an approximate form the quick look takes: evaluate it.
    Eval,
}

impl QuickApprox {
    pub(super) fn of(p: &Program, opts: &CompareOptions) -> QuickApprox {
        QuickApprox(
            p.body().iter().map(|s| approx::Form::of(&s.instr).filter(|_| !opts.claims(&s.instr))).collect(),
        )
    }

    /// No quick look: every result off the fast path gets `interp::eval`.
    #[cfg(test)]
    pub(super) fn none() -> QuickApprox {
        QuickApprox(Vec::new())
    }

    /// Instruction `j`'s result `got` on `operands`, looked at.
    pub(super) fn look(&self, j: usize, operands: &[u64], got: u64) -> Look {
        match self.0.get(j).and_then(Option::as_ref) {
            Some(f) if f.takes(operands) && f.fits(got) => match f.unless_documented(operands, got) {
                None => Look::Documented,
                Some(e) => Look::Expected(e),
            },
            _ => Look::Eval,
        }
    }
}
