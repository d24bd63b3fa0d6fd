//! Bit-exact models of one GPU's approximate instructions (issue #15): rows of data in the
//! profile file (`approx_models`), one small evaluator here.
//!
//! A model is the pipeline the hardware runs, in the order it runs it (docs/approx.md, "Models"):
//! 1. NaN in: the GPU's canonical NaN; `.ftz` flushes a subnormal input; the spec's
//!    special-value table (`approx::special`) gives zeros and infinities exactly;
//! 2. the unit reads its operand as fixed point with `input_fraction_bits` fraction bits,
//!    truncated toward zero (the f32 `ex2` unit: 23, from the dense dumps);
//! 3. inputs below `identity_below` in magnitude return themselves, inputs at or above
//!    `saturate_from` return +-1 (tanh);
//! 4. the unit's value: `core`, the correctly rounded f32 function (where the half forms
//!    truncate it, the ex2 unit's own error vanishes), a function unit's datapath (`mufu`), or
//!    the tanh unit's bipartite tables (`bipartite`);
//! 5. the output: the f32 value truncated to the form's format (`output`).
//!
//! A row is `bit-exact` only when it reproduced every recorded input (the test beside this
//! file checks each against `../shared/hw/h100-sm90/dense/`, input by input); the profile
//! answers with bit-exact rows only. A `partial` row documents how far a model gets.

use crate::approx::special::{self, Class};
use crate::approx::{pow2, Form};
use crate::format::{Format, Scalar, BF16, F16, F32};
use crate::isa::Ftz;
use super::bipartite::Bipartite;
use super::mufu::{Unit, UnitRow};
use serde::Deserialize;

/// How the unit's value is obtained, as a row names it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum CoreRow {
    CorrectlyRoundedF32,
    /// The name of a function unit in the file's `approx_units` (`mufu.rs`).
    Unit(String),
    /// The name of an embedded bipartite table (`bipartite.rs`).
    Bipartite(String),
}

/// How the unit's value is obtained.
#[derive(Clone, Debug, PartialEq)]
pub enum Core {
    /// The function at the (quantized) input, correctly rounded to f32 (CORE-MATH).
    CorrectlyRoundedF32,
    /// The f32 function unit itself, bit for bit (`mufu::Unit`), with the SASS ptxas wraps
    /// around it; f32 lanes only.
    Unit { name: String, unit: Box<Unit> },
    /// A bipartite-table unit (the tanh unit, `bipartite::Bipartite`) on |x|, the sign of x;
    /// it runs f32 lanes and, truncated, the half forms built on it.
    Bipartite { name: String, table: std::sync::Arc<Bipartite> },
}

/// How the f32 value becomes the form's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Output {
    /// Significand truncated to the format (toward zero); a value past the format's largest
    /// exponent is infinity (ex2.approx.f16 of 16.0 is 0x7c00, not 0x7bff); `.ftz` forms
    /// flush a subnormal result to zero of the same sign.
    Truncate,
}

/// Whether the profile may answer with the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Reproduces every recorded input: the profile answers with it.
    BitExact,
    /// Reproduces most: documented, measured, never used to judge.
    Partial,
}

/// One row of `approx_models` in a profile file, as written there.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    id: String,
    forms: Vec<String>,
    #[serde(default)]
    input_fraction_bits: Option<u32>,
    /// An f32 bit pattern (`0x...`): magnitudes below it return the input.
    #[serde(default)]
    identity_below: Option<String>,
    /// An f32 bit pattern: magnitudes at or above it return +-1.
    #[serde(default)]
    saturate_from: Option<String>,
    core: CoreRow,
    output: Output,
    status: Status,
    measured: String,
    hardware: String,
    evidence: Vec<String>,
    spec: String,
}

