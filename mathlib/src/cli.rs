//! Helpers for the `ptxfuzz math list` / `ptxfuzz math eval NAME OPERANDS...` commands:
//! the table as text, operand parsing, and one evaluation with its allowed range.

use crate::allowed::{allowed, Allowed};
use crate::op::{Args, Ty, Value};
use crate::reference::{reference_op, row, Reference};
use crate::table::{select, ArgRange, Bound, Build, CcReq, FlagReq, MathFn, FUNCTIONS};
use crate::MathError;
use std::fmt::{self, Write};

/// Parses one operand of type `ty`: floats as hex bits (`0x3f800000`) or decimal (`1.5`,
/// `-inf`, `nan`, rounded to nearest); integers as decimal or hex.
pub fn parse_operand(ty: Ty, s: &str) -> Result<u64, MathError> {
    // What to write instead depends on the argument: an int (jnf's n) takes no float.
    let advice = match ty {
        Ty::F32 | Ty::F64 => "give hex bits (0x3f800000) or a decimal",
        Ty::Int => "give a whole number from -2147483648 to 2147483647 (decimal or 0x hex), e.g. 3",
        Ty::Long => "give a whole number (decimal or 0x hex), e.g. 3",
    };
    let bad = |why: &str| MathError::Operand { operand: s.to_string(), ty, why: why.to_string(), advice };
    let hex = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"));
    match ty {
        Ty::F32 | Ty::F64 => {
            if let Some(h) = hex {
                let v = u64::from_str_radix(h, 16).map_err(|e| bad(&e.to_string()))?;
                if ty == Ty::F32 && v > u32::MAX as u64 {
                    return Err(bad("more than 32 bits for a float"));
                }
                return Ok(v);
            }
            match ty {
                Ty::F32 => s.parse::<f32>().map(|v| v.to_bits() as u64),
                _ => s.parse::<f64>().map(f64::to_bits),
            }
            .map_err(|e| bad(&e.to_string()))
        }
        Ty::Int | Ty::Long => {
            let v = match hex {
                Some(h) => u64::from_str_radix(h, 16).map(|v| v as i64),
                None => s.parse::<i64>(),
            };
            let v = v.map_err(|e| bad(&e.to_string()))?;
            if ty == Ty::Int && i32::try_from(v).is_err() {
                return Err(bad("out of range for a 32-bit int"));
            }
            Ok(v as u64)
        }
    }
}

/// One evaluation: the reference and what the bound selected for `build` accepts.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub name: String,
    pub args: Vec<u64>,
    pub arg_types: Vec<Ty>,
    pub reference: Reference,
    /// `None`: no row applies to these arguments and build (no bound documented).
    pub allowed: Option<Allowed>,
}

/// Evaluates `name` on operand strings (see [`parse_operand`]) for `build`.
pub fn evaluate(name: &str, operands: &[&str], build: &Build) -> Result<Evaluation, MathError> {
    let op = row(name)?.op;
    let arg_types = op.arg_types(operands.len());
    if !matches!(op.kernel.args(), Args::Array) && operands.len() != arg_types.len() {
        return Err(MathError::Arity { function: name.to_string(), want: arg_types.len(), got: operands.len() });
    }
    let args = operands
        .iter()
        .zip(&arg_types)
        .map(|(s, &t)| parse_operand(t, s))
        .collect::<Result<Vec<_>, _>>()?;
    let reference = reference_op(&op, &args)?;
    let allowed = select(name, build, &args).map(|r| allowed(r, &args)).transpose()?;
    Ok(Evaluation { name: name.to_string(), args, arg_types, reference, allowed })
}

fn show_arg(ty: Ty, bits: u64) -> String {
    match ty {
        Ty::F32 => Value::F32(bits as u32).to_string(),
        Ty::F64 => Value::F64(bits).to_string(),
        Ty::Int | Ty::Long => (bits as i64).to_string(),
    }
}

impl fmt::Display for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<String> = self.args.iter().zip(&self.arg_types).map(|(&b, &t)| show_arg(t, b)).collect();
        writeln!(f, "{}({})", self.name, args.join(", "))?;
        for (i, (v, e)) in self.reference.values.iter().zip(&self.reference.exact).enumerate() {
            writeln!(f, "  result {i}: correctly rounded {v}")?;
            writeln!(f, "            exact            {e}")?;
            if let Some(a) = &self.allowed {
                writeln!(f, "            allowed          {}", a.outputs[i])?;
            }
        }
        match &self.allowed {
            Some(a) => {
                // A documented behaviour cites the prose that states it, not the row's cell.
                let (source, quote) = match a.row.bound {
                    Bound::Documented(b) => {
                        let (source, quote) = b.source();
                        (source.to_string(), quote)
                    }
                    _ => (a.row.table.to_string(), a.row.text),
                };
                write!(f, "  bound: {} [{source}: \"{quote}\"]", bound_text(&a.row.bound))
            }
            None => write!(f, "  bound: none documented for these arguments and build"),
        }
    }
}

