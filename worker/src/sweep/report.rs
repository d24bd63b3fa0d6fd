//! What a sweep found (`Report`), its error histogram, and how it is printed and posted:
//! the text report, the server's `SweepReport`, the documented bounds beside it.

use std::fmt::Write as _;

use ptx::isa::Instr;
use serde::Serialize;

use super::{post, GpuKernel};

/// Histogram buckets: 0, 1, 2, 3 ulps, then [4, 8), [8, 16), ... [2^63, 2^64).
pub const BUCKETS: usize = 66;

/// The histogram bucket of an error of `ulps`.
pub fn bucket(ulps: u64) -> usize {
    if ulps < 4 {
        ulps as usize
    } else {
        2 + (63 - ulps.leading_zeros() as usize)
    }
}

/// The bucket's label: `0`, `1`, `2`, `3`, `4-7`, `8-15`, ...
pub fn bucket_label(b: usize) -> String {
    if b < 4 {
        b.to_string()
    } else {
        let lo = 1u128 << (b - 2);
        format!("{lo}-{}", 2 * lo - 1)
    }
}

/// One input worth showing: values in hex, and beside them (`*_decimal`, added after the hex
/// fields so that readers of those keep working) as the form's registers read them.
#[derive(Clone, Debug, Serialize)]
pub struct Example {
    pub operands: Vec<String>,
    pub got: String,
    pub reference: String,
    pub allowed: String,
    pub ulps: Option<u64>,
    /// Each operand's value (`1`, `-0.5`; packed lanes `a,b`).
    pub operands_decimal: Vec<String>,
    pub got_decimal: String,
    pub reference_decimal: String,
    /// The allowed set in decimal (`Expectation::decimal`), where it has one (a float result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_decimal: Option<String>,
}

/// `hex (decimal)`, as the text report shows a value.
fn both(hex: &str, decimal: &str) -> String {
    format!("{hex} ({decimal})")
}

impl Example {
    /// The operands as `0x3f800000 (1), 0x40000000 (2)`.
    pub fn operands_text(&self) -> String {
        self.operands.iter().zip(&self.operands_decimal).map(|(h, d)| both(h, d)).collect::<Vec<_>>().join(", ")
    }
}

/// Input `i` of `instr` worth showing: its operands, the target's bits for it (`engine_bits`;
/// the reference's where the rerun gave none), the reference judged by `profile`.
pub fn example(instr: &Instr, profile: &ptx::profile::Profile, i: u64, engine_bits: Option<u64>) -> Example {
    use ptx::program::ValType;
    let s = instr.ty.scalar();
    let hex = |v: u64| format!("0x{v:0w$x}", w = (instr.ty.bits() / 4) as usize);
    let ops = super::operands(instr, i);
    let ops = &ops[..instr.inputs as usize];
    let e = ptx::interp::eval(instr, ops).ok().map(|e| crate::compare::narrow(profile, instr, ops, e));
    let reference = e.as_ref().map_or(0, |e| e.primary_bits());
    let got = engine_bits.unwrap_or(reference);
    let result = ValType::of_result(instr);
    Example {
        operands: ops.iter().map(|&o| hex(o)).collect(),
        got: hex(got),
        reference: hex(reference),
        allowed: e.as_ref().map_or_else(String::new, |e| e.to_string()),
        ulps: (0..instr.ty.lanes())
            .map(|l| super::ulps(s, (got >> (l * s.bits())) & s.mask(), (reference >> (l * s.bits())) & s.mask()))
            .try_fold(0u64, |m, u| u.map(|u| m.max(u))),
        operands_decimal: ops.iter().enumerate().map(|(k, &o)| ValType::of_operand(instr, k).format_decimal(o)).collect(),
        got_decimal: result.format_decimal(got),
        reference_decimal: result.format_decimal(reference),
        allowed_decimal: e.and_then(|e| e.decimal()),
    }
}

/// What a sweep found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub instr: String,
    pub target: String,
    /// The profile mismatches were judged against (`--judge`).
    pub judge: String,
    pub inputs: u128,
    pub space_bits: u32,
    pub exhaustive: bool,
    pub interrupted: bool,
    pub seconds: f64,
    /// Results the PTX ISA does not allow.
    pub mismatches: u64,
    /// Cases per histogram bucket (see [`bucket_label`]), trailing empty buckets dropped.
    pub histogram: Vec<u64>,
    /// A NaN against a number (no ulp distance).
    pub nan_vs_number: u64,
    pub max_ulps: u64,
    pub max_at: Option<Example>,
    pub examples: Vec<Example>,
    /// The documented bound rows (ptx::approx::bounds), or "correctly rounded".
    pub bounds: Vec<String>,
    pub faults: u64,
    pub last_fault: Option<String>,
    /// The output fingerprint (`sweep::fingerprint`, 16 hex digits) when every input ran
    /// without a fault and the form has one; comparable with `sweeps.jsonl`.
    pub fingerprint: Option<String>,
    /// How the GPU sweep kernel split the work, when it ran (`sweep::gpu`); then `histogram`,
    /// `max_ulps` and `nan_vs_number` count only the inputs judged on the CPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_kernel: Option<GpuKernel>,
}

