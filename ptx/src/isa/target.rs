//! Targets: a PTX ISA version, a compilation target (`.target sm_XX` + `.version`), and the
//! lowest target a form needs. Below both the instruction table and `crate::cvt`, which each
//! say what their forms need, so neither imports the other for these types.

use std::fmt;

/// A PTX ISA version, e.g. 8.6 = `PtxVersion { major: 8, minor: 6 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    pub major: u8,
    pub minor: u8,
}

impl PtxVersion {
    pub const fn new(major: u8, minor: u8) -> PtxVersion {
        PtxVersion { major, minor }
    }
}

/// As in `.version 8.6`.
impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// An architecture-specific target suffix (PTX ISA 9.0 "Target ISA Notes"): `sm_100a` runs
/// on that sm alone, `sm_100f` on its family (sm_100, sm_103, ...); some forms exist only
/// there (the f6/f4/ue8m0 and `.rs` `cvt`s of 9.7.9.21).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// `sm_XX`: runs on every later GPU.
    #[default]
    Plain,
    /// `sm_XXa`.
    A,
    /// `sm_XXf`.
    F,
}

impl Variant {
    /// The suffix after the sm number: "", "a" or "f".
    pub fn suffix(self) -> &'static str {
        match self {
            Variant::Plain => "",
            Variant::A => "a",
            Variant::F => "f",
        }
    }
}

/// As the suffix of `sm_100a`.
impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.suffix())
    }
}

/// The architecture a module names in `.target`: `sm_XX` and its suffix. `From<u32>` gives
/// the plain target, so a caller with an sm number alone passes it as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    pub sm: u32,
    pub variant: Variant,
}

impl Arch {
    /// Parse `90`, `100a`, `sm_100f` (the spellings `--sm` takes); `None` for anything else.
    pub fn parse(s: &str) -> Option<Arch> {
        let s = s.strip_prefix("sm_").unwrap_or(s);
        let (digits, variant) = match s.strip_suffix('a') {
            Some(d) => (d, Variant::A),
            None => match s.strip_suffix('f') {
                Some(d) => (d, Variant::F),
                None => (s, Variant::Plain),
            },
        };
        Some(Arch { sm: digits.parse().ok()?, variant })
    }
}

/// Why a `--sm` value is not an [`Arch`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not an sm: write 90, sm_90, 100a or 100f")]
pub struct ArchError(pub String);

/// As [`Arch::parse`], for command lines.
impl std::str::FromStr for Arch {
    type Err = ArchError;
    fn from_str(s: &str) -> Result<Arch, ArchError> {
        Arch::parse(s).ok_or_else(|| ArchError(s.to_string()))
    }
}

impl From<u32> for Arch {
    fn from(sm: u32) -> Arch {
        Arch { sm, variant: Variant::Plain }
    }
}

/// As in `.target sm_100a`.
impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.sm, self.variant)
    }
}

/// A compilation target: `.target sm_XX{a|f}` and `.version X.Y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// `sm_90` is 90, `sm_100a` is 100.
    pub sm: u32,
    /// The suffix: `sm_100a` is [`Variant::A`].
    pub variant: Variant,
    pub ptx: PtxVersion,
}

impl Target {
    /// The plain target `sm_XX` with PTX ISA `ptx`.
    pub const fn new(sm: u32, ptx: PtxVersion) -> Target {
        Target { sm, variant: Variant::Plain, ptx }
    }

    /// The target of an architecture (with its suffix) and PTX ISA `ptx`.
    pub const fn of(arch: Arch, ptx: PtxVersion) -> Target {
        Target { sm: arch.sm, variant: arch.variant, ptx }
    }

    pub fn arch(&self) -> Arch {
        Arch { sm: self.sm, variant: self.variant }
    }

    /// Whether this target's architecture has a form that needs `need` (its PTX version is the
    /// caller's to compare). A plain form runs on every sm from its own on, whatever the
    /// suffix; an `a` form only on its own sm with the `a` suffix; an `f` form on its family
    /// (same tens: sm_100 and sm_103) with either suffix (ptxas 13.5 assembles the sm_100f
    /// forms of 9.7.9.21 for sm_100a, sm_100f, sm_103a and sm_103f, and refuses them on plain
    /// sm_100: `ptx/tests/ptxas_cvt.rs`).
    pub fn has(&self, need: &Requirement) -> bool {
        match need.variant {
            Variant::Plain => self.sm >= need.sm,
            Variant::A => self.variant == Variant::A && self.sm == need.sm,
            Variant::F => self.variant != Variant::Plain && self.sm >= need.sm && self.sm / 10 == need.sm / 10,
        }
    }
}

/// The lowest target an instruction form needs, and the spec section that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirement {
    pub sm: u32,
    /// [`Variant::Plain`] for every form but the architecture-specific ones.
    pub variant: Variant,
    pub ptx: PtxVersion,
    pub section: &'static str,
}

impl Requirement {
    /// A form every sm from `sm` on has.
    pub const fn plain(sm: u32, ptx: PtxVersion, section: &'static str) -> Requirement {
        Requirement { sm, variant: Variant::Plain, ptx, section }
    }

    /// The `.target` spelling, e.g. `sm_100a`.
    pub fn target(&self) -> String {
        Arch { sm: self.sm, variant: self.variant }.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arch_parses_with_or_without_sm_and_its_suffix() {
        assert_eq!(Arch::parse("90"), Some(Arch::from(90)));
        assert_eq!(Arch::parse("sm_100a"), Some(Arch { sm: 100, variant: Variant::A }));
        assert_eq!(Arch::parse("103f"), Some(Arch { sm: 103, variant: Variant::F }));
        assert_eq!(Arch::parse("sm_100a").unwrap().to_string(), "sm_100a");
        for bad in ["", "a", "sm_", "90x", "sm_90af"] {
            assert_eq!(Arch::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_a_form_needs_its_own_sm_with_a_and_an_f_form_its_family_with_a_suffix() {
        let v = PtxVersion::new(9, 1);
        let t = |s: &str| Target::of(Arch::parse(s).unwrap(), v);
        let need = |variant| Requirement { sm: 100, variant, ptx: v, section: "" };
        let plain = need(Variant::Plain);
        assert!(t("100").has(&plain) && t("100a").has(&plain) && t("120").has(&plain) && !t("90").has(&plain));
        let a = need(Variant::A);
        assert!(t("100a").has(&a) && !t("100").has(&a) && !t("100f").has(&a) && !t("103a").has(&a));
        let f = need(Variant::F);
        assert!(t("100a").has(&f) && t("100f").has(&f) && t("103f").has(&f) && t("103a").has(&f));
        assert!(!t("100").has(&f) && !t("120f").has(&f) && !t("90a").has(&f));
    }
}