/// Short text of a bound.
pub fn bound_text(b: &Bound) -> String {
    match *b {
        Bound::Ulp(k) => format!("{k} ulp"),
        Bound::UlpLinear { base, slope } => format!("{base} + floor(|{slope} x|) ulp"),
        Bound::UlpPerN { base, per_n } => format!("ceil({base} + {per_n} n) ulp"),
        Bound::Abs(e) => format!("abs {:.3e}", e.value()),
        Bound::Ieee => "IEEE (correctly rounded)".into(),
        Bound::Documented(d) => format!("documented: {}", d.text()),
        Bound::SameAs(n) => format!("same as {}", n.join(", ")),
        Bound::Derived(s) => format!("derived from {s}"),
        Bound::NoneDocumented(s) => format!("none ({s})"),
    }
}

/// A bound of an argument range: powers of two as `2^e`.
fn num(v: f64) -> String {
    let (m, e) = crate::exact::frexp(v);
    if m == 0.5 && e.abs() > 10 {
        format!("2^{}", e - 1)
    } else {
        v.to_string()
    }
}

/// Short text of a row's condition.
pub fn condition_text(r: &MathFn) -> String {
    let c = &r.condition;
    let mut parts = Vec::new();
    match c.args {
        ArgRange::Full => {}
        ArgRange::AbsBelow { limit, .. } => parts.push(format!("|x| < {limit}")),
        ArgRange::AbsNotBelow { limit, .. } => parts.push(format!("|x| >= {limit}")),
        ArgRange::Within { lo, hi, .. } => parts.push(format!("x in [{lo}, {hi}]")),
        ArgRange::Outside { lo, hi, .. } => parts.push(format!("x outside [{lo}, {hi}]")),
        ArgRange::AbsWithin { lo, hi, .. } => parts.push(format!("|y| in [{}, {}]", num(lo), num(hi))),
        ArgRange::AbsBetweenOpen { lo, hi, .. } => parts.push(format!("{} < |y| < {}", num(lo), num(hi))),
        ArgRange::AbsBelowScaledN { scale, .. } => parts.push(format!("|x| < {scale} n")),
        ArgRange::AbsNotBelowScaledN { scale, .. } => parts.push(format!("|x| >= {scale} n")),
        ArgRange::AbsAboveScaledN { scale, .. } => parts.push(format!("|x| > {scale} n")),
        ArgRange::IntEquals { value, .. } => parts.push(format!("n = {value}")),
    }
    match c.flags {
        FlagReq::Any => {}
        FlagReq::PrecDiv(v) => parts.push(format!("-prec-div={v}")),
        FlagReq::PrecSqrt(v) => parts.push(format!("-prec-sqrt={v}")),
    }
    match c.cc {
        CcReq::Any => {}
        CcReq::AtLeast(cc) => parts.push(format!("cc >= {cc}")),
        CcReq::Below(cc) => parts.push(format!("cc < {cc}")),
        CcReq::Above(cc) => parts.push(format!("cc > {cc}")),
    }
    // Table 9: with -use_fast_math the call becomes the intrinsic, whose rows apply instead.
    if let Some(m) = crate::table::FAST_MATH.iter().find(|m| m.name == r.name) {
        parts.push(format!("no -use_fast_math (else {})", m.intrinsic));
    }
    let s = parts.join(", ");
    match (c.otherwise, s.is_empty()) {
        (true, true) => "otherwise".into(),
        (true, false) => format!("otherwise: {s}"),
        (false, true) => "full range".into(),
        (false, false) => s,
    }
}

/// All rows as a text table (one line per row), then Table 9.
pub fn format_table() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<6} {:<16} {:<30} {:<40} {:<40} bound", "table", "name", "entry", "signature", "condition");
    for r in FUNCTIONS {
        let ret: Vec<String> = r.op.result_types().iter().map(Ty::to_string).collect();
        let args: Vec<String> = match r.op.kernel.args() {
            Args::Array => vec!["int".into(), format!("const {}*", r.op.fmt.ty())],
            _ => r.op.arg_types(0).iter().map(Ty::to_string).collect(),
        };
        let sig = format!("({}) -> {}", args.join(","), ret.join(","));
        let _ = writeln!(
            out,
            "{:<6} {:<16} {:<30} {:<40} {:<40} {}",
            r.table.to_string().trim_start_matches("Table "),
            r.name,
            r.entry,
            sig,
            condition_text(r),
            bound_text(&r.bound)
        );
    }
    let _ = writeln!(out, "\n-use_fast_math (Table 9):");
    for m in crate::table::FAST_MATH {
        let _ = writeln!(out, "  {:<22} -> {}", m.function, m.device_function);
    }
    out
}

#[cfg(test)]
mod tests;
