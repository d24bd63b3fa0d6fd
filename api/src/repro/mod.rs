//! The reproducer file (`repro.json`): one minimized finding, as the worker writes it to disk
//! and posts it to the server. Values are hex bit patterns of the register width.
//!
//! The files made from it live here too, so that worker and server write the same ones:
//! [`files`] (the case back, `repro.ptx`) and [`cuda`] (`repro.cu`).

pub mod cuda;
pub mod files;

pub use files::ReproError;

use serde::{Deserialize, Serialize};

/// Version of the `repro.json` layout.
pub const FORMAT: u32 = 1;

/// One finding, as stored in `repro.json`. Values are hex bit patterns of the register width.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reproducer {
    /// Layout version ([`FORMAT`]).
    pub ptxfuzz_repro: u32,
    /// The signature the finding is grouped under, as text.
    pub signature: String,
    /// The mismatch class (`rounding`, `ftz`, `nan-vs-number`, ...).
    pub class: String,
    /// The engine spec that gave the bits (`host`, `cuda:0`, `exec:...`).
    pub target: String,
    /// What the engine ran on (GPU name, CPU, command).
    pub device: String,
    /// The sm the PTX files are written for.
    pub sm: u32,
    /// The canonical program JSON (`ptx::program::json`).
    pub program: serde_json::Value,
    /// The program as PTX text, for reading.
    pub program_text: String,
    /// One per program input.
    pub inputs: Vec<String>,
    /// The same inputs in decimal (packed lanes comma-separated).
    pub inputs_decimal: Vec<String>,
    /// The allowed results per output, as `ptxfuzz eval --accept` prints them.
    pub expected: Vec<String>,
    /// The target's bits per output.
    pub actual: Vec<String>,
    /// Which outputs the target got wrong.
    pub failing_outputs: Vec<usize>,
    /// Cases the campaign had compared when it met this finding (0 when unknown).
    pub found_after_cases: u64,
    /// The case as found, before minimization.
    pub original: Option<OriginalCase>,
    /// Minimization effort: candidates probed, steps accepted.
    pub probes: usize,
    pub steps: usize,
    /// The profile the results were judged against (`spec`: the PTX ISA's allowed set;
    /// `sm_90`: the H100's bits, `campaign --judge`). Files older than the field: `spec`.
    #[serde(default = "spec_judge")]
    pub judge: String,
    /// How the target ran the program ([`Exec`]: `compiled`, the whole program as one kernel;
    /// `isa`, instruction by instruction on the VM); a re-run uses the same mode. Files older
    /// than the field: `compiled`, the only mode there was.
    #[serde(default)]
    pub exec: crate::Exec,
    /// When the worker met the finding (its clock); the server's `first_seen` is the earliest
    /// of these, not the delivery time. Absent in files older than the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_at: Option<chrono::DateTime<chrono::Utc>>,
}

fn spec_judge() -> String {
    "spec".to_string()
}

/// The case before minimization.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OriginalCase {
    pub program_text: String,
    pub inputs: Vec<String>,
}

