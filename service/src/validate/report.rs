//! A reported reproducer must agree with itself: its text is the text of its program, its
//! decimals read as its inputs, the outputs it calls failing are outputs that failed, and it
//! names no field the server does not know. Checked at ingest (`db::findings::ingest`) after
//! the shape and widths (`validate::check_reported`), so every value here is already hex of
//! the right width. Messages are relative to the reproducer (`program_text: ...`).

use api::Reproducer;
use ptx::program::Program;
use ptx::value::parse_hex;

use super::fields::{cap, check_time, strip_0x, MAX_NAME};
use super::{clip, MAX_PROGRAM_BYTES};

/// How far a decimal reading may be from the exact value, relative: workers print 4 to 9
/// significant digits (`1.084e-19`), and older versions of `ptx` printed other counts, so a
/// reproducer made by an older worker (`ptxfuzz deliver --findings`) keeps being accepted,
/// while the decimal of another value is not.
const DECIMAL_TOLERANCE: f64 = 1e-2;

/// Refuse a reproducer that contradicts itself; `now` is the server's clock.
pub fn check_consistent(r: &Reproducer, program: &Program, now: chrono::DateTime<chrono::Utc>) -> Result<(), String> {
    if r.target.trim().is_empty() {
        return Err("target: empty; give the engine spec that gave the bits (`cuda:0`, `host`, `exec:...`)".into());
    }
    cap("target", &r.target, MAX_NAME, "give the engine spec (`cuda:0`), not a description")?;
    cap("device", &r.device, MAX_NAME, "give the GPU or CPU name, shortened")?;
    if let Some(o) = &r.original {
        cap("original.program_text", &o.program_text, MAX_PROGRAM_BYTES, "send the original case shortened, or without it (null)")?;
    }
    if let Some(t) = r.found_at {
        check_time("found_at", t, now)?;
    }
    // The worker writes `program_text` as `Program::to_string()` of `program`
    // (worker/src/repro.rs); lines are compared trimmed, blank ones dropped, so that an
    // editor's trailing space or newline is not a contradiction.
    let lines = |s: &str| s.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect::<Vec<_>>();
    let text = program.to_string();
    if lines(&r.program_text) != lines(&text) {
        return Err(format!(
            "program_text is not the text of program (which reads '{}'); send program_text as the worker writes it, `Program::to_string()` of program",
            clip(&text.replace('\n', " "))
        ));
    }
    if r.inputs_decimal.len() != r.inputs.len() {
        return Err(format!(
            "inputs_decimal: {} value(s) for {} input(s); give one decimal per input",
            r.inputs_decimal.len(),
            r.inputs.len()
        ));
    }
    for (k, ((&ty, hex), given)) in program.inputs().iter().zip(&r.inputs).zip(&r.inputs_decimal).enumerate() {
        let bits = strip_0x(hex).and_then(parse_hex).ok_or_else(|| format!("inputs[{k}]: '{}' is not 0x-prefixed hex bits", clip(hex)))?;
        // The worker's rendering (`ValType::format_decimal`), compared by value.
        let canonical = ty.format_decimal(bits);
        if !same_reading(given, &canonical) {
            return Err(format!(
                "inputs_decimal[{k}]: '{}' is not the decimal of inputs[{k}] ({hex}, which reads {canonical}); send ValType::format_decimal of the input",
                clip(given)
            ));
        }
    }
    if r.failing_outputs.is_empty() {
        return Err("failing_outputs: empty; a reproducer is of at least one output the target got wrong (list their indices)".into());
    }
    for (i, &k) in r.failing_outputs.iter().enumerate() {
        if r.failing_outputs[..i].contains(&k) {
            return Err(format!("failing_outputs: output {k} is listed twice; list each failing output once"));
        }
        let (Some(expected), Some(actual)) = (r.expected.get(k), r.actual.get(k)) else {
            return Err(format!("failing_outputs: output {k} does not exist (the program has {})", r.expected.len()));
        };
        // An expectation of exactly one value (`0x40400000`, no alternatives, no words) that
        // the target's bits equal is no failure.
        let single = strip_0x(expected.trim()).filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit())).and_then(parse_hex);
        let got = strip_0x(actual).and_then(parse_hex);
        if single.is_some() && single == got {
            return Err(format!(
                "failing_outputs: output {k} is listed as failing, but its actual {} is the one value expected ({}); list only outputs whose actual the expectation does not allow",
                clip(actual),
                clip(expected)
            ));
        }
    }
    Ok(())
}

