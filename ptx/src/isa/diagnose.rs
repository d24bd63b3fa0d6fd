//! Error messages for illegal forms: find the rows for the opcode and type, narrow them slot by
//! slot (test, precision, ftz, clamp, NaN, inputs, abs), and name the first slot no row allows.

use super::rules::{rules_for, section_of, FormRule, PrecisionRule, Slot};
use super::{AbsMode, Clamp, Ftz, Instr, IsaError, NanMode, Opcode, Precision, TestpOp, Type};
use crate::rounding::Rounding;

/// The error for a form that no row admits.
pub(super) fn illegal(i: &Instr) -> IsaError {
    let form = i.to_string();
    let mut cands: Vec<&'static FormRule> = rules_for(i.op, i.ty).collect();
    if cands.is_empty() {
        let types: Vec<String> = Type::ALL
            .iter()
            .filter(|&&t| rules_for(i.op, t).next().is_some())
            .map(|t| format!(".{}", t.name()))
            .collect();
        let rule = format!("{} has no .{} form; its types are {}", i.op.name(), i.ty.name(), types.join(", "));
        return IsaError::Illegal { form, rule, section: section_of(i.op, i.ty) };
    }
    for slot in Slot::ALL {
        let next: Vec<&'static FormRule> = cands.iter().copied().filter(|r| r.admits_slot(slot, i)).collect();
        if next.is_empty() {
            let section = cands[0].section(i.op).unwrap_or_else(|| section_of(i.op, i.ty));
            return IsaError::Illegal { form, rule: rule_text(slot, i, &cands), section };
        }
        cands = next;
    }
    // Every slot admitted by some row means the form is legal: callers never get here, but a
    // message is better than a panic.
    IsaError::Illegal { form, rule: "no syntax line admits this form".into(), section: section_of(i.op, i.ty) }
}

/// The forms still possible, as spec syntax: "the form is X" / "the forms are X; Y".
fn forms_hint(i: &Instr, cands: &[&FormRule]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for r in cands {
        let s = r.syntax(i.op, i.ty).to_string();
        if !lines.contains(&s) {
            lines.push(s);
        }
    }
    if lines.len() == 1 {
        format!("the form is `{}`", lines[0])
    } else {
        format!("the forms are `{}`", lines.join("`, `"))
    }
}

fn rule_text(slot: Slot, i: &Instr, cands: &[&FormRule]) -> String {
    let opty = format!("{}.{}", i.op.name(), i.ty.name());
    match slot {
        Slot::Test => match i.testp {
            None => format!(
                "a test is required: one of {}",
                TestpOp::ALL.iter().map(|t| format!(".{}", t.name())).collect::<Vec<_>>().join(", ")
            ),
            Some(t) => format!(".{} is a testp property; {} takes none", t.name(), i.op.name()),
        },
        Slot::Precision => precision_text(i, cands, &opty),
        Slot::Ftz => match i.ftz {
            Ftz::Flush => format!(".ftz is not allowed; {}", forms_hint(i, cands)),
            Ftz::Preserve => format!(".ftz is required; {}", forms_hint(i, cands)),
        },
        Slot::Clamp => match i.clamp {
            Clamp::Sat => format!(".sat is not allowed; {}", forms_hint(i, cands)),
            Clamp::Relu => format!(".relu is not allowed; {}", forms_hint(i, cands)),
            Clamp::None => format!("a clamp modifier is required; {}", forms_hint(i, cands)),
        },
        Slot::Nan => match i.nan {
            NanMode::Propagate => format!(".NaN is not allowed; {}", forms_hint(i, cands)),
            NanMode::Number => format!(".NaN is required; {}", forms_hint(i, cands)),
        },
        Slot::Inputs => {
            let mut counts: Vec<u8> = cands.iter().map(|r| r.inputs).collect();
            counts.sort_unstable();
            counts.dedup();
            let counts: Vec<String> = counts.iter().map(u8::to_string).collect();
            let plural = if counts.len() == 1 && counts[0] == "1" { "input" } else { "inputs" };
            format!("{opty} takes {} {plural}, not {}; {}", counts.join(" or "), i.inputs, forms_hint(i, cands))
        }
        Slot::Abs => abs_text(i, cands),
    }
}

