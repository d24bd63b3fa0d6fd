//! Every legal instruction form, enumerated from the structural table (for exhaustive tests,
//! benches and the generator).

use super::rules::FORM_RULES;
use super::Instr;

/// Every legal form (every type x modifier combination x operand count), sorted by [`Instr`]'s
/// `Ord` (opcode, testp property, precision, ftz, clamp, NaN, abs, type, inputs), no duplicates.
/// Includes the ptxas-only forms; filter with [`Instr::is_documented`] for the spec's alone.
pub fn all_forms() -> Vec<Instr> {
    let mut out = Vec::new();
    for rule in FORM_RULES {
        for &(op, _) in rule.ops {
            for &ty in rule.types {
                out.extend(rule.forms(op, ty));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{AbsMode, Clamp, Ftz, NanMode, Opcode, Precision, TestpOp, Type};
    use crate::rounding::Rounding;

    #[test]
    fn every_form_validates_and_is_listed_once() {
        let forms = all_forms();
        for w in forms.windows(2) {
            assert!(w[0] < w[1], "not strictly sorted: {} / {}", w[0], w[1]);
        }
        for f in &forms {
            assert_eq!(f.validate(), Ok(()), "{f}");
        }
    }

    #[test]
    fn form_count_matches_the_ptxas_census() {
        // 427 forms ptxas 13.5 accepts in the Instr space, less testp without a property (2) and
        // rcp.{rn,rz,rm,rp}.ftz.f64 (4), which the spec does not define (docs/isa-table.md).
        assert_eq!(all_forms().len(), 421);
    }

    #[test]
    fn all_forms_is_exactly_the_set_validate_accepts() {
        // Brute force over the whole modifier space, so all_forms and validate cannot drift apart.
        let forms: std::collections::BTreeSet<Instr> = all_forms().into_iter().collect();
        let tests: Vec<Option<TestpOp>> = std::iter::once(None).chain(TestpOp::ALL.map(Some)).collect();
        let precisions: Vec<Precision> = [Precision::Default, Precision::Approx, Precision::Full]
            .into_iter()
            .chain(Rounding::ALL.map(Precision::Rounded))
            .collect();
        let mut accepted = 0;
        // `cvt` has its own table and brute force (`crate::cvt`'s tests).
        for op in Opcode::ALL.into_iter().filter(|o| o.in_arith_table()) {
            for ty in Type::ALL {
                for &testp in &tests {
                    for &precision in &precisions {
                        for ftz in [Ftz::Preserve, Ftz::Flush] {
                            for clamp in [Clamp::None, Clamp::Sat, Clamp::Relu] {
                                for nan in [NanMode::Number, NanMode::Propagate] {
                                    for abs in [AbsMode::None, AbsMode::Abs, AbsMode::XorsignAbs] {
                                        for inputs in 0..=4 {
                                            let i = Instr { op, testp, precision, ftz, clamp, nan, abs, ty, inputs, conv: None, cmp: None, selp_int: None, atype: None };
                                            let ok = i.validate().is_ok();
                                            assert_eq!(ok, forms.contains(&i), "{i} ({inputs} inputs)");
                                            accepted += usize::from(ok);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(accepted, forms.len());
    }
}