/// Whether a decimal text reads as the same value(s) as `canonical`, lane by lane (`,`
/// between lanes, `|` between the predicates of a pair).
fn same_reading(given: &str, canonical: &str) -> bool {
    if given == canonical {
        return true;
    }
    let (g, c) = (lanes(given), lanes(canonical));
    g.len() == c.len() && g.iter().zip(&c).all(|(a, b)| close(a, b))
}

fn lanes(s: &str) -> Vec<&str> {
    s.split([',', '|']).map(str::trim).collect()
}

/// A decimal number, `nan` or `inf`, either signed.
fn number(s: &str) -> Option<f64> {
    let (sign, body) = match s.as_bytes().first() {
        Some(b'-') => (-1.0, &s[1..]),
        Some(b'+') => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    let v = match body.to_ascii_lowercase().as_str() {
        "nan" => f64::NAN,
        "inf" | "infinity" => f64::INFINITY,
        b if b.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'-' | b'+')) => b.parse::<f64>().ok()?,
        _ => return None,
    };
    Some(sign * v)
}

fn close(a: &str, b: &str) -> bool {
    match (number(a), number(b)) {
        (Some(x), Some(y)) if x.is_nan() || y.is_nan() => x.is_nan() && y.is_nan(),
        (Some(x), Some(y)) if x.is_infinite() || y.is_infinite() => x == y,
        (Some(x), Some(y)) => x == y || (x - y).abs() <= DECIMAL_TOLERANCE * x.abs().max(y.abs()),
        _ => false,
    }
}

/// The reproducer fields of an ingest body that `api::Reproducer` does not have. The type
/// drops unknown fields (`api::repro::FIELDS` says why), so the ingest looks at the JSON
/// first: a field a newer worker added, or a typo, is refused, not silently lost. The message
/// names the first (`findings[2].reproducer.found_att`).
pub fn unknown_fields(batch: &serde_json::Value) -> Result<(), String> {
    let Some(findings) = batch.get("findings").and_then(|f| f.as_array()) else { return Ok(()) };
    for (k, f) in findings.iter().enumerate() {
        let Some(r) = f.get("reproducer").and_then(|r| r.as_object()) else { continue };
        let original = r.get("original").and_then(|o| o.as_object()).into_iter().flat_map(|o| o.keys().map(|key| (true, key)));
        for (nested, key) in r.keys().map(|key| (false, key)).chain(original) {
            let (known, path) = match nested {
                false => (api::repro::FIELDS, format!("findings[{k}].reproducer.{key}")),
                true => (api::repro::ORIGINAL_FIELDS, format!("findings[{k}].reproducer.original.{key}")),
            };
            if !known.contains(&key.as_str()) {
                return Err(format!(
                    "{path}: unknown field `{}`; a reproducer has {} (upgrade the server if the worker is newer)",
                    clip(key),
                    known.join(", ")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_compared_by_value() {
        assert!(same_reading("0.5", "0.5"));
        assert!(same_reading("3.0733e-8", "3.0733645e-8"));
        assert!(same_reading("0,-1.084e-19", "0,-1.0842022e-19"));
        assert!(same_reading("-nan", "nan") && same_reading("-inf", "-inf"));
        assert!(!same_reading("1", "0.5"));
        assert!(!same_reading("inf", "-inf"));
        assert!(!same_reading("0.5", "0.5,0.5"));
        assert!(!same_reading("zz", "0.5"));
        assert!(same_reading("1|0", "1|0") && !same_reading("0|1", "1|0"));
    }

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        let ok = serde_json::json!({"findings": [{"reproducer": {"signature": "x", "original": {"inputs": []}}}]});
        assert!(unknown_fields(&ok).is_ok());
        let bad = serde_json::json!({"findings": [{"reproducer": {"signature": "x"}}, {"reproducer": {"sigature": "x"}}]});
        let e = unknown_fields(&bad).unwrap_err();
        assert!(e.starts_with("findings[1].reproducer.sigature: unknown field `sigature`"), "{e}");
        let bad = serde_json::json!({"findings": [{"reproducer": {"original": {"inputs": [], "seed": 1}}}]});
        assert!(unknown_fields(&bad).unwrap_err().starts_with("findings[0].reproducer.original.seed"));
    }
}
