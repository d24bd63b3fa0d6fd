//! The PTX text form of a program, and the name resolution shared with the JSON form.
//!
//! ```text
//! // inputs: %f0:f32, %f1:f32
//! add.rz.ftz.f32 %f2, %f0, %f1;
//! testp.finite.f32 %p3, %f2;
//! // outputs: %f2, %p3
//! ```
//!
//! Instruction lines are PTX exactly (so the body pastes into a kernel); inputs and outputs
//! ride in `//` comments. Any PTX identifiers may name registers: parsing renames them to the
//! canonical names (inputs first, then one per instruction), so canonical text round-trips
//! exactly. Parsing never panics: every problem is a [`ProgramError`].

use std::collections::HashMap;
use std::fmt::{self, Write};

use super::{Program, ProgramError, Reg, RegName, Stmt, ValType};
use crate::isa::Instr;

impl Program {
    /// Parse the text form (see the module docs).
    pub fn parse(text: &str) -> Result<Program, ProgramError> {
        let mut b = Builder::default();
        let mut saw_inputs = false;
        for (n, raw) in text.lines().enumerate() {
            let place = || format!("line {}", n + 1);
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix("//") {
                let comment = comment.trim();
                if let Some(list) = comment.strip_prefix("inputs:") {
                    if saw_inputs || !b.stmts.is_empty() {
                        return Err(ProgramError::Syntax {
                            place: place(),
                            message: "give one `// inputs:` line, before the first instruction".into(),
                        });
                    }
                    saw_inputs = true;
                    for item in split_list(list) {
                        let (name, ty) = item.split_once(':').ok_or_else(|| ProgramError::Syntax {
                            place: place(),
                            message: format!("input '{item}' has no type: write it as {item}:f32"),
                        })?;
                        b.input(name.trim(), Some(ty.trim()), &place())?;
                    }
                } else if let Some(list) = comment.strip_prefix("outputs:") {
                    for item in split_list(list) {
                        b.output(item, &place())?;
                    }
                }
                continue;
            }
            let code = line.split_once("//").map_or(line, |(c, _)| c.trim_end());
            b.instruction(code, &place())?;
        }
        b.finish()
    }
}

fn split_list(list: &str) -> impl Iterator<Item = &str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// The text form: `// inputs:` line, one PTX instruction per line, `// outputs:` line.
impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("// inputs: ")?;
        for (i, ty) in self.inputs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}:{}", self.name(Reg(i as u16)), ty.name())?;
        }
        f.write_char('\n')?;
        for j in 0..self.body.len() {
            self.write_stmt(f, j)?;
            f.write_char('\n')?;
        }
        f.write_str("// outputs: ")?;
        for (i, &r) in self.outputs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", self.name(r))?;
        }
        f.write_char('\n')
    }
}

impl Program {
    /// Instruction `j` as PTX: `add.rz.ftz.f32 %f2, %f0, %f1;`.
    pub fn write_stmt<W: Write>(&self, w: &mut W, j: usize) -> fmt::Result {
        let s = &self.body[j];
        write_line(w, &s.instr, self.name(self.dst(j)), s.srcs().iter().map(|&r| self.name(r)))
    }

    /// Instruction `j` as a PTX line.
    pub fn stmt_text(&self, j: usize) -> String {
        let mut s = String::new();
        self.write_stmt(&mut s, j).expect("writing to a String cannot fail");
        s
    }
}

/// `instr` writing `dst` from `srcs`, as a PTX line (`add.rz.ftz.f32 %f2, %f0, %f1;`): a
/// program's statements and the VM's arms (`crate::vm::emit::arm_text`) are spelled by it.
pub fn write_line<W: Write>(w: &mut W, instr: &Instr, dst: RegName, srcs: impl IntoIterator<Item = RegName>) -> fmt::Result {
    write!(w, "{instr} {dst}")?;
    for r in srcs {
        write!(w, ", {r}")?;
    }
    w.write_char(';')
}

