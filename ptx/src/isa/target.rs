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

/// A compilation target: `.target sm_XX` and `.version X.Y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// `sm_90` is 90, `sm_100` is 100.
    pub sm: u32,
    pub ptx: PtxVersion,
}

impl Target {
    pub const fn new(sm: u32, ptx: PtxVersion) -> Target {
        Target { sm, ptx }
    }
}

/// The lowest target an instruction form needs, and the spec section that says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requirement {
    pub sm: u32,
    pub ptx: PtxVersion,
    pub section: &'static str,
}
