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

/// Every field name of [`Reproducer`], as on the wire. The type itself takes unknown fields
/// (no `deny_unknown_fields`): the worker reads `repro.json` files written by other versions,
/// and the server reads reproducers stored as JSONB by older servers, so a field dropped one
/// day must not make those unreadable. The server's ingest refuses unknown fields with this
/// list instead (`service::validate::report::unknown_fields`); a test keeps it in step with
/// the type.
pub const FIELDS: &[&str] = &[
    "ptxfuzz_repro",
    "signature",
    "class",
    "target",
    "device",
    "sm",
    "variant",
    "program",
    "program_text",
    "inputs",
    "inputs_decimal",
    "expected",
    "actual",
    "failing_outputs",
    "found_after_cases",
    "original",
    "probes",
    "steps",
    "judge",
    "exec",
    "found_at",
];

/// Every field name of [`OriginalCase`] (as [`FIELDS`]).
pub const ORIGINAL_FIELDS: &[&str] = &["program_text", "inputs"];

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
    /// The architecture-specific suffix of that target ("a" of `sm_100a`) where the program
    /// needs one (the f6/ue8m0 `cvt`s of PTX ISA 9.7.9.21); absent for a plain sm, as in
    /// files older than the field.
    #[serde(default, skip_serializing_if = "is_plain")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub variant: ptx::isa::Variant,
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

impl Reproducer {
    /// The `.target` the PTX files are written for: `sm_90`, `sm_100a`.
    pub fn arch(&self) -> ptx::isa::Arch {
        ptx::isa::Arch { sm: self.sm, variant: self.variant }
    }

    /// nvcc's target option for `repro.cu`: `-arch=sm_90`; for a suffixed target the explicit
    /// `-gencode arch=compute_100a,code=sm_100a`, since nvcc 13.x's `-arch=sm_100a` also
    /// embeds plain `compute_100` PTX, which ptxas refuses for these forms.
    pub fn nvcc_arch(&self) -> String {
        match self.variant {
            ptx::isa::Variant::Plain => format!("-arch=sm_{}", self.sm),
            v => format!("-gencode arch=compute_{sm}{v},code=sm_{sm}{v}", sm = self.sm),
        }
    }
}

fn is_plain(v: &ptx::isa::Variant) -> bool {
    *v == ptx::isa::Variant::Plain
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


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lists_name_every_field_of_the_types() {
        // Every optional field set, so that none is skipped when serialized.
        let r = Reproducer {
            ptxfuzz_repro: FORMAT,
            signature: String::new(),
            class: String::new(),
            target: String::new(),
            device: String::new(),
            sm: 100,
            variant: ptx::isa::Variant::A,
            program: serde_json::Value::Null,
            program_text: String::new(),
            inputs: vec![],
            inputs_decimal: vec![],
            expected: vec![],
            actual: vec![],
            failing_outputs: vec![],
            found_after_cases: 0,
            original: Some(OriginalCase { program_text: String::new(), inputs: vec![] }),
            probes: 0,
            steps: 0,
            judge: spec_judge(),
            exec: crate::Exec::Isa,
            found_at: Some(chrono::Utc::now()),
        };
        let v = serde_json::to_value(&r).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let mut fields = FIELDS.to_vec();
        keys.sort();
        fields.sort();
        assert_eq!(keys, fields);
        let mut keys: Vec<&str> = v["original"].as_object().unwrap().keys().map(String::as_str).collect();
        let mut fields = ORIGINAL_FIELDS.to_vec();
        keys.sort();
        fields.sort();
        assert_eq!(keys, fields);
    }
}
