//! Hardware profiles: where the PTX ISA allows a set of results, a profile picks the one a given GPU gives.
//!
//! `Profile::Spec` keeps the interpreter's full set. A hardware profile is data (`ptx/profiles/*.json`):
//! one row per decision, naming the `Reading` it takes or rejects, the forms it applies to, the
//! hardware evidence and the spec section. A new GPU is a new file, not new code.

pub mod approx_model;
pub mod bipartite;
pub mod cvt_nan;
pub mod mufu;
mod table;
mod tininess;
#[cfg(test)]
mod dense_tests;
#[cfg(test)]
mod tests;

pub use approx_model::ApproxModel;
pub use cvt_nan::{CvtNan, CvtNanRow};
pub use table::{HardwareProfile, Rule};

use crate::expect::{EvalError, Expectation, Outcome, Reading};
use crate::isa::Instr;

/// Which results to answer with.
#[derive(Clone, Debug)]
pub enum Profile {
    /// The full set the PTX ISA allows (the interpreter's own answer).
    Spec,
    /// The results one GPU gives.
    Hardware(HardwareProfile),
}

/// The answer under a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Exactly these register bits.
    One(u64),
    /// A set: the spec profile, or an approximate form the hardware profile has no
    /// bit-exact model of (`HardwareProfile::approx_model` says whether a partial one exists).
    Set(Expectation),
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("unknown profile '{0}': use one of spec, sm_90")]
    Unknown(String),
    #[error("profile file {name} is malformed: {message}; fix the JSON in ptx/profiles/")]
    Malformed { name: String, message: String },
}

impl Profile {
    /// A profile by name: `spec` or a file under `ptx/profiles/` (`sm_90`).
    pub fn named(name: &str) -> Result<Profile, ProfileError> {
        match name {
            "spec" => Ok(Profile::Spec),
            "sm_90" => Ok(Profile::Hardware(HardwareProfile::from_json("sm_90", include_str!("../../profiles/sm_90.json"))?)),
            other => Err(ProfileError::Unknown(other.to_string())),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Profile::Spec => "spec",
            Profile::Hardware(h) => &h.name,
        }
    }

    /// Whether the profile claims one result for every case of `instr`: every IEEE-rounded
    /// and non-rounding form, and the approximate forms with a bit-exact model.
    pub fn claims(&self, instr: &Instr) -> bool {
        match self {
            Profile::Spec => false,
            Profile::Hardware(h) => !instr.is_approximate() || exact_model(h, instr).is_some(),
        }
    }

    /// Narrow the interpreter's answer `exp` for `instr` to this profile's.
    pub fn resolve(&self, instr: &Instr, operands: &[u64], exp: &Expectation) -> Resolved {
        let hw = match self {
            Profile::Spec => return Resolved::Set(exp.clone()),
            Profile::Hardware(h) if !instr.is_approximate() => h,
            Profile::Hardware(h) => {
                return match exact_model(h, instr) {
                    Some((model, form)) => Resolved::One(modelled(h, model, &form, operands)),
                    None => Resolved::Set(exp.clone()),
                }
            }
        };
        let form = instr.to_string();
        let Some(scalar) = exp.scalar else {
            // A predicate or integer is one value.
            return match exp.narrow {
                Some(n) => narrow(hw, &form, n, exp),
                None => Resolved::One(exp.primary_bits()),
            };
        };
        // A float-to-float cvt of a NaN: the profile's `cvt_nan` row (the section leaves the NaN open).
        let cvt_nan = cvt_nan::Site::of(instr).and_then(|site| hw.cvt_nan_row(&form).map(|row| (site, row.result)));
        let mut out = 0u64;
        for (i, lane) in exp.lanes.iter().enumerate() {
            let lane_op = |k: usize| (operands[k] >> (i as u32 * scalar.bits())) & scalar.mask();
            let takes = |r: Reading| match hw.rule_for(&form, r) {
                Some(rule) if rule.take => match rule.when.as_deref() {
                    None => true,
                    Some(_) => {
                        let mode = instr.precision.rounding().unwrap_or(crate::rounding::Rounding::Rn);
                        // mul is an fma with c = 0 (the sign of that zero cannot make a result tiny).
                        let c = if operands.len() == 3 { lane_op(2) } else { 0 };
                        operands.len() >= 2
                            && tininess::fma_tiny_unbounded(scalar, mode, lane_op(0), lane_op(1), c) == Some(true)
                    }
                },
                _ => false,
            };
            let taken = lane.alternatives.iter().find(|(_, r)| takes(*r)).map(|(o, _)| *o);
            let chosen = taken.unwrap_or(lane.primary);
            let nan = match chosen {
                Outcome::AnyNan => true,
                Outcome::Bits(b) => scalar.is_nan(b),
                _ => false,
            };
            if let (true, Some((site, rule))) = (nan, cvt_nan) {
                // A packed destination's upper lane comes from `a`, the first operand.
                let (src, _, packed) = site.formats();
                let x = operands[if packed { 1 - i } else { 0 }] & src.mask();
                if let Some(bits) = Some(x).filter(|&x| src.is_nan(x)).and_then(|x| rule.result(&site, x, |s| hw.canonical_nan(s))) {
                    out |= bits << (i as u32 * scalar.bits());
                    continue;
                }
            }
            if nan && scalar == crate::format::Scalar::F64 {
                if let Some(b) = hw.f64_nan_result(instr.op.name(), operands) {
                    out |= b;
                    continue;
                }
            }
            let bits = match chosen {
                Outcome::Bits(b) => b,
                Outcome::AnyNan => hw.canonical_nan(scalar),
                Outcome::Range { .. } | Outcome::Unbounded { .. } => return Resolved::Set(exp.clone()),
            };
            out |= bits << (i as u32 * scalar.bits());
        }
        Resolved::One(out)
    }
}