/// Whether `s` is a PTX identifier (PTX ISA 4.4: `[a-zA-Z][a-zA-Z0-9_$]*` or
/// `[_$%][a-zA-Z0-9_$]+`).
fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    let rest_ok = |r: &[u8]| r.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$');
    match b.first() {
        Some(c) if c.is_ascii_alphabetic() => rest_ok(&b[1..]),
        Some(b'_' | b'$' | b'%') => b.len() > 1 && rest_ok(&b[1..]),
        _ => false,
    }
}

/// One parsed instruction before its register names are resolved.
struct RawStmt {
    instr: Instr,
    text: String,
    dst: String,
    srcs: Vec<String>,
}

/// Collects inputs, instructions and outputs by name, then resolves names to registers.
#[derive(Default)]
pub(super) struct Builder {
    input_names: Vec<String>,
    input_types: Vec<Option<String>>,
    stmts: Vec<RawStmt>,
    outputs: Vec<String>,
    /// Types declared for any register (JSON `"types"`), checked in `finish`.
    declared: Vec<(String, String)>,
}

impl Builder {
    pub(super) fn input(&mut self, name: &str, ty: Option<&str>, place: &str) -> Result<(), ProgramError> {
        check_name(name, place)?;
        self.input_names.push(name.to_string());
        self.input_types.push(ty.map(str::to_string));
        Ok(())
    }

    pub(super) fn declare(&mut self, name: &str, ty: &str) {
        self.declared.push((name.to_string(), ty.to_string()));
    }

    pub(super) fn output(&mut self, name: &str, place: &str) -> Result<(), ProgramError> {
        check_dst_name(name, place)?;
        self.outputs.push(pair_name(name));
        Ok(())
    }

    /// `mnemonic dst, src, ...;` (the `;` may be left out).
    pub(super) fn instruction(&mut self, code: &str, place: &str) -> Result<(), ProgramError> {
        let syntax = |message: String| ProgramError::Syntax { place: place.to_string(), message };
        let code = code.trim();
        let code = code.strip_suffix(';').unwrap_or(code).trim_end();
        let (mnemonic, operands) = code
            .split_once(|c: char| c.is_ascii_whitespace())
            .ok_or_else(|| syntax(format!("'{code}' has no operands: write e.g. `add.rn.f32 %f2, %f0, %f1;`")))?;
        let names: Vec<&str> = operands.split(',').map(str::trim).collect();
        let (dst, srcs) = names.split_first().expect("split yields at least one item");
        check_dst_name(dst, place)?;
        for n in srcs {
            if n.contains('|') {
                return Err(syntax(format!(
                    "'{n}': a packed setp's predicate pair is a program output, not a source (selp and a .BoolOp read one predicate)"
                )));
            }
            check_name(n, place)?;
        }
        let index = self.stmts.len();
        let instr = Instr::parse(mnemonic, srcs.len()).map_err(|e| ProgramError::IllegalForm {
            index,
            text: mnemonic.to_string(),
            cause: e,
        })?;
        if srcs.len() != instr.inputs as usize {
            return Err(ProgramError::Arity {
                form: mnemonic.to_string(),
                expected: instr.inputs as usize,
                got: srcs.len(),
            });
        }
        if dst.contains('|') != instr.writes_predicate_pair() {
            // 9.7.7.2: a packed setp writes `p|q`; nothing else writes two registers.
            return Err(syntax(if dst.contains('|') {
                format!("'{dst}' names two predicates, but only a packed setp (setp.lt.f16x2) writes a pair; name one register")
            } else {
                format!("{mnemonic} writes two predicates (lower and upper halves): name them as a pair, e.g. %p{index}|%q{index}")
            }));
        }
        self.stmts.push(RawStmt {
            instr,
            text: code.to_string(),
            dst: pair_name(dst),
            srcs: srcs.iter().map(|s| s.to_string()).collect(),
        });
        Ok(())
    }

