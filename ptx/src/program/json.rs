//! The canonical JSON form of a program (the reproducer format, and what external engines get):
//!
//! ```json
//! {"types":{"%f0":"f32","%f1":"f32","%f2":"f32"},"inputs":["%f0","%f1"],
//!  "body":["add.rz.f32 %f2, %f0, %f1;"],"outputs":["%f2"]}
//! ```
//!
//! `types` lists every register in register order (inputs, then one per instruction); on input
//! only the inputs' entries are required and the others must agree with the instruction that
//! defines them. Names are resolved as in the text form.

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::text::Builder;
use super::{Program, ProgramError, Reg};

impl Program {
    /// The canonical JSON form, on one line.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a program always serialises")
    }

    /// Parse the JSON form; never panics.
    pub fn from_json(text: &str) -> Result<Program, ProgramError> {
        let raw: RawProgram = serde_json::from_str(text).map_err(|e| ProgramError::Json(e.to_string()))?;
        raw.build()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProgram {
    types: serde_json::Map<String, serde_json::Value>,
    inputs: Vec<String>,
    body: Vec<String>,
    outputs: Vec<String>,
}

impl RawProgram {
    fn build(self) -> Result<Program, ProgramError> {
        let mut b = Builder::default();
        for (name, ty) in &self.types {
            let ty = ty
                .as_str()
                .ok_or_else(|| ProgramError::Json(format!("types.{name} must be a string such as \"f32\"")))?;
            b.declare(name, ty);
        }
        for (i, name) in self.inputs.iter().enumerate() {
            b.input(name, None, &format!("inputs[{i}]"))?;
        }
        for (j, line) in self.body.iter().enumerate() {
            b.instruction(line, &format!("body[{j}]"))?;
        }
        for (i, name) in self.outputs.iter().enumerate() {
            b.output(name, &format!("outputs[{i}]"))?;
        }
        b.finish()
    }
}

/// The `types` map in register order (serde_json's own map would sort `%f10` before `%f2`).
struct Types<'a>(&'a Program);

impl Serialize for Types<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let mut m = s.serialize_map(Some(p.reg_count()))?;
        for i in 0..p.reg_count() {
            let r = Reg(i as u16);
            m.serialize_entry(&p.name(r).to_string(), p.reg_type(r).name())?;
        }
        m.end()
    }
}

struct Names<'a, I: Iterator<Item = Reg> + Clone>(&'a Program, I);

impl<I: Iterator<Item = Reg> + Clone> Serialize for Names<'_, I> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.1.clone().map(|r| self.0.name(r).to_string()))
    }
}

struct Body<'a>(&'a Program);

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.0.body.len()).map(|j| self.0.stmt_text(j)))
    }
}

impl Serialize for Program {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Program", 4)?;
        st.serialize_field("types", &Types(self))?;
        st.serialize_field("inputs", &Names(self, (0..self.inputs.len() as u16).map(Reg)))?;
        st.serialize_field("body", &Body(self))?;
        st.serialize_field("outputs", &Names(self, self.outputs.iter().copied()))?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Program {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Program, D::Error> {
        RawProgram::deserialize(d)?.build().map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_engine_shape_parses_and_prints_canonically() {
        let p = Program::from_json(
            r#"{"types":{"%r0":"f32","%r1":"f32"},"inputs":["%r0","%r1"],"body":["add.rz.f32 %r2, %r0, %r1;"],"outputs":["%r2"]}"#,
        )
        .unwrap();
        let json = p.to_json();
        assert_eq!(
            json,
            r#"{"types":{"%f0":"f32","%f1":"f32","%f2":"f32"},"inputs":["%f0","%f1"],"body":["add.rz.f32 %f2, %f0, %f1;"],"outputs":["%f2"]}"#
        );
        assert_eq!(Program::from_json(&json).unwrap(), p);
    }

    #[test]
    fn types_map_keeps_register_order_past_ten() {
        let mut body = vec!["add.rn.f32 %f1, %f0, %f0;".to_string()];
        for i in 2..13 {
            body.push(format!("add.rn.f32 %f{i}, %f{}, %f0;", i - 1));
        }
        let json = serde_json::json!({"types": {"%f0": "f32"}, "inputs": ["%f0"], "body": body, "outputs": ["%f12"]});
        let p = Program::from_json(&json.to_string()).unwrap();
        let out = p.to_json();
        assert!(out.contains(r#""%f9":"f32","%f10":"f32""#), "{out}");
        assert_eq!(Program::from_json(&out).unwrap().to_json(), out);
    }

    #[test]
    fn json_errors_are_reported_not_panicked() {
        let cases: &[(&str, &str)] = &[
            ("", "program JSON"),
            ("{}", "missing field"),
            (r#"{"types":{},"inputs":["%f0"],"body":[],"outputs":[]}"#, "no type"),
            (r#"{"types":{"%f0":1},"inputs":["%f0"],"body":[],"outputs":[]}"#, "must be a string"),
            (
                r#"{"types":{"%f0":"f32","%f1":"f64"},"inputs":["%f0"],"body":["add.rn.f32 %f1, %f0, %f0;"],"outputs":["%f1"]}"#,
                "defines it as f32",
            ),
            (
                r#"{"types":{"%f0":"f32","%x":"f64"},"inputs":["%f0"],"body":["add.rn.f32 %f1, %f0, %f0;"],"outputs":["%f1"]}"#,
                "neither an input",
            ),
            (
                r#"{"types":{"%f0":"f32"},"inputs":["%f0"],"body":["bogus %f1, %f0;"],"outputs":["%f1"]}"#,
                "instruction 0",
            ),
            (
                r#"{"types":{"%f0":"f32"},"inputs":["%f0"],"body":["add.rn.f32 %f1, %f0, %f0;"],"outputs":["%f1"],"x":1}"#,
                "unknown field",
            ),
        ];
        for (text, want) in cases {
            let e = Program::from_json(text).expect_err(text).to_string();
            assert!(e.contains(want), "{text}: got '{e}', want '{want}'");
        }
    }
}