/// A model, parsed and checked.
#[derive(Clone, Debug)]
pub struct ApproxModel {
    pub id: String,
    /// Glob patterns on the mnemonic, as the rule table's.
    pub forms: Vec<String>,
    pub input_fraction_bits: Option<u32>,
    pub identity_below: Option<f32>,
    pub saturate_from: Option<f32>,
    pub core: Core,
    pub output: Output,
    pub status: Status,
    /// What the model reproduced, with its source (e.g. "65,536 of 65,536 inputs, both lanes").
    pub measured: String,
    pub hardware: String,
    pub evidence: Vec<String>,
    pub spec: String,
}

impl ApproxModel {
    /// Parse the `approx_models` array of a profile file, with the `approx_units` object its
    /// rows name; `Err` says which row or unit is wrong.
    pub(super) fn parse_all(models: serde_json::Value, units: Option<serde_json::Value>) -> Result<Vec<ApproxModel>, String> {
        let rows: Vec<Row> = serde_json::from_value(models).map_err(|e| format!("approx_models: {e}"))?;
        let units: std::collections::BTreeMap<String, UnitRow> = match units {
            Some(u) => serde_json::from_value(u).map_err(|e| format!("approx_units: {e}"))?,
            None => Default::default(),
        };
        rows.into_iter().map(|r| ApproxModel::from_row(r, &units)).collect()
    }

    fn from_row(r: Row, units: &std::collections::BTreeMap<String, UnitRow>) -> Result<ApproxModel, String> {
        let core = match &r.core {
            CoreRow::CorrectlyRoundedF32 => Core::CorrectlyRoundedF32,
            CoreRow::Unit(name) => {
                let u = units.get(name).ok_or_else(|| format!("approx model {}: no unit '{name}' in approx_units", r.id))?;
                Core::Unit { name: name.clone(), unit: Box::new(Unit::parse(name, u)?) }
            }
            CoreRow::Bipartite(name) => Core::Bipartite { name: name.clone(), table: Bipartite::embedded(name).map_err(|e| format!("approx model {}: {e}", r.id))? },
        };
        let f32_hex = |field: &str, t: &Option<String>| -> Result<Option<f32>, String> {
            t.as_ref()
                .map(|t| {
                    hex(t)
                        .and_then(|b| u32::try_from(b).ok())
                        .map(f32::from_bits)
                        .filter(|v| v.is_finite() && *v > 0.0)
                        .ok_or_else(|| format!("approx model {}: {field} '{t}' is not a positive finite f32 as 0x-hex", r.id))
                })
                .transpose()
        };
        if r.input_fraction_bits.is_some_and(|b| b > 60) {
            return Err(format!("approx model {}: input_fraction_bits must be at most 60", r.id));
        }
        if r.forms.is_empty() || r.evidence.is_empty() {
            return Err(format!("approx model {}: forms and evidence must not be empty", r.id));
        }
        Ok(ApproxModel {
            identity_below: f32_hex("identity_below", &r.identity_below)?,
            saturate_from: f32_hex("saturate_from", &r.saturate_from)?,
            id: r.id,
            forms: r.forms,
            input_fraction_bits: r.input_fraction_bits,
            core,
            output: r.output,
            status: r.status,
            measured: r.measured,
            hardware: r.hardware,
            evidence: r.evidence,
            spec: r.spec,
        })
    }

    /// The result of one lane of `form` on the lane's operand bits (one per source operand);
    /// `nan` is the GPU's canonical NaN of the lane format. `None` for a form the model cannot
    /// run (`runs_on`).
    pub fn lane(&self, form: &Form, inputs: &[u64], nan: u64) -> Option<u64> {
        if !self.runs_on(form) {
            return None;
        }
        match (form.scalar, &self.core) {
            (_, Core::Unit { unit, .. }) => Some(unit.form_lane(form, inputs, nan)),
            (Scalar::F32, _) => Some(self.lane_in::<F32>(form, inputs[0], nan)),
            (Scalar::F16, _) => Some(self.lane_in::<F16>(form, inputs[0], nan)),
            (Scalar::BF16, _) => Some(self.lane_in::<BF16>(form, inputs[0], nan)),
            _ => None,
        }
    }

