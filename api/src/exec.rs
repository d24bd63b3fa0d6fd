//! How a GPU executes a program (issue 12): the two modes test different things, so a finding
//! records the mode it was found in and is re-run in it.

use serde::{Deserialize, Serialize};

/// An execution mode. Engines that execute instruction by instruction anyway (interp, host,
/// exec, replay) run both alike; only a GPU tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Exec {
    /// The whole program JIT-compiled as one kernel (`ptx::kernel`), so compiler effects
    /// (contraction, folding, the bf16 `fma` lowering) show. The default: the mode of every
    /// finding recorded before the field existed, and the one mode that has run on a GPU
    /// (the H100 run of docs/hardware/).
    #[default]
    Compiled,
    /// Every instruction executed alone, exactly as written, by the precompiled instruction VM
    /// (`ptx::vm`, one module per sm, no JIT per program): the hardware's own results.
    Isa,
}

impl Exec {
    /// Both modes, in the order reports list them.
    pub const ALL: [Exec; 2] = [Exec::Isa, Exec::Compiled];

    /// The name in files, flags and reports (`compiled`, `isa`).
    pub fn name(self) -> &'static str {
        match self {
            Exec::Compiled => "compiled",
            Exec::Isa => "isa",
        }
    }
}

impl std::fmt::Display for Exec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Exec {
    type Err = String;

    fn from_str(s: &str) -> Result<Exec, String> {
        Exec::ALL.into_iter().find(|e| e.name() == s).ok_or_else(|| format!("unknown execution mode '{s}': use isa or compiled"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_json() {
        for e in Exec::ALL {
            assert_eq!(e.name().parse::<Exec>().unwrap(), e);
            assert_eq!(serde_json::to_string(&e).unwrap(), format!("\"{}\"", e.name()));
        }
        assert!("jit".parse::<Exec>().unwrap_err().contains("isa or compiled"));
    }
}