    pub(super) fn finish(self) -> Result<Program, ProgramError> {
        let k = self.input_names.len();
        let total = k + self.stmts.len();
        if total > u16::MAX as usize {
            return Err(ProgramError::TooManyRegisters(total));
        }
        let mut regs: HashMap<&str, Reg> = HashMap::with_capacity(total);
        let all_names = self.input_names.iter().chain(self.stmts.iter().map(|s| &s.dst));
        for (i, name) in all_names.enumerate() {
            if regs.insert(name.as_str(), Reg(i as u16)).is_some() {
                return Err(ProgramError::Redefinition { reg: name.clone() });
            }
        }
        let declared: HashMap<&str, &str> = self.declared.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let mut inputs = Vec::with_capacity(k);
        for (name, ty) in self.input_names.iter().zip(&self.input_types) {
            let ty = ty.as_deref().or_else(|| declared.get(name.as_str()).copied());
            let ty = ty.ok_or_else(|| ProgramError::MissingInputType { reg: name.clone() })?;
            let t = ValType::from_name(ty)
                .ok_or_else(|| ProgramError::UnknownType { reg: name.clone(), name: ty.to_string() })?;
            t.check_input(name)?;
            inputs.push(t);
        }
        // Every register's type, as far as the instructions go (`Program::reg_type`'s rule).
        let mut types = inputs.clone();
        let mut body = Vec::with_capacity(self.stmts.len());
        for (j, s) in self.stmts.iter().enumerate() {
            let mut src = [Reg(0); 3];
            for (pos, (slot, name)) in src.iter_mut().zip(&s.srcs).enumerate() {
                let need = ValType::of_operand(&s.instr, pos);
                let r = *regs.get(name.as_str()).ok_or_else(|| ProgramError::UnknownRegister {
                    place: format!("instruction {j} (`{}`)", s.text),
                    reg: name.clone(),
                })?;
                if r.0 as usize >= k + j {
                    return Err(ProgramError::UseBeforeDefinition { index: j, reg: name.clone() });
                }
                let have = types[r.0 as usize];
                if !need.reads(have) {
                    return Err(ProgramError::mismatch(j, &s.instr, name.clone(), have, need));
                }
                *slot = r;
            }
            let a = if s.srcs.is_empty() { ValType::Pred } else { types[src[0].0 as usize] };
            types.push(ValType::of_selected(&s.instr, a));
            body.push(Stmt::from_parts(s.instr, src));
        }
        for (name, ty) in &self.declared {
            let r = *regs.get(name.as_str()).ok_or_else(|| ProgramError::UntypedName { reg: name.clone() })?;
            if let Some(j) = (r.0 as usize).checked_sub(k) {
                let defined = types[k + j];
                if ValType::from_name(ty) != Some(defined) {
                    return Err(ProgramError::DeclaredType {
                        reg: name.clone(),
                        declared: ty.clone(),
                        defined: defined.name(),
                        index: j,
                    });
                }
            }
        }
        let mut outputs = Vec::with_capacity(self.outputs.len());
        for name in &self.outputs {
            let r = *regs
                .get(name.as_str())
                .ok_or_else(|| ProgramError::UnknownRegister { place: "outputs".into(), reg: name.clone() })?;
            outputs.push(r);
        }
        Program::new(inputs, body, outputs)
    }
}

/// A register's name with the spaces of a pair's `p | q` dropped, so `%p3 | %q3` and `%p3|%q3`
/// name the same pair.
fn pair_name(name: &str) -> String {
    name.split('|').map(str::trim).collect::<Vec<_>>().join("|")
}

/// A destination's (or output's) name: one register, or a packed setp's pair `p|q` (two
/// identifiers, named together as the program's register).
fn check_dst_name(name: &str, place: &str) -> Result<(), ProgramError> {
    match name.split_once('|') {
        Some((p, q)) => check_name(p.trim(), place).and_then(|()| check_name(q.trim(), place)),
        None => check_name(name, place),
    }
}

