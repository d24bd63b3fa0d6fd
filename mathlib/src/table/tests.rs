//! Re-reads the appendix (plain-text version) and checks that `FUNCTIONS` and `FAST_MATH` hold
//! every function cell with its bound text, so a missing or mistyped row fails.

use super::*;
use crate::op::Dir;
use std::collections::{BTreeMap, BTreeSet};

/// The appendix text: `$PTXFUZZ_SPEC_DIR` or `../shared/spec` beside the repository.
fn appendix() -> String {
    let dir = std::env::var("PTXFUZZ_SPEC_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/spec").to_string());
    let path = format!("{dir}/004_90311a039116941f.plain.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}; set PTXFUZZ_SPEC_DIR to the spec folder"))
}

/// A function cell: an operator of Tables 7/8, or `name[suffixes](args)(args)...`.
fn is_entry(s: &str) -> bool {
    if ["x+y", "x*y", "x/y", "1/x", "1/sqrtf(x)"].contains(&s) {
        return true;
    }
    let Some(open) = s.find('(') else { return false };
    let (head, mut rest) = s.split_at(open);
    let ident = head.split('[').next().unwrap();
    let suffix = &head[ident.len()..];
    let ident_ok = ident.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let suffix_ok = suffix.is_empty()
        || (suffix.starts_with('[')
            && suffix.ends_with(']')
            && suffix[1..suffix.len() - 1].chars().all(|c| c.is_ascii_lowercase() || c == ','));
    // One or more argument lists without nested parentheses, and nothing after them.
    while !rest.is_empty() {
        let Some(close) = rest.find(')') else { return false };
        if !rest.starts_with('(') || rest[1..close].contains('(') {
            return false;
        }
        rest = &rest[close + 1..];
    }
    ident_ok && suffix_ok
}