fn abs_text(i: &Instr, cands: &[&FormRule]) -> String {
    let allows = |a: AbsMode| cands.iter().any(|r| r.abs.contains(&a));
    match i.abs {
        // 9.7.3.11: "Qualifier .xorsign requires qualifier .abs"; .abs alone is the 3-input form.
        AbsMode::Abs if allows(AbsMode::XorsignAbs) => format!(
            ".abs without .xorsign is only for 3-input min/max.f32; with {} inputs write .xorsign.abs",
            i.inputs
        ),
        // 9.7.3.11: "The .xorsign qualifier cannot be specified for three inputs operation."
        AbsMode::XorsignAbs if allows(AbsMode::Abs) => {
            ".xorsign cannot be used with 3 inputs; the 3-input form takes .abs".to_string()
        }
        AbsMode::Abs => format!(".abs is not allowed; {}", forms_hint(i, cands)),
        AbsMode::XorsignAbs => format!(".xorsign.abs is not allowed; {}", forms_hint(i, cands)),
        AbsMode::None => format!("a magnitude modifier is required; {}", forms_hint(i, cands)),
    }
}

/// What the remaining rows accept in the precision slot, e.g. "a rounding modifier
/// (.rn/.rz/.rm/.rp) or .approx".
fn precision_text(i: &Instr, cands: &[&FormRule], opty: &str) -> String {
    let mut roundings: Vec<Rounding> = Vec::new();
    let (mut none_ok, mut approx, mut full) = (false, false, false);
    for r in cands {
        match r.precision {
            PrecisionRule::None => none_ok = true,
            PrecisionRule::Optional(rs) => {
                none_ok = true;
                roundings.extend_from_slice(rs);
            }
            PrecisionRule::Required(rs) => roundings.extend_from_slice(rs),
            PrecisionRule::Approx => approx = true,
            PrecisionRule::Full => full = true,
        }
    }
    roundings.sort_unstable();
    roundings.dedup();
    let mut alts: Vec<String> = Vec::new();
    if approx {
        alts.push(".approx".into());
    }
    if full {
        alts.push(".full".into());
    }
    match roundings.len() {
        0 => {}
        1 => alts.push(format!(".{}", roundings[0].name())),
        _ => alts.push(format!(
            "a rounding modifier ({})",
            roundings.iter().map(|r| format!(".{}", r.name())).collect::<Vec<_>>().join("/")
        )),
    }
    // Rows listed as "approx first" read oddly when rounding is the usual form: put rounding first
    // unless .full is also there (div reads ".approx, .full or a rounding modifier").
    if !full && alts.len() == 2 && approx {
        alts.swap(0, 1);
    }
    match i.precision {
        Precision::Default => {
            let mut text = match alts.len() {
                0 => "a precision modifier is required".to_string(),
                1 => format!("{} is required", alts[0]),
                2 => format!("{} or {} is required", alts[0], alts[1]),
                _ => format!("one of {} or {} is required", alts[..alts.len() - 1].join(", "), alts[alts.len() - 1]),
            };
            if i.op == Opcode::Mad {
                // 9.7.3.7 errata: mad.f32 without rounding is the sm_1x form; ptxas enforces the
                // rounding modifier from PTX ISA 3.2.
                text.push_str(" (mad without rounding is the sm_1x form, rejected from PTX ISA 3.2)");
            }
            text
        }
        given => {
            let given = match given {
                Precision::Rounded(r) => format!(".{}", r.name()),
                Precision::Approx => ".approx".into(),
                Precision::Full => ".full".into(),
                Precision::Default => String::new(),
            };
            let takes = match (alts.len(), none_ok) {
                (0, _) => "no precision modifier".to_string(),
                (1, false) => alts[0].clone(),
                (1, true) => format!("{} or none", alts[0]),
                (_, false) => format!("{} or {}", alts[..alts.len() - 1].join(", "), alts[alts.len() - 1]),
                (_, true) => format!("{}, {} or none", alts[..alts.len() - 1].join(", "), alts[alts.len() - 1]),
            };
            format!("{given} is not allowed; {opty} takes {takes}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str, inputs: usize) -> String {
        Instr::parse(text, inputs).unwrap_err().to_string()
    }

    #[test]
    fn missing_rounding_on_fma_names_the_rule() {
        assert_eq!(err("fma.f32", 3), "fma.f32: a rounding modifier (.rn/.rz/.rm/.rp) is required (PTX ISA 9.7.3.6)");
        assert_eq!(err("fma.f16", 3), "fma.f16: .rn is required (PTX ISA 9.7.4.4)");
        assert_eq!(err("fma.f64", 3), "fma.f64: a rounding modifier (.rn/.rz/.rm/.rp) is required (PTX ISA 9.7.3.6)");
    }

    #[test]
    fn missing_precision_lists_every_alternative() {
        assert_eq!(
            err("div.f32", 2),
            "div.f32: one of .approx, .full or a rounding modifier (.rn/.rz/.rm/.rp) is required (PTX ISA 9.7.3.8)"
        );
        assert_eq!(
            err("rcp.f64", 1),
            "rcp.f64: a rounding modifier (.rn/.rz/.rm/.rp) or .approx is required (PTX ISA 9.7.3.13)"
        );
        assert_eq!(err("sin.f32", 1), "sin.f32: .approx is required (PTX ISA 9.7.3.18)");
        assert_eq!(err("tanh.bf16", 1), "tanh.bf16: .approx is required (PTX ISA 9.7.4.9)");
    }

    #[test]
    fn mad_without_rounding_cites_the_errata() {
        let e = err("mad.f32", 3);
        assert!(e.starts_with("mad.f32: a rounding modifier (.rn/.rz/.rm/.rp) is required"), "{e}");
        assert!(e.contains("PTX ISA 3.2") && e.ends_with("(PTX ISA 9.7.3.7)"), "{e}");
    }

    #[test]
    fn wrong_precision_says_what_is_taken() {
        assert_eq!(err("add.rz.f16", 2), "add.rz.f16: .rz is not allowed; add.f16 takes .rn or none (PTX ISA 9.7.4.1)");
        assert_eq!(
            err("abs.rn.f32", 1),
            "abs.rn.f32: .rn is not allowed; abs.f32 takes no precision modifier (PTX ISA 9.7.3.9)"
        );
        assert_eq!(
            err("add.approx.f32", 2),
            "add.approx.f32: .approx is not allowed; add.f32 takes a rounding modifier (.rn/.rz/.rm/.rp) or none (PTX ISA 9.7.3.3)"
        );
        assert_eq!(
            err("div.full.f64", 2),
            "div.full.f64: .full is not allowed; div.f64 takes a rounding modifier (.rn/.rz/.rm/.rp) (PTX ISA 9.7.3.8)"
        );
        assert_eq!(err("sqrt.approx.f64", 1), "sqrt.approx.f64: .approx is not allowed; sqrt.f64 takes a rounding modifier (.rn/.rz/.rm/.rp) (PTX ISA 9.7.3.15)");
    }

    #[test]
    fn sat_on_f64_is_illegal() {
        assert_eq!(
            err("add.sat.f64", 2),
            "add.sat.f64: .sat is not allowed; the form is `add{.rnd}.f64 d, a, b` (PTX ISA 9.7.3.3)"
        );
        assert_eq!(
            err("fma.rn.sat.f32x2", 3),
            "fma.rn.sat.f32x2: .sat is not allowed; the form is `fma.rnd{.ftz}.f32x2 d, a, b, c` (PTX ISA 9.7.3.6)"
        );
    }

    #[test]
    fn ftz_on_bf16_is_illegal() {
        assert_eq!(
            err("add.ftz.bf16", 2),
            "add.ftz.bf16: .ftz is not allowed; the form is `add{.rn}.bf16 d, a, b` (PTX ISA 9.7.4.1)"
        );
        assert_eq!(
            err("min.ftz.bf16x2", 2),
            "min.ftz.bf16x2: .ftz is not allowed; the form is `min{.NaN}{.xorsign.abs}.bf16x2 d, a, b` (PTX ISA 9.7.4.7)"
        );
        assert_eq!(
            err("ex2.approx.ftz.f16", 1),
            "ex2.approx.ftz.f16: .ftz is not allowed; the form is `ex2.approx.f16 d, a` (PTX ISA 9.7.4.10)"
        );
        assert_eq!(
            err("tanh.approx.ftz.f32", 1),
            "tanh.approx.ftz.f32: .ftz is not allowed; the form is `tanh.approx.f32 d, a` (PTX ISA 9.7.3.22)"
        );
        assert_eq!(
            err("add.rn.ftz.f64", 2),
            "add.rn.ftz.f64: .ftz is not allowed; the form is `add{.rnd}.f64 d, a, b` (PTX ISA 9.7.3.3)"
        );
    }

    #[test]
    fn required_ftz_is_named() {
        assert_eq!(
            err("ex2.approx.bf16", 1),
            "ex2.approx.bf16: .ftz is required; the form is `ex2.approx.ftz.bf16 d, a` (PTX ISA 9.7.4.10)"
        );
        assert_eq!(
            err("rcp.rn.ftz.f64", 1),
            "rcp.rn.ftz.f64: .ftz is not allowed; the form is `rcp.rnd.f64 d, a` (PTX ISA 9.7.3.13)"
        );
    }

    #[test]
    fn abs_alone_on_two_inputs_is_illegal() {
        assert_eq!(
            err("min.abs.f32", 2),
            "min.abs.f32: .abs without .xorsign is only for 3-input min/max.f32; with 2 inputs write .xorsign.abs (PTX ISA 9.7.3.11)"
        );
        assert!(err("max.abs.f16", 2).contains(".abs without .xorsign"));
    }

    #[test]
    fn xorsign_with_three_inputs_is_illegal() {
        assert_eq!(
            err("max.xorsign.abs.f32", 3),
            "max.xorsign.abs.f32: .xorsign cannot be used with 3 inputs; the 3-input form takes .abs (PTX ISA 9.7.3.12)"
        );
    }

    #[test]
    fn wrong_input_count_lists_the_counts() {
        assert_eq!(err("min.f16", 3), "min.f16: min.f16 takes 2 inputs, not 3; the form is `min{.ftz}{.NaN}{.xorsign.abs}.f16 d, a, b` (PTX ISA 9.7.4.7)");
        assert!(err("min.f32", 1).contains("min.f32 takes 2 or 3 inputs, not 1"));
        assert!(err("sqrt.rn.f32", 2).contains("sqrt.f32 takes 1 input, not 2"));
        assert!(err("add.f32", 200).contains("not 200"));
    }

    #[test]
    fn nan_outside_min_max_is_illegal() {
        assert_eq!(
            err("min.NaN.f64", 2),
            "min.NaN.f64: .NaN is not allowed; the form is `min.f64 d, a, b` (PTX ISA 9.7.3.11)"
        );
        assert!(err("add.NaN.f32", 2).starts_with("add.NaN.f32: .NaN is not allowed"));
    }

    #[test]
    fn relu_outside_half_fma_is_illegal() {
        assert!(err("fma.rn.relu.f32", 3).starts_with("fma.rn.relu.f32: .relu is not allowed"));
        assert_eq!(
            err("fma.rn.sat.bf16", 3),
            "fma.rn.sat.bf16: .sat is not allowed; the form is `fma.rn{.relu}.bf16 d, a, b, c` (PTX ISA 9.7.4.4)"
        );
    }

    #[test]
    fn several_remaining_rows_are_all_listed() {
        assert_eq!(
            err("min.NaN.xorsign.abs.f32", 4),
            "min.NaN.xorsign.abs.f32: min.f32 takes 2 or 3 inputs, not 4; the forms are \
             `min{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b`, `min{.ftz}{.NaN}{.abs}.f32 d, a, b, c` (PTX ISA 9.7.3.11)"
        );
    }

    #[test]
    fn missing_type_form_lists_the_types() {
        assert_eq!(
            err("sin.approx.f64", 1),
            "sin.approx.f64: sin has no .f64 form; its types are .f32 (PTX ISA 9.7.3.18)"
        );
        assert_eq!(
            err("copysign.f16", 2),
            "copysign.f16: copysign has no .f16 form; its types are .f32, .f64 (PTX ISA 9.7.3.2)"
        );
        assert!(err("mad.rn.f16", 3).contains("its types are .f32, .f64"));
        assert!(err("div.rn.f32x2", 2).contains("div has no .f32x2 form"));
    }

    #[test]
    fn testp_needs_its_property() {
        assert_eq!(
            err("testp.f32", 1),
            "testp.f32: a test is required: one of .finite, .infinite, .number, .notanumber, .normal, .subnormal (PTX ISA 9.7.3.1)"
        );
        assert_eq!(
            err("add.finite.f32", 2),
            "add.finite.f32: .finite is a testp property; add takes none (PTX ISA 9.7.3.3)"
        );
    }
}