    /// Whether the evaluator runs `form`: a unit runs the forms its SASS uses it for (f32,
    /// div, the gross f64 forms: an f32 result is the unit's own output, which needs the
    /// unit's segment table, not a truncated stand-in); a bipartite unit runs one-operand f32
    /// lanes too (its own output); the other cores run one-operand half lanes.
    pub fn runs_on(&self, form: &Form) -> bool {
        match &self.core {
            Core::Unit { unit, .. } => unit.function.computes(form),
            Core::Bipartite { .. } => form.arity == 1 && matches!(form.scalar, Scalar::F32 | Scalar::F16 | Scalar::BF16),
            _ => form.arity == 1 && matches!(form.scalar, Scalar::F16 | Scalar::BF16),
        }
    }

    fn lane_in<F: Format>(&self, form: &Form, input: u64, nan: u64) -> u64 {
        if F::is_nan(input) {
            return nan;
        }
        let x = if form.ftz == Ftz::Flush { F::flush(input) } else { input };
        if let Some(s) = special::table(form.func, form.scalar).and_then(|t| t.lookup(Class::of::<F>(x))) {
            return s.bits::<F>(x).unwrap_or(nan);
        }
        let value = crate::approx::to_f64::<F>(x);
        let magnitude = value.abs();
        if self.identity_below.is_some_and(|t| magnitude < t as f64) {
            return x;
        }
        if self.saturate_from.is_some_and(|t| magnitude >= t as f64) {
            return F::ONE | if F::sign(x) { F::SIGN_MASK } else { 0 };
        }
        let q = match self.input_fraction_bits {
            // Toward zero: the unit's fixed-point reading of the operand.
            Some(b) => (value * pow2(b as i32)).trunc() / pow2(b as i32),
            None => value,
        };
        // Every quantized lane value is an f32 (at most 24 significant bits: a half value
        // has 11, and the cut only removes low ones).
        let y = match &self.core {
            Core::CorrectlyRoundedF32 => crate::approx::correctly_rounded_f32(form.func, q as f32),
            // `runs_on` sends only f32 lanes to a unit.
            Core::Unit { .. } => unreachable!("a unit model runs f32 lanes only"),
            // Every magnitude between the thresholds is in a binade of the table (NaN where
            // not, which the dense test would show); q is an f32 value (at most 24 bits).
            Core::Bipartite { table, .. } => {
                let v = table.magnitude((q.abs() as f32).to_bits()).map_or(f32::NAN, f32::from_bits);
                if q < 0.0 { -v } else { v }
            }
        };
        match self.output {
            Output::Truncate => truncate::<F>(y, form.ftz),
        }
    }
}

/// A `0x`-prefixed bit pattern, as the profile file writes every exact value.
fn hex(text: &str) -> Option<u64> {
    text.strip_prefix("0x").and_then(crate::value::parse_hex)
}

