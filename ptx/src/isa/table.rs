//! The legality API: whether a form is legal PTX ([`Instr::validate`]), which target it needs
//! ([`Instr::requirement`], [`Instr::check_target`]), and the errors for both.
//!
//! The tables themselves live in [`super::rules`] (structure) and [`super::requirements`]
//! (targets); the wording of errors in [`super::diagnose`].


use super::rules::{Source, FORM_RULES};
use super::{Instr, Opcode};
pub use super::target::{PtxVersion, Requirement, Target, Variant};

/// Why an instruction text or form is not legal PTX.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    #[error("{0}")]
    Syntax(String),
    #[error("{form}: {rule} (PTX ISA {section})")]
    Illegal { form: String, rule: String, section: &'static str },
    #[error("{form} needs sm_{need_sm}{need_variant} and PTX ISA {need_ptx_major}.{need_ptx_minor}, target is sm_{sm}{variant} with PTX ISA {ptx_major}.{ptx_minor} (PTX ISA {section})")]
    Target {
        form: String,
        need_sm: u32,
        /// The suffix the form needs (`a` of `sm_100a`), empty for most.
        need_variant: Variant,
        need_ptx_major: u8,
        need_ptx_minor: u8,
        sm: u32,
        variant: Variant,
        ptx_major: u8,
        ptx_minor: u8,
        section: &'static str,
    },
}

impl Instr {
    /// Check the form against the spec's syntax rules (modifier sets per opcode and type).
    /// A `cvt` is checked against the table of `crate::cvt` instead (9.7.9.21), a comparison
    /// against `crate::compare`'s, a mixed-precision form against `crate::mixed`'s (9.7.5).
    pub fn validate(&self) -> Result<(), IsaError> {
        self.check_form().map_err(|e| e.unwrap_or_else(|| super::diagnose::illegal(self)))
    }

    /// Whether [`Instr::validate`] accepts the form, without building the diagnosis of an
    /// illegal one (its suggestions format forms): the judge's classification asks this of the
    /// variants of a mismatching form it tries, many of them illegal.
    pub fn is_legal(&self) -> bool {
        self.check_form().is_ok()
    }

    /// [`Instr::validate`]'s dispatch to the table that judges the form; `Err(None)`: no row
    /// of the form rules admits it, its diagnosis left to the caller that wants one.
    fn check_form(&self) -> Result<(), Option<IsaError>> {
        if self.op == Opcode::Cvt || self.conv.is_some() {
            return self.validate_cvt().map(|_| ()).map_err(Some);
        }
        if self.op.is_comparison() || self.cmp.is_some() || self.selp_int.is_some() {
            return self.validate_compare().map(|_| ()).map_err(Some);
        }
        if self.atype.is_some() {
            return self.validate_mixed().map(|_| ()).map_err(Some);
        }
        if super::rules::rows_of(self.op).iter().any(|r| r.admits(self)) {
            Ok(())
        } else {
            Err(None)
        }
    }

    /// The minimum sm and PTX ISA version of this (validated) form.
    /// (For a form that does not validate the answer is meaningless, but never a panic.)
    pub fn requirement(&self) -> Requirement {
        if let Some(c) = self.as_cvt() {
            return c.requirement();
        }
        if let Some(c) = self.as_cvt_int() {
            return c.requirement();
        }
        if let Some(c) = self.as_tf32() {
            return c.requirement();
        }
        if let Some(c) = self.as_narrow() {
            return c.needs();
        }
        if let Some(c) = self.as_stochastic() {
            return c.needs();
        }
        if let Some(c) = self.as_compare() {
            return c.requirement();
        }
        if let Some(m) = self.as_mixed() {
            return m.requirement();
        }
        super::requirements::requirement_of(self)
    }

    /// Whether this (validated) form is available on `target`; an illegal form is its
    /// [`Instr::validate`] error.
    pub fn check_target(&self, target: Target) -> Result<(), IsaError> {
        self.validate()?;
        let need = self.requirement();
        // A form may need less PTX on a later sm than on its first (the fp8 cvts).
        let ptx = self.as_narrow().map_or(need.ptx, |c| c.ptx_on(target.sm));
        if target.has(&need) && target.ptx >= ptx {
            return Ok(());
        }
        Err(IsaError::Target {
            form: self.to_string(),
            need_sm: need.sm,
            need_variant: need.variant,
            need_ptx_major: ptx.major,
            need_ptx_minor: ptx.minor,
            sm: target.sm,
            variant: target.variant,
            ptx_major: target.ptx.major,
            ptx_minor: target.ptx.minor,
            section: need.section,
        })
    }

