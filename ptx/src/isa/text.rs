//! PTX spelling of instruction forms: parse and print, round-trip exact.
//!
//! Modifiers are printed, and must be written, in one canonical order (the order of the spec's
//! syntax lines, e.g. `min{.ftz}{.NaN}{.xorsign.abs}.f32`, `fma.rn{.ftz}.relu.f16`):
//! opcode, testp property, precision (`.rn/.rz/.rm/.rp/.approx/.full`), `.ftz`, `.sat/.relu`,
//! `.NaN`, `.xorsign.abs/.abs`, type. (ptxas accepts other orders; this crate does not, so that
//! every form has one spelling.)

use std::fmt;

use super::rules::section_of;
use super::{AbsMode, Clamp, Ftz, Instr, IsaError, NanMode, Opcode, Precision, TestpOp, Type};
use crate::rounding::Rounding;

const ORDER: &str =
    "opcode, testp property, .rn/.rz/.rm/.rp/.approx/.full, .ftz, .sat/.relu, .NaN, .xorsign.abs/.abs, type";
const MODIFIERS: &str = ".rn .rz .rm .rp .approx .full .ftz .sat .relu .NaN .xorsign.abs .abs, and for testp \
     .finite .infinite .number .notanumber .normal .subnormal";

impl Instr {
    /// Parse a mnemonic such as `min.ftz.NaN.xorsign.abs.f32` for an instruction with
    /// `inputs` source operands, and validate it.
    pub fn parse(mnemonic: &str, inputs: usize) -> Result<Instr, IsaError> {
        let mut i = parse_text(mnemonic)?;
        i.inputs = match u8::try_from(inputs) {
            Ok(n) => n,
            Err(_) => {
                return Err(IsaError::Illegal {
                    form: i.to_string(),
                    rule: format!("{}.{} takes at most 3 inputs, not {inputs}", i.op.name(), i.ty.name()),
                    section: section_of(i.op, i.ty),
                })
            }
        };
        i.validate()?;
        Ok(i)
    }

    /// Parse with the opcode's usual number of inputs (2 for min/max, 3 for fma).
    pub fn parse_default(mnemonic: &str) -> Result<Instr, IsaError> {
        let i = parse_text(mnemonic)?;
        i.validate()?;
        Ok(i)
    }
}

/// Prints the mnemonic exactly as PTX spells it, e.g. `rcp.approx.ftz.f64`.
impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A `cvt` is spelled by its own table (the source type last: `cvt.rn.bf16.f32`).
        if let Some(c) = self.as_cvt() {
            return fmt::Display::fmt(&c, f);
        }
        if let Some(c) = self.as_cvt_int() {
            return fmt::Display::fmt(&c, f);
        }
        if let Some(c) = self.as_tf32() {
            return fmt::Display::fmt(&c, f);
        }
        if let Some(c) = self.as_narrow() {
            return fmt::Display::fmt(&c, f);
        }
        if let Some(c) = self.as_stochastic() {
            return fmt::Display::fmt(&c, f);
        }
        if let Some(c) = self.as_compare() {
            return fmt::Display::fmt(&c, f);
        }
        if let Some(m) = self.as_mixed() {
            return fmt::Display::fmt(&m, f);
        }
        f.write_str(self.op.name())?;
        if let Some(t) = self.testp {
            write!(f, ".{}", t.name())?;
        }
        match self.precision {
            Precision::Default => {}
            Precision::Rounded(r) => write!(f, ".{}", r.name())?,
            Precision::Approx => f.write_str(".approx")?,
            Precision::Full => f.write_str(".full")?,
        }
        if self.ftz == Ftz::Flush {
            f.write_str(".ftz")?;
        }
        match self.clamp {
            Clamp::None => {}
            Clamp::Sat => f.write_str(".sat")?,
            Clamp::Relu => f.write_str(".relu")?,
        }
        if self.nan == NanMode::Propagate {
            f.write_str(".NaN")?;
        }
        match self.abs {
            AbsMode::None => {}
            AbsMode::Abs => f.write_str(".abs")?,
            AbsMode::XorsignAbs => f.write_str(".xorsign.abs")?,
        }
        write!(f, ".{}", self.ty.name())?;
        if let Some(t) = self.atype {
            write!(f, ".{}", t.name())?;
        }
        // A malformed `cvt` or comparison (one `as_cvt`/`as_compare` refuses) still shows its
        // fields.
        if let Some(c) = self.conv {
            write!(f, ".{}", c.from.name())?;
            match c.int {
                Some(super::IntEnd::Dest(t)) => write!(f, " (to .{})", t.name())?,
                Some(super::IntEnd::Source(t)) => write!(f, " (from .{})", t.name())?,
                None => {}
            }
            if let super::RoundTo::Tf32(r) = c.round_to {
                write!(f, " (to .tf32, .{})", r.name())?;
            }
        }
        if let Some(c) = self.cmp {
            write!(f, ".{}", c.op.name())?;
            if let Some(b) = c.combine {
                write!(f, ".{}", b.name())?;
            }
            if c.from != self.ty {
                write!(f, ".{}", c.from.name())?;
            }
            if let Some(t) = c.int {
                write!(f, " (to .{})", t.name())?;
            }
        }
        Ok(())
    }
}