/// The f32 `y` truncated to `F` (toward zero); past `F`'s largest exponent, infinity; `.ftz`
/// flushes a subnormal result.
fn truncate<F: Format>(y: f32, ftz: Ftz) -> u64 {
    let sign = if y.is_sign_negative() { F::SIGN_MASK } else { 0 };
    let a = y.abs();
    if a.is_nan() {
        return F::CANONICAL_NAN;
    }
    if a == 0.0 {
        return sign;
    }
    if a.is_infinite() {
        return sign | F::INF;
    }
    let bits = a.to_bits();
    let e = ((bits >> 23) as i32) - 127; // unbiased; f32 subnormals have e = -127
    let sig = if e == -127 { (bits & 0x7f_ffff) as u64 } else { (bits & 0x7f_ffff | 0x80_0000) as u64 };
    let e = e.max(-126); // a = sig * 2^(e - 23)
    if e > F::EMAX {
        return sign | F::INF;
    }
    // The result's quantum is 2^(max(e, EMIN) - FRAC_BITS).
    let q = e.max(F::EMIN) - F::FRAC_BITS as i32;
    let shift = q - (e - 23);
    let n = if shift >= 64 { 0 } else { sig >> shift };
    // Encoding with the quantum's exponent (as approx::reference::round_nearest does): below
    // EMIN the base is 0 and `n` the subnormal's significand.
    let mag = (((q + F::FRAC_BITS as i32 + F::BIAS - 1) as u64) << F::FRAC_BITS) + n;
    let out = sign | mag;
    if ftz == Ftz::Flush {
        F::flush(out)
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_cuts_the_significand_and_overflows_past_the_largest_exponent() {
        // 1 + 2^-11 + 2^-23 truncates to f16 1.0; 65535.99 stays in f16's top binade (0x7bff),
        // 65536 is past it: infinity (ex2.approx.f16 of 16.0 gives 0x7c00 on the H100).
        assert_eq!(truncate::<F16>(1.0 + 2f32.powi(-11) + 2f32.powi(-23), Ftz::Preserve), 0x3c00);
        assert_eq!(truncate::<F16>(65535.99, Ftz::Preserve), 0x7bff);
        assert_eq!(truncate::<F16>(65536.0, Ftz::Preserve), 0x7c00);
        assert_eq!(truncate::<F16>(-3.0 * 2f32.powi(-24) - 2f32.powi(-30), Ftz::Preserve), 0x8003);
        assert_eq!(truncate::<F16>(2f32.powi(-14) * (1.0 - 2f32.powi(-20)), Ftz::Preserve), 0x03ff);
        // bf16 is f32's upper half; .ftz flushes a subnormal result.
        assert_eq!(truncate::<BF16>(f32::from_bits(0x3f7f_ffff), Ftz::Preserve), 0x3f7f);
        assert_eq!(truncate::<BF16>(f32::from_bits(0x0040_0000), Ftz::Preserve), 0x0040);
        assert_eq!(truncate::<BF16>(f32::from_bits(0x8040_0000), Ftz::Flush), 0x8000);
        for bits in (0..0x7f80_0000u32).step_by(0x1_0003) {
            assert_eq!(truncate::<BF16>(f32::from_bits(bits), Ftz::Preserve), (bits >> 16) as u64, "{bits:#x}");
        }
    }

    #[test]
    fn a_row_with_a_bad_threshold_or_no_evidence_is_refused_with_its_id() {
        let row = |extra: &str| {
            serde_json::from_str::<serde_json::Value>(&format!(
                r#"[{{"id": "m", "forms": ["tanh.approx.f16"], "core": "correctly-rounded-f32", "output": "truncate",
                    "status": "partial", "measured": "", "hardware": "", "evidence": ["e"], "spec": "9.7.4.9"{extra}}}]"#
            ))
            .unwrap()
        };
        assert!(ApproxModel::parse_all(row(""), None).is_ok());
        let e = ApproxModel::parse_all(row(r#", "saturate_from": "8.0""#), None).unwrap_err();
        assert!(e.contains("approx model m") && e.contains("saturate_from"), "{e}");
        let e = ApproxModel::parse_all(row(r#", "rounding": "rz""#), None).unwrap_err();
        assert!(e.contains("rounding"), "{e}");
    }

    #[test]
    fn a_bipartite_core_must_name_an_embedded_table() {
        let model = |name: &str| serde_json::json!([{"id": "m", "forms": ["tanh.approx.f32"], "core": {"bipartite": name},
            "output": "truncate", "status": "partial", "measured": "", "hardware": "", "evidence": ["e"], "spec": "9.7.3.22"}]);
        let e = ApproxModel::parse_all(model("t"), None).unwrap_err();
        assert!(e.contains("approx model m") && e.contains("no bipartite table 't'"), "{e}");
        let m = ApproxModel::parse_all(model("sm_90-tanh"), None).unwrap();
        assert!(matches!(&m[0].core, Core::Bipartite { name, .. } if name == "sm_90-tanh"));
    }
}
