//! PTX text as highlighted HTML: spans for the opcode with its modifiers (`op`), registers
//! (`reg`), immediates (`imm`), directives (`dir`) and comments (`comment`). Every piece of
//! text goes through maud's escaping: the text comes from reports, that is from users.

use maud::{html, Markup};

/// What a token of PTX is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Opcode,
    Register,
    Immediate,
    Directive,
    Comment,
    /// Punctuation, spaces, labels, anything else.
    Plain,
}

impl Kind {
    fn class(self) -> Option<&'static str> {
        match self {
            Kind::Opcode => Some("op"),
            Kind::Register => Some("reg"),
            Kind::Immediate => Some("imm"),
            Kind::Directive => Some("dir"),
            Kind::Comment => Some("comment"),
            Kind::Plain => None,
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '%')
}

/// One line split into tokens.
pub fn tokens(line: &str) -> Vec<(Kind, &str)> {
    let mut out = Vec::new();
    let mut rest = line;
    let mut seen_opcode = false;
    while !rest.is_empty() {
        if rest.starts_with("//") {
            out.push((Kind::Comment, rest));
            break;
        }
        if !rest.starts_with(is_word) {
            // Up to the next word or comment.
            let n = rest
                .char_indices()
                .find(|&(i, ch)| i > 0 && (is_word(ch) || rest[i..].starts_with("//")))
                .map_or(rest.len(), |(i, _)| i);
            out.push((Kind::Plain, &rest[..n]));
            rest = &rest[n..];
            continue;
        }
        let n = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let word = &rest[..n];
        let kind = if word.starts_with('%') {
            Kind::Register
        } else if word.starts_with(|c: char| c.is_ascii_digit()) || (word.starts_with('-') && word.len() > 1) {
            Kind::Immediate
        } else if word.starts_with('.') {
            Kind::Directive
        } else if !seen_opcode && !rest[n..].starts_with(':') {
            seen_opcode = true;
            Kind::Opcode
        } else {
            Kind::Plain
        };
        out.push((kind, word));
        rest = &rest[n..];
    }
    out
}

/// The whole text, highlighted, for a `pre`.
pub fn highlight(text: &str) -> Markup {
    html! {
        @for line in text.lines() {
            @for (kind, t) in tokens(line) {
                @match kind.class() {
                    Some(c) => span class=(c) { (t) },
                    None => (t),
                }
            }
            "\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_line_splits_into_opcode_registers_and_punctuation() {
        let t = tokens("add.rz.ftz.f32 %f2, %f0, %f1; // note");
        assert_eq!(t[0], (Kind::Opcode, "add.rz.ftz.f32"));
        assert_eq!(t[2], (Kind::Register, "%f2"));
        assert!(t.contains(&(Kind::Register, "%f1")));
        assert_eq!(t.last(), Some(&(Kind::Comment, "// note")));
        let t = tokens("mov.b32 %r1, 0f3F800000;");
        assert!(t.contains(&(Kind::Immediate, "0f3F800000")), "{t:?}");
        assert_eq!(tokens("// inputs: %f0:f32"), [(Kind::Comment, "// inputs: %f0:f32")]);
        assert_eq!(tokens(".version 8.0")[0], (Kind::Directive, ".version"));
    }

    #[test]
    fn text_is_escaped() {
        let html = highlight("add.f32 %f1, <script>alert(1)</script>;").into_string();
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("<span class=\"op\">add.f32</span>"), "{html}");
    }
}