/// The bound rows of an approximate form; "correctly rounded" for the IEEE-rounded ones.
pub fn documented_bounds(instr: &Instr) -> Vec<String> {
    match ptx::approx::Form::of(instr) {
        Some(f) => ptx::approx::bounds::rows_for(f.func, f.scalar)
            .iter()
            .map(|b| format!("{} (\"{}\")", b.to_string().split_whitespace().collect::<Vec<_>>().join(" "), b.spec))
            .collect(),
        None if instr.is_approximate() => vec!["no bound row known for this form".into()],
        None => vec!["correctly rounded: 0 ulp (IEEE 754 rounding in the stated mode)".into()],
    }
}

impl Report {
    pub fn text(&self) -> String {
        let mut s = String::new();
        let rate = self.inputs as f64 / self.seconds.max(1e-9);
        let _ = writeln!(
            s,
            "sweep {} on {}: {} inputs{} of 2^{}, {:.1} s ({:.2} M inputs/s){}",
            self.instr,
            self.target,
            self.inputs,
            if self.exhaustive { " (all)" } else { "" },
            self.space_bits,
            self.seconds,
            rate / 1e6,
            if self.interrupted { ", interrupted" } else { "" }
        );
        for b in &self.bounds {
            let _ = writeln!(s, "  documented bound: {b}");
        }
        match self.judge.as_str() {
            "spec" => writeln!(s, "  mismatches (results the PTX ISA does not allow): {}", self.mismatches),
            p => writeln!(s, "  mismatches (results the {p} profile does not give): {}", self.mismatches),
        }
        .expect("writing to a String");
        if self.faults > 0 {
            let _ = writeln!(s, "  engine faults: {} batches (last: {})", self.faults, self.last_fault.as_deref().unwrap_or(""));
        }
        if let Some(g) = &self.gpu_kernel {
            s.push_str(&g.text());
        }
        let _ = writeln!(s, "  error in ulps from the correctly rounded result{}:", if self.gpu_kernel.is_some() { " (inputs judged on the CPU)" } else { "" });
        let total = self.gpu_kernel.as_ref().map_or(self.inputs, |g| g.judged as u128).max(1) as f64;
        for (b, &n) in self.histogram.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(s, "    {:>12} ulp  {:>12}  {:>8.4}%", bucket_label(b), n, 100.0 * n as f64 / total);
            }
        }
        if self.nan_vs_number > 0 {
            let _ = writeln!(s, "    {:>12}      {:>12}  {:>8.4}%", "NaN/number", self.nan_vs_number, 100.0 * self.nan_vs_number as f64 / total);
        }
        if let Some(f) = &self.fingerprint {
            let _ = writeln!(s, "  output fingerprint: {f} (the sweeps.jsonl hash: compare with --truth FILE)");
        }
        if let Some(m) = self.max_at.as_ref().filter(|_| self.max_ulps > 0) {
            let _ = writeln!(
                s,
                "  max error: {} ulp at {} (got {}, correctly rounded {})",
                self.max_ulps,
                m.operands_text(),
                both(&m.got, &m.got_decimal),
                both(&m.reference, &m.reference_decimal)
            );
        }
        for e in &self.examples {
            let allowed = e.allowed_decimal.as_ref().map_or_else(|| e.allowed.clone(), |d| both(&e.allowed, d));
            let _ = writeln!(s, "  mismatch: {} -> got {}, allowed {allowed}", e.operands_text(), both(&e.got, &e.got_decimal));
        }
        s
    }
}

/// The report as the server takes it (`POST /api/v1/sweeps`).
pub fn server_report(r: &Report, instr: &Instr, info: &crate::oracles::EngineInfo) -> api::sweeps::SweepReport {
    api::sweeps::SweepReport {
        kind: api::sweeps::SweepKind::Sweep,
        name: r.instr.clone(),
        target: info.name.clone(),
        device: info.device.clone(),
        gpu_name: info.sm.map(|_| info.device.clone()),
        driver_version: info.driver.clone(),
        interpreter_commit: crate::server::interpreter_commit(),
        flags: String::new(),
        inputs: u64::try_from(r.inputs).unwrap_or(u64::MAX),
        exhaustive: r.exhaustive,
        mismatches: r.mismatches,
        max_ulps: r.max_ulps,
        histogram: post::buckets(&r.histogram),
        bound_text: r.bounds.clone(),
        bound_ulps: bound_ulps(instr),
        at: chrono::Utc::now(),
    }
}

/// The documented bound in ulps: 0 for the correctly rounded forms, the largest ulp row of an
/// approximate form, `None` where its bounds are absolute, relative or undocumented.
pub fn bound_ulps(instr: &Instr) -> Option<u64> {
    use ptx::approx::bounds::BoundKind;
    match ptx::approx::Form::of(instr) {
        Some(f) => ptx::approx::bounds::rows_for(f.func, f.scalar)
            .iter()
            .filter_map(|b| match b.kind {
                BoundKind::Ulps(n) => Some(n as u64),
                _ => None,
            })
            .max(),
        None if instr.is_approximate() => None,
        None => Some(0),
    }
}