/// Where a modifier sits in the canonical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Test,
    Precision,
    Ftz,
    Clamp,
    Nan,
    Abs,
}

/// One recognised modifier (`.xorsign.abs` is one, spanning two dot-separated words).
#[derive(Clone, Copy)]
enum Modifier {
    Test(TestpOp),
    Precision(Precision),
    Ftz,
    Clamp(Clamp),
    Nan,
    Abs(AbsMode),
}

impl Modifier {
    fn slot(self) -> Slot {
        match self {
            Modifier::Test(_) => Slot::Test,
            Modifier::Precision(_) => Slot::Precision,
            Modifier::Ftz => Slot::Ftz,
            Modifier::Clamp(_) => Slot::Clamp,
            Modifier::Nan => Slot::Nan,
            Modifier::Abs(_) => Slot::Abs,
        }
    }

    fn from_word(w: &str) -> Option<Modifier> {
        Some(match w {
            "approx" => Modifier::Precision(Precision::Approx),
            "full" => Modifier::Precision(Precision::Full),
            "ftz" => Modifier::Ftz,
            "sat" => Modifier::Clamp(Clamp::Sat),
            "relu" => Modifier::Clamp(Clamp::Relu),
            "NaN" => Modifier::Nan,
            "abs" => Modifier::Abs(AbsMode::Abs),
            _ => {
                if let Some(r) = Rounding::from_name(w) {
                    Modifier::Precision(Precision::Rounded(r))
                } else {
                    Modifier::Test(TestpOp::from_name(w)?)
                }
            }
        })
    }
}

/// Every word the parser knows, for "did you mean" hints on case mistakes (`.nan`, `.F32`).
fn known_words() -> impl Iterator<Item = &'static str> {
    Opcode::ALL
        .iter()
        .map(|o| o.name())
        .chain(Type::ALL.iter().map(|t| t.name()))
        .chain(TestpOp::ALL.iter().map(|t| t.name()))
        .chain(Rounding::ALL.iter().map(|r| r.name()))
        .chain(["approx", "full", "ftz", "sat", "relu", "NaN", "abs", "xorsign"])
}

/// `prefix` is `.` for modifiers and types, empty for opcodes. Only a different spelling is
/// suggested: a known word in the wrong place is [`misplaced`]'s to explain.
fn did_you_mean(prefix: &str, word: &str) -> String {
    match known_words().find(|k| k.eq_ignore_ascii_case(word) && *k != word) {
        Some(k) => format!(" (did you mean `{prefix}{k}`? PTX names are case-sensitive)"),
        None => String::new(),
    }
}

/// What a word is, when it is a known one: `f32` where an opcode goes is a type, not a typo.
fn role_of(word: &str) -> Option<&'static str> {
    if Opcode::from_name(word).is_some() {
        Some("an opcode")
    } else if Type::from_name(word).is_some() {
        Some("a type")
    } else if Modifier::from_word(word).is_some() || word == "xorsign" {
        Some("a modifier")
    } else {
        None
    }
}