fn check_name(name: &str, place: &str) -> Result<(), ProgramError> {
    if is_identifier(name) {
        Ok(())
    } else if name.strip_prefix('!').is_some_and(is_identifier) {
        // 9.7.6.1-3 allow `{!}c`; programs keep one spelling per form and leave it out.
        Err(ProgramError::Syntax {
            place: place.to_string(),
            message: format!(
                "'{name}': programs do not negate a predicate source; compare with the inverse operator \
                 (setp.geu is !setp.lt, NaN included) or swap selp's a and b"
            ),
        })
    } else {
        Err(ProgramError::Syntax {
            place: place.to_string(),
            message: format!("'{name}' is not a register name: registers are PTX identifiers such as %f0"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
// inputs: %f0:f32, %f1:f32
add.rz.ftz.f32 %f2, %f0, %f1;
testp.finite.f32 %p3, %f2;
// outputs: %f2, %p3
";

    #[test]
    fn canonical_text_round_trips_exactly() {
        let p = Program::parse(SAMPLE).unwrap();
        assert_eq!(p.to_string(), SAMPLE);
        assert_eq!(Program::parse(&p.to_string()).unwrap(), p);
    }

    #[test]
    fn foreign_names_are_renamed_canonically() {
        let p =
            Program::parse("// inputs: %r0:f32, x:f64\n  add.rn.f32 %sum, %r0, %r0; // comment\n// outputs: %sum\n")
                .unwrap();
        assert_eq!(p.to_string(), "// inputs: %f0:f32, %fd1:f64\nadd.rn.f32 %f2, %f0, %f0;\n// outputs: %f2\n");
    }

    #[test]
    fn parse_errors_name_the_problem() {
        let cases: &[(&str, &str)] = &[
            ("// inputs: %f0:f32\nadd.rn.f32 %f1, %f0, %f9;\n// outputs: %f1\n", "%f9 is not defined"),
            (
                "// inputs: %f0:f32\nadd.rn.f32 %f1, %f0, %f2;\nadd.rn.f32 %f2, %f0, %f0;\n// outputs: %f1\n",
                "used before",
            ),
            ("// inputs: %f0:f32, %d:f64\nadd.rn.f32 %f1, %f0, %d;\n// outputs: %f1\n", "is a f64 register"),
            ("// inputs: %f0:f32\nadd.rn.f32 %f0, %f0, %f0;\n// outputs: %f0\n", "defined twice"),
            ("// inputs: %f0:f33\nadd.rn.f32 %f1, %f0, %f0;\n// outputs: %f1\n", "unknown type 'f33'"),
            ("// inputs: %f0\n", "has no type"),
            ("// inputs: %p:pred\n", "inputs are floating-point"),
            ("// inputs: %f0:f32\nadd.rn.f32 %f1, %f0;\n// outputs: %f1\n", "instruction 0"),
            ("// inputs: %f0:f32\nadd.rn.f32 %f1, %f0, 1.0;\n", "not a register name"),
            ("// inputs: %f0:f32\nadd.rn.f32\n", "has no operands"),
            ("// inputs: %f0:f32\nadd.rn.f32 %f1, %f0, %f0;\n", "no outputs"),
            ("// inputs: %f0:f32\n// outputs: %f0\n", "no instructions"),
        ];
        for (text, want) in cases {
            let e = Program::parse(text).expect_err(text).to_string();
            assert!(e.contains(want), "{text:?}: got '{e}', want '{want}'");
        }
    }

    #[test]
    fn parse_never_panics_on_garbage() {
        for text in ["", ";", "//", "// inputs: ,,,", "add", "add.rn.f32 ,,;", "// outputs: %x", "\u{0}\u{ffff} ;"] {
            let _ = Program::parse(text);
        }
    }
}