/// An 8-bit-or-narrower result (`cvt` to `.e4m3x2`, ...): each element's primary, the rule
/// table deciding `.relu`'s -0.0, the profile's NaN of the format an unspecified NaN; the
/// spec's set where the profile has no NaN for the format (no recording of it).
fn narrow(hw: &HardwareProfile, form: &str, n: crate::narrow_format::Narrow, exp: &Expectation) -> Resolved {
    // Each element in its slot (a 6-bit element in 8 bits), as `Expectation::lane_bits`.
    let width = n.slot_bits();
    let mut out = 0u64;
    for (i, lane) in exp.lanes.iter().enumerate() {
        let taken = lane.alternatives.iter().find(|(_, r)| hw.rule_for(form, *r).is_some_and(|rule| rule.take));
        let bits = match taken.map_or(lane.primary, |(o, _)| *o) {
            Outcome::Bits(b) => b,
            Outcome::AnyNan => match hw.narrow_nan(n) {
                Some(b) => b,
                None => return Resolved::Set(exp.clone()),
            },
            Outcome::Range { .. } | Outcome::Unbounded { .. } => return Resolved::Set(exp.clone()),
        };
        out |= bits << (i as u32 * width);
    }
    Resolved::One(out)
}

/// The bit-exact model `hw` has of `instr`, with the approximate form it runs on.
fn exact_model<'a>(hw: &'a HardwareProfile, instr: &Instr) -> Option<(&'a ApproxModel, crate::approx::Form)> {
    let form = crate::approx::Form::of(instr)?;
    let model = hw.exact_model(&instr.to_string())?;
    // A row whose evaluator cannot run this form (an f32 lane) is not a claim.
    model.runs_on(&form).then_some((model, form))
}

/// Every lane of `operands` through `model`.
fn modelled(hw: &HardwareProfile, model: &ApproxModel, form: &crate::approx::Form, operands: &[u64]) -> u64 {
    let w = form.scalar.bits();
    let nan = hw.canonical_nan(form.scalar);
    (0..form.lanes).fold(0, |out, i| {
        let mut lane = [0u64; 2];
        for (k, op) in operands.iter().take(form.arity).enumerate() {
            lane[k] = (op >> (i * w)) & form.scalar.mask();
        }
        out | model.lane(form, &lane[..form.arity], nan).expect("exact_model checked the form") << (i * w)
    })
}

/// Evaluate `instr` and narrow the result to `profile`.
pub fn eval_profiled(instr: &Instr, operands: &[u64], profile: &Profile) -> Result<Resolved, EvalError> {
    let exp = crate::interp::eval(instr, operands)?;
    Ok(profile.resolve(instr, operands, &exp))
}

/// The readings a rule table can name, by their `Reading::name`.
pub(crate) fn reading_named(name: &str) -> Option<Reading> {
    use Reading::*;
    [FtzBeforeRounding, SatKeepsNegativeZero, ReluKeepsNegativeZero, NanPayloadFromB, NanPayloadFromC,
     SignallingNanNotQuieted, NanUnspecified, SignBitOnly, Contracted]
        .into_iter()
        .find(|r| r.name() == name)
}