    /// Whether the PTX ISA text documents this form. False for a legal form only ptxas accepts
    /// (`fma.rz.bf16`: see docs/isa-table.md) and for illegal forms.
    pub fn is_documented(&self) -> bool {
        // Every `cvt`, comparison and mixed-precision form their tables accept is a
        // documented one.
        if self.op == Opcode::Cvt || self.op.is_comparison() || self.atype.is_some() {
            return self.validate().is_ok();
        }
        FORM_RULES.iter().any(|r| r.source == Source::Spec && r.admits(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::{Opcode, Type};

    #[test]
    fn is_legal_agrees_with_validate_on_every_form_and_its_ftz_and_rounding_variants() {
        use crate::isa::{Ftz, Precision};
        use crate::Rounding;
        let mut legal = 0;
        for f in crate::isa::all_forms() {
            let toggled = Instr { ftz: if f.ftz == Ftz::Flush { Ftz::Preserve } else { Ftz::Flush }, ..f };
            let rounded = Rounding::ALL.into_iter().map(|m| Instr { precision: Precision::Rounded(m), ..f });
            for v in std::iter::once(f).chain(std::iter::once(toggled)).chain(rounded) {
                assert_eq!(v.is_legal(), v.validate().is_ok(), "{v:?}");
                legal += usize::from(v.is_legal());
            }
        }
        assert!(legal > 1000, "{legal}");
    }

    fn target(sm: u32, major: u8, minor: u8) -> Target {
        Target::new(sm, PtxVersion::new(major, minor))
    }

    fn req(text: &str, inputs: usize) -> (u32, String, &'static str) {
        let r = Instr::parse(text, inputs).unwrap().requirement();
        (r.sm, r.ptx.to_string(), r.section)
    }

    #[test]
    fn requirements_named_in_the_issue() {
        assert_eq!(req("add.f32x2", 2), (100, "8.6".into(), "9.7.3.3"));
        assert_eq!(req("fma.rn.f32x2", 3), (100, "8.6".into(), "9.7.3.6"));
        assert_eq!(req("min.xorsign.abs.f32", 2), (86, "7.2".into(), "9.7.3.11"));
        assert_eq!(req("min.abs.f32", 3), (100, "8.8".into(), "9.7.3.11"));
        assert_eq!(req("max.f32", 3), (100, "8.8".into(), "9.7.3.12"));
        assert_eq!(req("sub.bf16", 2), (90, "7.8".into(), "9.7.4.2"));
        assert_eq!(req("min.NaN.f32", 2), (80, "7.0".into(), "9.7.3.11"));
    }

    #[test]
    fn requirements_of_special_forms() {
        assert_eq!(req("rcp.approx.ftz.f64", 1), (20, "2.1".into(), "9.7.3.14"));
        assert_eq!(req("rsqrt.approx.ftz.f64", 1), (20, "4.0".into(), "9.7.3.17"));
        assert_eq!(req("rsqrt.approx.f64", 1), (13, "1.4".into(), "9.7.3.16"));
        assert_eq!(req("tanh.approx.f32", 1), (75, "7.0".into(), "9.7.3.22"));
        assert_eq!(req("tanh.approx.bf16x2", 1), (90, "7.8".into(), "9.7.4.9"));
        assert_eq!(req("ex2.approx.f16", 1), (75, "7.0".into(), "9.7.4.10"));
        assert_eq!(req("fma.rn.relu.f16", 3), (80, "7.0".into(), "9.7.4.4"));
        assert_eq!(req("fma.rn.sat.f16", 3), (53, "4.2".into(), "9.7.4.4"));
        assert_eq!(req("abs.f16", 1), (53, "6.5".into(), "9.7.4.6"));
        assert_eq!(req("neg.ftz.f16x2", 1), (53, "6.0".into(), "9.7.4.5"));
        assert_eq!(req("max.NaN.xorsign.abs.bf16", 2), (86, "7.2".into(), "9.7.4.8"));
        assert_eq!(req("add.rm.f32", 2), (20, "1.0".into(), "9.7.3.3"));
        assert_eq!(req("add.rz.f32", 2), (10, "1.0".into(), "9.7.3.3"));
        assert_eq!(req("div.rz.f64", 2), (20, "1.4".into(), "9.7.3.8"));
        assert_eq!(req("div.rn.f64", 2), (13, "1.4".into(), "9.7.3.8"));
    }

    #[test]
    fn check_target_accepts_exactly_at_the_requirement() {
        let i = Instr::parse("add.rn.f32x2", 2).unwrap();
        assert_eq!(i.check_target(target(100, 8, 6)), Ok(()));
        assert_eq!(i.check_target(target(120, 9, 5)), Ok(()));
        let err = i.check_target(target(90, 8, 6)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "add.rn.f32x2 needs sm_100 and PTX ISA 8.6, target is sm_90 with PTX ISA 8.6 (PTX ISA 9.7.3.3)"
        );
        let err = i.check_target(target(100, 8, 5)).unwrap_err();
        assert!(matches!(err, IsaError::Target { need_sm: 100, need_ptx_major: 8, need_ptx_minor: 6, .. }), "{err:?}");
    }

    #[test]
    fn check_target_reports_an_illegal_form_as_illegal() {
        let mut i = Instr::new(Opcode::Fma, Type::F32);
        i.inputs = 3;
        let err = i.check_target(target(120, 9, 5)).unwrap_err();
        assert!(matches!(err, IsaError::Illegal { section: "9.7.3.6", .. }), "{err:?}");
    }

    #[test]
    fn ptx_versions_order_by_major_then_minor() {
        assert!(PtxVersion::new(7, 10) > PtxVersion::new(7, 8));
        assert!(PtxVersion::new(8, 0) > PtxVersion::new(7, 8));
        assert_eq!(PtxVersion::new(8, 6).to_string(), "8.6");
    }

    #[test]
    fn only_the_ptxas_only_rows_are_undocumented() {
        let undocumented: Vec<String> =
            crate::isa::all_forms().into_iter().filter(|f| !f.is_documented()).map(|f| f.to_string()).collect();
        assert_eq!(undocumented.len(), 12, "{undocumented:?}");
        assert!(undocumented.iter().all(|f| f.starts_with("fma.r") && f.contains(".bf16")), "{undocumented:?}");
        assert!(Instr::parse("fma.rn.bf16", 3).unwrap().is_documented());
    }
}
