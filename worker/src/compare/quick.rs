//! The judge's quick look at approximate results off the fast path: accepted without building
//! the expectation where every lane is within its documented bound, or where none is
//! documented (its error then recorded as the full expectation would). Used by `check_impl` in
//! `mod.rs`.

use arrayvec::ArrayVec;
use ptx::approx;
use ptx::expect::Undocumented;
use ptx::interp::{self, Expectation};
use ptx::isa::Instr;
use ptx::program::Program;

use super::CompareOptions;

/// The approximate instructions of a program whose results a quick look may accept: each
/// body instruction's [`approx::Form`], looked up once per job, where the instruction is
/// approximate and the profile leaves it the spec's set (unclaimed: `narrow` keeps the set).
/// On a GPU about one approximate result in ten is not the interpreter's primary (it is
/// another value within the bound); building the full expectation for each, with its moves
/// and the form's lookups, was 40 % of the judge's time against GPU-like results (`perf` of
/// `ptxfuzz bench --judge`, 2026-12-04). Any other result gets the expectation `interp::eval`
/// would give, so the verdicts are the same (`compare::tests`).
pub(super) struct QuickApprox(Vec<Option<approx::Form>>);

/// What the quick look makes of a result. Not boxed: `Judge` is moved once, as the
/// `Option<Expectation>` before it was, and boxing would allocate for each judged result.
#[allow(clippy::large_enum_variant)]
pub(super) enum Look {
    /// Accepted; these lanes only for want of a documented bound (what
    /// [`Expectation::undocumented`] lists: their errors are to be recorded).
    Accepted(ArrayVec<Undocumented, 2>),
    /// To be judged against this expectation (`interp::eval`'s).
    Judge(Expectation),
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

    /// The look at instruction `j` (`instr`)'s result `got` on `operands`. `primary` is the
    /// batch path's result of the instruction on these operands (the interpreter's primary):
    /// from it [`approx::Form::accepted_near`] accepts a result well within its bound, or one
    /// where no bound is documented, without evaluating the function (the reference function
    /// was most of the look's time); [`approx::Form::unless_documented`] then decides the rest
    /// without building the expectation for a documented result.
    pub(super) fn look(&self, j: usize, instr: &Instr, operands: &[u64], got: u64, primary: u64) -> Look {
        match self.0.get(j).and_then(Option::as_ref) {
            Some(f) if f.takes(operands) && f.fits(got) => {
                if let Some(undocumented) = f.accepted_near(operands, got, primary) {
                    return Look::Accepted(undocumented);
                }
                f.unless_documented(operands, got).map_or(Look::Accepted(ArrayVec::new()), Look::Judge)
            }
            // The batch run evaluated this instruction on these operands, so eval cannot fail.
            _ => Look::Judge(interp::eval(instr, operands).unwrap_or_else(|e| unreachable!("{e}"))),
        }
    }
}
