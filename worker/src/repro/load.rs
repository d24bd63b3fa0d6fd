//! Reading a repro.json's text into a [`Reproducer`], with errors in the user's terms: the
//! file, the field that is wrong, and what the file is if it is some other ptxfuzz file (a
//! program, a campaign's summary) rather than serde's view of the struct.

use std::path::Path;

use anyhow::{bail, Result};
use ptx::program::Program;
use serde_json::Value;

use super::{Reproducer, FORMAT};

/// The reproducer in `text`, read from `file`.
pub(super) fn parse(file: &Path, text: &str) -> Result<Reproducer> {
    let shown = file.display();
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) if e.is_eof() && text.trim().is_empty() => bail!("{shown} is empty; give a finding's repro.json as `ptxfuzz campaign` writes it"),
        Err(e) => bail!(
            "{shown} is not a ptxfuzz reproducer: {e} (not valid JSON); a finding's repro.json is written whole by `ptxfuzz campaign`, \
             so take a fresh copy of the folder, or fix the file by hand"
        ),
    };
    let Value::Object(map) = &value else {
        bail!("{shown} holds a JSON {}, not a reproducer (a JSON object with ptxfuzz_repro, program, inputs, ...); give a finding's repro.json", kind(&value));
    };
    if !map.contains_key("ptxfuzz_repro") {
        // A campaign's summary.json sits beside its finding folders: the likeliest mix-up.
        if map.contains_key("seed") && map.contains_key("elapsed_s") && map.get("target").is_some_and(Value::is_object) {
            let dir = file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            bail!(
                "{shown} is a campaign's summary, not a finding; give the campaign folder ({}: `ptxfuzz explain` takes it) \
                 or one of its finding folders (`ptxfuzz repro {}/SIGNATURE`)",
                dir.display(),
                dir.display()
            );
        }
        // A program as `gen` writes it (NAME.json beside NAME.ptx) has no case or verdict to
        // re-run: a campaign over it makes findings, which repro then takes.
        if Program::from_json(text).is_ok() {
            bail!(
                "{shown} is a program (as `ptxfuzz gen` writes them), not a finding's repro.json: run it in a campaign, \
                 `ptxfuzz campaign --corpus {}`, whose findings repro takes",
                file.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).display()
            );
        }
        bail!("{shown} has no `ptxfuzz_repro` field: it is not a ptxfuzz reproducer; give a finding's repro.json");
    }
    // The format first: a newer ptxfuzz's file fails on other fields for that reason.
    match map.get("ptxfuzz_repro").and_then(Value::as_u64) {
        Some(v) if v == u64::from(FORMAT) => {}
        Some(v) => bail!("{shown}: reproducer format {v} (this ptxfuzz reads {FORMAT}); use the ptxfuzz that wrote it"),
        None => bail!("{shown}: field `ptxfuzz_repro` must be the format number {FORMAT}, not {}", map["ptxfuzz_repro"]),
    }
    serde_path_to_error::deserialize::<_, Reproducer>(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { format!("field `{path}`: ") };
        anyhow::anyhow!("{shown}: {field}{}; fix that field or take a fresh copy of the finding folder", e.into_inner())
    })
}

/// A JSON value's kind, as a user would say it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse(Path::new("f/repro.json"), text).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_file_and_the_field_not_serde() {
        let e = err("[]");
        assert!(e.contains("f/repro.json holds a JSON array, not a reproducer") && !e.contains("21 elements"), "{e}");
        let mut good = serde_json::to_value(crate::repro::tests::sample()).unwrap();
        good["found_at"] = "yesterday".into();
        let e = err(&good.to_string());
        assert!(e.contains("f/repro.json: field `found_at`: "), "{e}");
        good["found_at"] = Value::Null;
        good["inputs"] = 3.into();
        let e = err(&good.to_string());
        assert!(e.contains("field `inputs`: invalid type"), "{e}");
        good["ptxfuzz_repro"] = 2.into();
        assert!(err(&good.to_string()).contains("reproducer format 2 (this ptxfuzz reads 1)"));
        assert!(err("").contains("f/repro.json is empty"));
        assert!(err("{\"a\":").contains("is not a ptxfuzz reproducer: EOF while parsing"));
    }

    #[test]
    fn a_summary_or_a_program_is_named_as_such() {
        let e = err(r#"{"target":{"name":"interp"},"seed":1,"elapsed_s":5.0}"#);
        assert!(e.contains("is a campaign's summary, not a finding; give the campaign folder (f"), "{e}");
        let p = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
        let e = err(&p.to_json());
        assert!(e.contains("is a program (as `ptxfuzz gen` writes them)"), "{e}");
        assert!(err("{}").contains("has no `ptxfuzz_repro` field"));
    }
}
