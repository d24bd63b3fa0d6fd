//! The data of a hardware profile: its rule table and approximate-unit models, parsed from `ptx/profiles/NAME.json`.

use super::approx_model::{ApproxModel, Status};
use super::cvt_nan::CvtNanRow;
use super::{reading_named, ProfileError};
use crate::expect::Reading;
use crate::format::Scalar;
use crate::narrow_format::Narrow;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One decision: for the forms matching `forms`, take (or reject) the alternative named `reading`.
#[derive(Clone, Debug, Deserialize)]
pub struct Rule {
    pub id: String,
    pub reading: String,
    pub take: bool,
    /// A condition on the operands: `tiny-after-rounding-unbounded-exponent` (fma .ftz).
    #[serde(default)]
    pub when: Option<String>,
    /// Glob patterns on the mnemonic (`*` matches any text), e.g. `fma.*f64`.
    pub forms: Vec<String>,
    pub hardware: String,
    pub evidence: Vec<String>,
    pub spec: String,
}

#[derive(Clone, Debug, Deserialize)]
struct File {
    name: String,
    gpu: String,
    canonical_nan: BTreeMap<String, String>,
    rules: Vec<Rule>,
    f64_nan: F64Nan,
    /// The NaN a float-to-float `cvt` writes (`cvt_nan.rs`); a file without rows keeps the
    /// interpreter's primary (payload-keeping) NaN.
    #[serde(default)]
    cvt_nan: Vec<CvtNanRow>,
    /// Models of the approximate units (`approx_model.rs`); a file without them answers every
    /// approximate form with the spec's set.
    #[serde(default)]
    approx_models: Option<serde_json::Value>,
    /// Function units the models name (`core: {"unit": NAME}`, `mufu.rs`).
    #[serde(default)]
    approx_units: Option<serde_json::Value>,
}

/// Where an f64 NaN result comes from: the payload of the first NaN operand in `payload_order`
/// (per opcode, operand indices), quieted when `quiet_operand`; `generated` when no operand is a NaN.
#[derive(Clone, Debug, Deserialize)]
pub struct F64Nan {
    pub generated: String,
    pub quiet_operand: bool,
    pub payload_order: BTreeMap<String, Vec<usize>>,
    pub hardware: String,
    pub evidence: Vec<String>,
    pub spec: String,
}

#[derive(Clone, Debug)]
pub struct HardwareProfile {
    pub name: String,
    pub gpu: String,
    pub rules: Vec<Rule>,
    readings: Vec<Reading>,
    nan: [u64; 4],
    narrow_nan: Vec<(Narrow, u64)>,
    pub f64_nan: F64Nan,
    f64_generated: u64,
    pub cvt_nan: Vec<CvtNanRow>,
    pub approx_models: Vec<ApproxModel>,
}

impl HardwareProfile {
    pub fn from_json(name: &str, text: &str) -> Result<HardwareProfile, ProfileError> {
        let bad = |message: String| ProfileError::Malformed { name: name.to_string(), message };
        let f: File = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let readings = f
            .rules
            .iter()
            .map(|r| reading_named(&r.reading).ok_or_else(|| bad(format!("rule {}: unknown reading '{}'", r.id, r.reading))))
            .collect::<Result<Vec<_>, _>>()?;
        let hex = |key: &str, t: &str| t.strip_prefix("0x").and_then(crate::value::parse_hex).ok_or_else(|| bad(format!("canonical_nan.{key}: '{t}' is not 0x-hex")));
        let mut nan = [0u64; 4];
        for (i, key) in ["f16", "bf16", "f32", "f64"].iter().enumerate() {
            let t = f.canonical_nan.get(*key).ok_or_else(|| bad(format!("canonical_nan lacks {key}")))?;
            nan[i] = hex(key, t)?;
        }
        // The 8-bit formats are optional: a GPU without them (or without a recording) has none.
        let mut narrow_nan = Vec::new();
        for n in Narrow::ALL {
            if let Some(t) = f.canonical_nan.get(n.name()) {
                narrow_nan.push((n, hex(n.name(), t)?));
            }
        }
        let g = &f.f64_nan.generated;
        let f64_generated = g.strip_prefix("0x").and_then(crate::value::parse_hex).ok_or_else(|| bad(format!("f64_nan.generated: '{g}' is not 0x-hex")))?;
        let approx_models = match f.approx_models {
            Some(v) => ApproxModel::parse_all(v, f.approx_units).map_err(bad)?,
            None => Vec::new(),
        };
        Ok(HardwareProfile { name: f.name, gpu: f.gpu, rules: f.rules, readings, nan, narrow_nan, f64_nan: f.f64_nan, f64_generated, cvt_nan: f.cvt_nan, approx_models })
    }

    /// The first rule naming `reading` that matches `form`.
    pub fn rule_for(&self, form: &str, reading: Reading) -> Option<&Rule> {
        self.rules
            .iter()
            .zip(&self.readings)
            .find(|(rule, r)| **r == reading && rule.forms.iter().any(|p| glob(p, form)))
            .map(|(rule, _)| rule)
    }

    /// The first `cvt_nan` row matching the `cvt` form `form`.
    pub fn cvt_nan_row(&self, form: &str) -> Option<&CvtNanRow> {
        self.cvt_nan.iter().find(|r| r.forms.iter().any(|p| glob(p, form)))
    }

    /// The first model row naming `form` (a mnemonic), bit-exact or partial.
    pub fn approx_model(&self, form: &str) -> Option<&ApproxModel> {
        self.approx_models.iter().find(|m| m.forms.iter().any(|p| glob(p, form)))
    }

    /// The model the profile answers `form` with: a bit-exact row only.
    pub fn exact_model(&self, form: &str) -> Option<&ApproxModel> {
        self.approx_model(form).filter(|m| m.status == Status::BitExact)
    }

    /// The f64 NaN result of `op` (its `Opcode::name`) on `operands`; `None` when the table has no row for `op`.
    pub fn f64_nan_result(&self, op: &str, operands: &[u64]) -> Option<u64> {
        let order = self.f64_nan.payload_order.get(op)?;
        let is_nan = |v: u64| v & !(1 << 63) > 0x7ff0_0000_0000_0000;
        let quiet = if self.f64_nan.quiet_operand { 1u64 << 51 } else { 0 };
        Some(order.iter().filter_map(|&i| operands.get(i).copied()).find(|&v| is_nan(v)).map_or(self.f64_generated, |v| v | quiet))
    }

    /// The NaN of an 8-bit-or-narrower format the GPU writes where the spec leaves it open;
    /// `None` where the profile records none for `n`.
    pub fn narrow_nan(&self, n: Narrow) -> Option<u64> {
        self.narrow_nan.iter().find(|(m, _)| *m == n).map(|(_, b)| *b)
    }

    /// The NaN the GPU writes where the spec leaves the NaN unspecified.
    pub fn canonical_nan(&self, s: Scalar) -> u64 {
        self.nan[match s {
            Scalar::F16 => 0,
            Scalar::BF16 => 1,
            Scalar::F32 => 2,
            Scalar::F64 => 3,
        }]
    }
}

/// `*` matches any run of characters; everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            text.starts_with(head) && (head.len()..=text.len()).any(|i| glob(rest, &text[i..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn glob_star_matches_any_text_and_literals_match_exactly() {
        assert!(glob("fma.*f64", "fma.rn.f64"));
        assert!(glob("*.sat.*", "add.rn.sat.f32"));
        assert!(!glob("*.sat.*", "add.rn.f32"));
        assert!(glob("abs.f64", "abs.f64"));
    }
}