/// The error for a known word where `expected` ("an opcode", "a modifier", "a type") goes, or
/// `None` when the word is unknown.
fn misplaced(word: &str, expected: &str, s: &str) -> Option<IsaError> {
    let role = role_of(word).filter(|&r| r != expected)?;
    Some(syntax(format!(
        "`{}` in `{}` is {role}, not {expected}: an instruction is its opcode first, then modifiers, then the type last, \
         e.g. `add.rn.f32` (order: {ORDER})",
        shown(word),
        shown(s)
    )))
}

/// The text for messages, shortened so a huge input does not make a huge error.
fn shown(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_string(),
    }
}

fn types_list() -> String {
    Type::ALL.iter().map(|t| format!(".{}", t.name())).collect::<Vec<_>>().join(", ")
}

fn syntax(msg: String) -> IsaError {
    IsaError::Syntax(msg)
}

/// Parse the words of a mnemonic into a form with the opcode's usual input count (not validated).
fn parse_text(s: &str) -> Result<Instr, IsaError> {
    if s.is_empty() {
        return Err(syntax(
            "empty instruction text: expected an opcode, modifiers and a type, e.g. `add.rn.f32`".into(),
        ));
    }
    if let Some(c) = s.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '.' || *c == '_')) {
        return Err(syntax(format!(
            "unexpected character {c:?} in `{}`: a mnemonic is words joined by dots, e.g. `fma.rn.f32` \
             (no spaces, operands or predicates)",
            shown(s)
        )));
    }
    if s == "cvt" || s.starts_with("cvt.") {
        return super::conversion::parse_cvt(s);
    }
    if ["setp", "set", "selp"].contains(&s) || ["setp.", "set.", "selp."].iter().any(|p| s.starts_with(p)) {
        return super::comparison::parse_compare(s);
    }
    if crate::mixed::is_mixed(s) {
        return super::mixed::parse_mixed(s);
    }
    let words: Vec<&str> = s.split('.').collect();
    if words.iter().any(|w| w.is_empty()) {
        return Err(syntax(format!(
            "empty word in `{}`: a mnemonic starts with its opcode and has no doubled or trailing dots, e.g. `add.f32`",
            shown(s)
        )));
    }
    if Opcode::from_name(words[0]).is_none() {
        if let Some(e) = misplaced(words[0], "an opcode", s) {
            return Err(e);
        }
    }
    let op = Opcode::from_name(words[0]).ok_or_else(|| {
        let ops: Vec<&str> = Opcode::ALL.iter().map(|o| o.name()).collect();
        syntax(format!(
            "unknown opcode `{}`{}; the opcodes are {}",
            shown(words[0]),
            did_you_mean("", words[0]),
            ops.join(", ")
        ))
    })?;
    let rest = &words[1..];
    let Some(&last) = rest.last() else {
        return Err(syntax(format!("`{}` has no type: end it with one of {}", op.name(), types_list())));
    };
    // ptxas takes the words in any order; this crate wants the canonical one, but finds the type
    // anywhere so that the error can spell the form out.
    let type_at: Vec<usize> = (0..rest.len()).filter(|&k| Type::from_name(rest[k]).is_some()).collect();
    let ty_pos = match type_at[..] {
        [k] => k,
        [] if Modifier::from_word(last).is_some() || last == "xorsign" => {
            return Err(syntax(format!("`{}` has no type: end it with one of {}", shown(s), types_list())));
        }
        [] => {
            if let Some(e) = misplaced(last, "a type", s) {
                return Err(e);
            }
            return Err(syntax(format!(
                "unknown type `.{}` in `{}`{}; the types are {}",
                shown(last),
                shown(s),
                did_you_mean(".", last),
                types_list()
            )));
        }
        _ => return Err(syntax(format!("`{}` has more than one type: write exactly one, last", shown(s)))),
    };
    let ty = Type::from_name(rest[ty_pos]).unwrap_or(Type::F32);
    let mut in_order = ty_pos == rest.len() - 1;
    let mut mods: Vec<&str> = rest.iter().enumerate().filter(|&(k, _)| k != ty_pos).map(|(_, &w)| w).collect();
    // `.xorsign.abs` is one modifier in two words. A `.xorsign` elsewhere than right before an
    // `.abs` is still that modifier, out of order; with no `.abs` at all it is illegal.
    while let Some(x) = mods.iter().position(|&w| w == "xorsign") {
        let abs_at = if mods.get(x + 1) == Some(&"abs") {
            Some(x + 1)
        } else {
            mods.iter().position(|&w| w == "abs").inspect(|_| in_order = false)
        };
        let Some(abs_at) = abs_at else {
            // 9.7.3.11: "Qualifier .xorsign requires qualifier .abs to be specified."
            let section = if matches!(op, Opcode::Min | Opcode::Max) { section_of(op, ty) } else { "9.7.3.11" };
            return Err(IsaError::Illegal {
                form: shown(s),
                rule: ".xorsign requires .abs: write .xorsign.abs".into(),
                section,
            });
        };
        mods[x] = "xorsign.abs";
        mods.remove(abs_at);
    }
    let mut i = Instr::new(op, ty);
    let mut seen: Vec<(Slot, &str)> = Vec::new();
    for &w in &mods {
        let m = match w {
            "xorsign.abs" => Modifier::Abs(AbsMode::XorsignAbs),
            _ => Modifier::from_word(w).ok_or_else(|| {
                misplaced(w, "a modifier", s).unwrap_or_else(|| syntax(format!(
                    "unknown modifier `.{}` in `{}`{}; the modifiers are {MODIFIERS}",
                    shown(w),
                    shown(s),
                    did_you_mean(".", w)
                )))
            })?,
        };
        let slot = m.slot();
        if let Some(&(_, before)) = seen.iter().find(|(sl, _)| *sl == slot) {
            let msg = if before == w {
                format!(".{w} appears twice in `{}`", shown(s))
            } else {
                format!("`{}` has both .{before} and .{w}: write at most one of them", shown(s))
            };
            return Err(syntax(msg));
        }
        if seen.last().is_some_and(|&(prev, _)| prev > slot) {
            in_order = false;
        }
        seen.push((slot, w));
        match m {
            Modifier::Test(t) => i.testp = Some(t),
            Modifier::Precision(p) => i.precision = p,
            Modifier::Ftz => i.ftz = Ftz::Flush,
            Modifier::Clamp(c) => i.clamp = c,
            Modifier::Nan => i.nan = NanMode::Propagate,
            Modifier::Abs(a) => i.abs = a,
        }
    }
    if !in_order {
        return Err(syntax(format!("modifiers out of order in `{}`: write `{i}` (order: {ORDER})", shown(s))));
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::all_forms;

    fn syntax_err(text: &str) -> String {
        match Instr::parse_default(text) {
            Err(IsaError::Syntax(m)) => m,
            other => panic!("{text}: expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn every_form_round_trips() {
        for f in all_forms() {
            let text = f.to_string();
            assert_eq!(Instr::parse(&text, usize::from(f.inputs)), Ok(f), "{text}");
        }
    }

    #[test]
    fn spec_spellings_parse_and_print_back() {
        for (text, inputs) in [
            ("min.ftz.NaN.xorsign.abs.f32", 2),
            ("rcp.approx.ftz.f64", 1),
            ("testp.subnormal.f64", 1),
            ("fma.rn.ftz.relu.f16", 3),
            ("div.full.ftz.f32", 2),
            ("ex2.approx.ftz.bf16", 1),
            ("add.rp.ftz.f32x2", 2),
            ("max.ftz.NaN.abs.f32", 3),
            ("mul.rn.ftz.sat.f16x2", 2),
            ("fma.rn.relu.bf16x2", 3),
            ("copysign.f64", 2),
            ("tanh.approx.f32", 1),
        ] {
            let i = Instr::parse(text, inputs).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(i.to_string(), text);
        }
    }

    #[test]
    fn parse_fills_the_fields() {
        let i = Instr::parse_default("min.ftz.NaN.xorsign.abs.f32").unwrap();
        assert_eq!((i.op, i.ty, i.inputs), (Opcode::Min, Type::F32, 2));
        assert_eq!((i.ftz, i.nan, i.abs), (Ftz::Flush, NanMode::Propagate, AbsMode::XorsignAbs));
        let i = Instr::parse_default("testp.notanumber.f32").unwrap();
        assert_eq!((i.testp, i.inputs), (Some(TestpOp::NotANumber), 1));
        let i = Instr::parse_default("fma.rm.sat.f32").unwrap();
        assert_eq!((i.precision, i.clamp, i.inputs), (Precision::Rounded(Rounding::Rm), Clamp::Sat, 3));
        assert_eq!(Instr::parse_default("add.f32").unwrap().precision, Precision::Default);
    }

    #[test]
    fn wrong_order_suggests_the_canonical_spelling() {
        let m = syntax_err("min.NaN.ftz.f32");
        assert!(m.starts_with("modifiers out of order in `min.NaN.ftz.f32`: write `min.ftz.NaN.f32`"), "{m}");
        assert!(syntax_err("fma.ftz.rn.f32").contains("write `fma.rn.ftz.f32`"));
        assert!(syntax_err("min.xorsign.abs.NaN.f32").contains("write `min.NaN.xorsign.abs.f32`"));
        assert!(syntax_err("add.f32.rn").contains("write `add.rn.f32`"));
        assert!(syntax_err("testp.f32.finite").contains("write `testp.finite.f32`"));
        // ptxas takes `.abs.xorsign` and a split `.xorsign ... .abs` as `.xorsign.abs`.
        assert!(syntax_err("min.abs.xorsign.f32").contains("write `min.xorsign.abs.f32`"));
        assert!(syntax_err("min.xorsign.NaN.abs.f32").contains("write `min.NaN.xorsign.abs.f32`"));
        assert!(syntax_err("add.f32.f64").contains("more than one type"));
    }

    #[test]
    fn xorsign_without_abs_is_illegal() {
        let e = Instr::parse_default("min.xorsign.f32").unwrap_err();
        assert_eq!(e.to_string(), "min.xorsign.f32: .xorsign requires .abs: write .xorsign.abs (PTX ISA 9.7.3.11)");
        let e = Instr::parse_default("max.xorsign.f16").unwrap_err();
        assert!(matches!(e, IsaError::Illegal { section: "9.7.4.8", .. }), "{e:?}");
        assert!(matches!(Instr::parse_default("min.xorsign.xorsign.abs.f32"), Err(IsaError::Illegal { .. })));
    }

    #[test]
    fn unknown_words_say_what_is_accepted() {
        let m = syntax_err("frob.f32");
        assert!(m.starts_with("unknown opcode `frob`; the opcodes are testp, copysign, add"), "{m}");
        assert!(syntax_err("ADD.f32").contains("did you mean `add`?"));
        let m = syntax_err("add.f31");
        assert!(m.starts_with("unknown type `.f31` in `add.f31`; the types are .f16, .f16x2"), "{m}");
        assert!(syntax_err("add.F32").contains("did you mean `.f32`?"));
        let m = syntax_err("add.rnd.f32");
        assert!(m.starts_with("unknown modifier `.rnd` in `add.rnd.f32`; the modifiers are .rn .rz"), "{m}");
        assert!(syntax_err("min.nan.f32").contains("did you mean `.NaN`?"));
        // A known word in the wrong place is named for what it is, never "did you mean" itself.
        for (text, want) in [
            ("f32", "`f32` in `f32` is a type, not an opcode"),
            ("rn.add.f32", "`rn` in `rn.add.f32` is a modifier, not an opcode"),
            ("ftz", "`ftz` in `ftz` is a modifier, not an opcode"),
            ("add.add.f32", "`add` in `add.add.f32` is an opcode, not a modifier"),
            ("add.rn.mul", "`mul` in `add.rn.mul` is an opcode, not a type"),
        ] {
            let e = syntax_err(text);
            assert!(e.contains(want) && e.contains("e.g. `add.rn.f32`") && !e.contains("did you mean"), "{text}: {e}");
        }
        assert!(syntax_err("add.rn").contains("has no type"));
        assert!(syntax_err("add").contains("has no type"));
    }

    #[test]
    fn empty_and_garbage_text_are_syntax_errors() {
        assert!(syntax_err("").starts_with("empty instruction text"));
        assert!(syntax_err(".add.f32").starts_with("empty word"));
        assert!(syntax_err("add..f32").starts_with("empty word"));
        assert!(syntax_err("add.f32.").starts_with("empty word"));
        assert!(syntax_err(".").starts_with("empty word"));
        assert!(syntax_err("add.f32 d, a, b;").starts_with("unexpected character ' '"));
        assert!(syntax_err("@p add.f32").starts_with("unexpected character '@'"));
        assert!(syntax_err("ädd.f32").starts_with("unexpected character 'ä'"));
        let long = "x".repeat(10_000);
        assert!(syntax_err(&long).len() < 400);
    }

    #[test]
    fn repeated_modifiers_are_syntax_errors() {
        assert!(syntax_err("add.ftz.ftz.f32").contains(".ftz appears twice"));
        assert!(syntax_err("add.rn.rz.f32").contains("has both .rn and .rz"));
        assert!(syntax_err("fma.rn.sat.relu.f16").contains("has both .sat and .relu"));
        assert!(syntax_err("min.xorsign.abs.abs.f32").contains("has both .xorsign.abs and .abs"));
    }

    #[test]
    fn input_counts_beyond_u8_are_illegal_not_truncated() {
        let e = Instr::parse("add.f32", 258).unwrap_err();
        assert!(e.to_string().contains("not 258"), "{e}");
    }

    /// A small deterministic generator (xorshift) of mnemonic-like strings: random words and
    /// characters, and legal forms with one mutation (word dropped, doubled, swapped, replaced,
    /// case changed), so that every parser path is reached.
    fn random_texts(n: usize) -> Vec<String> {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        let words: Vec<&str> = known_words()
            .chain(["", "x", "rnd", "f8", "b32", "nan", "Abs", "é", " ", "..", "f32x4", "\u{0}"])
            .collect();
        let chars = ['.', 'a', 'f', '3', '2', '_', ' ', '\u{0}', 'ß', '\u{10FFFF}', 'N', '@', ';'];
        let legal: Vec<String> = all_forms().iter().map(|f| f.to_string()).collect();
        (0..n)
            .map(|_| match next(3) {
                0 => {
                    let mut s = String::new();
                    for _ in 0..next(8) {
                        if next(5) == 0 {
                            s.push(chars[next(chars.len())]);
                        } else {
                            if !s.is_empty() {
                                s.push('.');
                            }
                            s.push_str(words[next(words.len())]);
                        }
                    }
                    s
                }
                _ => {
                    let base = &legal[next(legal.len())];
                    let mut w: Vec<String> = base.split('.').map(str::to_string).collect();
                    let k = next(w.len());
                    match next(7) {
                        0 => {
                            w.remove(k);
                        }
                        1 => {
                            let d = w[k].clone();
                            w.insert(k, d);
                        }
                        2 => {
                            let j = next(w.len());
                            w.swap(k, j);
                        }
                        3 => w[k] = words[next(words.len())].to_string(),
                        4 => w[k] = w[k].to_uppercase(),
                        5 => w.insert(k, words[next(words.len())].to_string()),
                        _ => {}
                    }
                    w.join(".")
                }
            })
            .collect()
    }

    #[test]
    fn parse_never_panics_and_accepts_only_canonical_text() {
        let mut accepted = 0;
        for text in random_texts(5000) {
            for inputs in [0, 1, 2, 3, 4, 300] {
                if let Ok(i) = Instr::parse(&text, inputs) {
                    assert_eq!(i.to_string(), text);
                    assert_eq!(usize::from(i.inputs), inputs);
                    accepted += 1;
                }
            }
            if let Ok(i) = Instr::parse_default(&text) {
                assert_eq!(i.to_string(), text);
            }
        }
        // The generator must reach legal forms too, or it tests only the first error path.
        assert!(accepted > 500, "only {accepted} random texts were legal");
    }
}