/// Parsed table: its function cells in order, each with the bound cell's normalised text.
fn parse() -> BTreeMap<SpecTable, Vec<(String, String)>> {
    let text = appendix();
    let mut tables: BTreeMap<SpecTable, Vec<(String, String)>> = BTreeMap::new();
    let mut table: Option<SpecTable> = None;
    // 0: before the column headers, 1: saw "Function", 2: in the body.
    let mut state = 0;
    for line in text.lines().map(str::trim) {
        let next = match (line, table) {
            (l, _) if l.starts_with("Table 7.") => Some(Some(SpecTable::T7)),
            (l, Some(SpecTable::T7)) if l.starts_with("### Double-Precision") => Some(Some(SpecTable::T8)),
            (l, _) if l.starts_with("## H.2") => Some(None),
            (l, _) if l.starts_with("Table 9.") => Some(Some(SpecTable::T9)),
            (l, Some(SpecTable::T9)) if l.starts_with("### Single-Precision") => Some(Some(SpecTable::T10)),
            (l, Some(SpecTable::T10)) if l.starts_with("### Double-Precision") => Some(Some(SpecTable::T11)),
            _ => None,
        };
        if let Some(t) = next {
            table = t;
            state = 0;
            continue;
        }
        let Some(t) = table else { continue };
        match state {
            0 if line == "Function" || line == "Operator/Function" => state = 1,
            0 => {}
            1 => state = 2, // the second column header
            _ if is_entry(line) => tables.entry(t).or_default().push((line.to_string(), String::new())),
            _ if !line.is_empty() => {
                if let Some(last) = tables.entry(t).or_default().last_mut() {
                    if !last.1.is_empty() {
                        last.1.push(' ');
                    }
                    last.1.push_str(&line.split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
            _ => {}
        }
    }
    // A cell holding two function names (Table 7: rsqrtf(x), 1/sqrtf(x)) shares the next bound.
    for cells in tables.values_mut() {
        for i in (0..cells.len().saturating_sub(1)).rev() {
            if cells[i].1.is_empty() {
                cells[i].1 = cells[i + 1].1.clone();
            }
        }
    }
    tables
}

/// Lookup names of a function cell: operators by table, `[rn,rz,ru,rd]` expanded.
fn names(table: SpecTable, entry: &str) -> Vec<String> {
    let op = |f: &str, d: &str| if table == SpecTable::T7 { f.to_string() } else { d.to_string() };
    match entry {
        "x+y" => return vec![op("fadd", "dadd")],
        "x*y" => return vec![op("fmul", "dmul")],
        "x/y" => return vec![op("fdiv", "ddiv")],
        "1/x" => return vec![op("frcp", "drcp")],
        _ => {}
    }
    let head = &entry[..entry.find('(').unwrap()];
    match head.split_once('[') {
        Some((stem, suffixes)) => suffixes
            .trim_end_matches(']')
            .split(',')
            .map(|s| format!("{stem}{s}"))
            .collect(),
        None => vec![head.to_string()],
    }
}

/// `text` as the plain-text appendix prints it: a superscript `^e` becomes ` e ` (`2^-21.41,` is
/// `2 -21.41 ,` there), and a superscript at the end of a cell loses its trailing space.
fn flatten_superscripts(text: &str) -> String {
    let mut out = String::new();
    let mut in_sup = false;
    for c in text.chars() {
        match c {
            '^' => (out.push(' '), in_sup = true).1,
            c if in_sup && !(c.is_ascii_digit() || c == '-' || c == '.') => {
                out.push(' ');
                out.push(c);
                in_sup = false;
            }
            c => out.push(c),
        }
    }
    out
}

#[test]
fn bound_texts_write_superscripts_with_a_caret() {
    assert_eq!(flatten_superscripts("is 2^-21.41, otherwise"), "is 2 -21.41 , otherwise");
    assert_eq!(flatten_superscripts("in [2^-126, 2^126], the"), "in [2 -126 , 2 126 ], the");
    assert_eq!(flatten_superscripts("is 2.2 x 10^-6"), "is 2.2 x 10 -6");
    // No row keeps the flattened form (`2 -21.41`, `10 -6`), which reads as a subtraction.
    for r in FUNCTIONS {
        for flat in [" 2 -", " 10 -", " 2 1"] {
            assert!(!r.text.contains(flat), "{} {}: `{}` has a flattened superscript", r.table, r.name, r.text);
        }
    }
}

#[test]
fn every_appendix_function_has_rows_citing_its_bound_text() {
    let parsed = parse();
    for table in [SpecTable::T7, SpecTable::T8, SpecTable::T10, SpecTable::T11] {
        let cells = &parsed[&table];
        let mut expected = BTreeSet::new();
        for (entry, text) in cells {
            for name in names(table, entry) {
                let rows: Vec<_> = rows_named(&name).filter(|r| r.table == table).collect();
                assert!(!rows.is_empty(), "{table}: no row for {name} ({entry})");
                for r in &rows {
                    assert_eq!(r.entry, entry, "{table} {name}: entry");
                    assert_eq!(flatten_superscripts(r.text), *text, "{table} {name}: bound text");
                }
                // "otherwise" / "inside" cells have a condition variant per case.
                let variants = text.matches("otherwise").count()
                    + text.matches("Otherwise").count()
                    + text.matches("inside").count();
                assert!(rows.len() > variants.min(1), "{table} {name}: {} rows for `{text}`", rows.len());
                expected.insert(name);
            }
        }
        let actual: BTreeSet<String> =
            FUNCTIONS.iter().filter(|r| r.table == table).map(|r| r.name.to_string()).collect();
        assert_eq!(actual, expected, "{table}: row names differ from the appendix");
        let n_rows = FUNCTIONS.iter().filter(|r| r.table == table).count();
        println!("{table}: {} function cells, {} functions, {n_rows} rows", cells.len(), expected.len());
    }
}

#[test]
fn appendix_function_counts_are_as_read() {
    // Guards the parser itself: counts read from the appendix by hand.
    let parsed = parse();
    let count = |t| parsed[&t].len();
    assert_eq!(count(SpecTable::T7), 82); // 81 table rows, one holding rsqrtf and 1/sqrtf
    assert_eq!(count(SpecTable::T8), 81);
    assert_eq!(count(SpecTable::T9), 22); // 11 pairs
    assert_eq!(count(SpecTable::T10), 19);
    assert_eq!(count(SpecTable::T11), 7);
}

#[test]
fn fast_math_table_matches_table_9() {
    let cells = &parse()[&SpecTable::T9];
    let pairs: Vec<(&str, &str)> =
        cells.chunks(2).map(|c| (c[0].0.as_str(), c[1].0.as_str())).collect();
    let ours: Vec<(&str, &str)> = FAST_MATH.iter().map(|m| (m.function, m.device_function)).collect();
    assert_eq!(ours, pairs);
    for m in FAST_MATH {
        assert!(rows_named(m.name).any(|r| r.table == SpecTable::T7), "{}", m.name);
        assert!(rows_named(m.intrinsic).any(|r| r.table == SpecTable::T10), "{}", m.intrinsic);
    }
}

#[test]
fn names_are_unique_per_function() {
    // Rows sharing a name are condition variants of one function: same table, entry and op.
    for r in FUNCTIONS {
        for s in rows_named(r.name) {
            assert_eq!((s.table, s.entry, s.op), (r.table, r.entry, r.op), "{}", r.name);
        }
    }
}

#[test]
fn directed_rounding_only_on_ieee_rows() {
    for r in FUNCTIONS {
        if r.op.dir != Dir::Rn {
            assert_eq!(r.bound, Bound::Ieee, "{}", r.name);
        }
        let suffix_dir = match r.name.rsplit('_').next() {
            Some("rz") => Dir::Rz,
            Some("ru") => Dir::Ru,
            Some("rd") => Dir::Rd,
            _ => Dir::Rn,
        };
        assert_eq!(r.op.dir, suffix_dir, "{}", r.name);
    }
}

#[test]
fn division_bound_depends_on_prec_div_and_fast_math() {
    let args = [1f32.to_bits() as u64, 3f32.to_bits() as u64];
    let default = Build::default();
    assert_eq!(select("fdiv", &default, &args).unwrap().bound, Bound::Ulp(0.0));
    let approx = Build { flags: Flags { prec_div: false, ..Flags::DEFAULT }, ..default };
    assert_eq!(select("fdiv", &approx, &args).unwrap().bound, Bound::Ulp(2.0));
    let fast = Build { flags: Flags::FAST_MATH, ..default };
    assert_eq!(select("fdiv", &fast, &args).unwrap().name, "__fdividef");
    let old = Build { cc: Cc::new(1, 3), ..default };
    assert_eq!(select("fdiv", &old, &args).unwrap().bound, Bound::Ulp(2.0));
}

#[test]
fn sqrtf_bound_depends_on_prec_sqrt_and_cc() {
    let args = [2f32.to_bits() as u64];
    let b = |prec_sqrt, cc| Build { flags: Flags { prec_sqrt, ..Flags::DEFAULT }, cc };
    assert_eq!(select("sqrtf", &b(true, Cc::new(7, 5)), &args).unwrap().bound, Bound::Ulp(0.0));
    assert_eq!(select("sqrtf", &b(false, Cc::new(5, 2)), &args).unwrap().bound, Bound::Ulp(1.0));
    assert_eq!(select("sqrtf", &b(false, Cc::new(5, 0)), &args).unwrap().bound, Bound::Ulp(3.0));
}

#[test]
fn argument_ranges_pick_the_variant() {
    let f = |x: f32| [x.to_bits() as u64];
    let d = Build::default();
    assert_eq!(select("j0f", &d, &f(7.99)).unwrap().bound, Bound::Ulp(9.0));
    assert_eq!(select("j0f", &d, &f(-8.0)).unwrap().bound, Bound::Abs(AbsErr::Value(2.2e-6)));
    assert_eq!(select("lgammaf", &d, &f(-5.0)).unwrap().bound, LARGER);
    assert_eq!(select("lgammaf", &d, &f(-1.0)).unwrap().bound, Bound::Ulp(6.0));
    // float(pi) > pi: outside [-pi, pi].
    assert!(!select("__sinf", &d, &f(std::f32::consts::PI)).unwrap().bound.has_bound());
    assert_eq!(select("__sinf", &d, &f(3.1415925)).unwrap().bound, Bound::Abs(AbsErr::Pow2(-21.41)));
    let jn = |n: i64, x: f32| [n as u64, x.to_bits() as u64];
    assert!(select("jnf", &d, &jn(128, 1.0)).is_some());
    assert!(select("jnf", &d, &jn(3, 1.0)).is_none());
    assert_eq!(select("ynf", &d, &jn(3, 2.5)).unwrap().bound, Bound::UlpPerN { base: 2.0, per_n: 2.5 });
    assert_eq!(select("ynf", &d, &jn(3, 3.0)).unwrap().bound, Bound::Abs(AbsErr::Value(2.2e-6)));
    let yn = |n: i64, x: f64| [n as u64, x.to_bits()];
    assert!(select("yn", &d, &yn(2, 3.0)).is_none());
    assert!(select("yn", &d, &yn(2, 3.5)).is_some());
    let div = |y: f32| [1f32.to_bits() as u64, y.to_bits() as u64];
    assert_eq!(select("__fdividef", &d, &div(2f32.powi(126))).unwrap().bound, Bound::Ulp(2.0));
    assert!(matches!(select("__fdividef", &d, &div(2f32.powi(127))).unwrap().bound, Bound::Documented(_)));
    assert!(select("__fdividef", &d, &div(f32::MIN_POSITIVE / 2.0)).is_none());
}

const LARGER: Bound = Bound::NoneDocumented("larger inside the interval; no number given");
