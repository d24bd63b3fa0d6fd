//! Tests of the CLI helpers, and a sweep giving every row a reference and an acceptance.

use super::*;
use crate::allowed::Accept;
use crate::table::{rows_named, Flags};

#[test]
fn eval_sinf_of_hex_operand_shows_reference_and_range() {
    let e = evaluate("sinf", &["0x3f800000"], &Build::default()).unwrap();
    assert_eq!(e.reference.values[0], Value::F32(0x3f57_6aa4));
    assert!(e.reference.exact[0].decimal.starts_with("8.41470984807896506652502321630e-1"));
    let text = e.to_string();
    assert!(text.contains("0x3f576aa4") && text.contains("2 ulp") && text.contains("Table 7"), "{text}");
    assert!(matches!(e.allowed.unwrap().outputs[0], Accept::Range { .. }));
}

#[test]
fn operands_parse_as_hex_bits_or_decimals() {
    assert_eq!(parse_operand(Ty::F32, "1.5").unwrap(), 0x3fc0_0000);
    assert_eq!(parse_operand(Ty::F32, "-inf").unwrap(), 0xff80_0000);
    assert_eq!(parse_operand(Ty::F64, "0x3ff0000000000000").unwrap(), 1f64.to_bits());
    assert_eq!(parse_operand(Ty::Int, "-3").unwrap(), (-3i64) as u64);
    assert!(parse_operand(Ty::F32, "0x100000000").is_err());
    assert!(parse_operand(Ty::Int, "3000000000").is_err());
    let err = parse_operand(Ty::F64, "one").unwrap_err().to_string();
    assert!(err.contains("hex bits"), "{err}");
    // An int argument is asked for as a whole number, never as float bits.
    let err = parse_operand(Ty::Int, "3.5").unwrap_err().to_string();
    assert!(err.contains("give a whole number from -2147483648 to 2147483647") && !err.contains("hex bits"), "{err}");
}

#[test]
fn eval_reports_unknown_names_and_wrong_arity() {
    let err = evaluate("sinx", &["1"], &Build::default()).unwrap_err().to_string();
    assert!(err.contains("ptxfuzz math list"), "{err}");
    assert!(evaluate("powf", &["1"], &Build::default()).is_err());
}

#[test]
fn eval_without_documented_bound_says_so() {
    let e = evaluate("jnf", &["3", "1.0"], &Build::default()).unwrap();
    assert!(e.allowed.is_none());
    assert!(e.to_string().contains("none documented"));
    let e = evaluate("normf", &["3", "4", "12"], &Build::default()).unwrap();
    assert_eq!(e.reference.values[0], Value::F32(13f32.to_bits()));
    let fast = Build { flags: Flags::FAST_MATH, ..Build::default() };
    let e = evaluate("sinf", &["1.0"], &fast).unwrap();
    assert_eq!(e.allowed.unwrap().row.name, "__sinf");
}

#[test]
fn eval_of_a_documented_behaviour_names_it_in_words_and_cites_the_prose_that_states_it() {
    // |y| = 2^127: H.2's prose range where __fdividef gives zero (not Table 10's 2-ulp cell).
    let e = evaluate("__fdividef", &["1.0", "0x7f000000"], &Build::default()).unwrap();
    let text = e.to_string();
    assert!(text.contains("documented: a zero result, NaN when x is infinite or NaN"), "{text}");
    assert!(text.contains("[H.2 prose: \"for 2^126 < |y| < 2^128, __fdividef(x,y) delivers a result of zero"), "{text}");
    assert!(!text.contains("ZeroOrNan") && !text.contains("the maximum ulp error is 2"), "{text}");
}

#[test]
fn table_text_lists_every_row() {
    let t = format_table();
    assert_eq!(t.lines().filter(|l| l.starts_with(['7', '8', '1'])).count(), FUNCTIONS.len());
    for r in FUNCTIONS {
        assert!(t.contains(r.name), "{}", r.name);
    }
    assert!(t.contains("x/y                    -> __fdividef(x,y)"));
}

/// Sample arguments of each type.
fn samples(ty: Ty) -> Vec<String> {
    match ty {
        Ty::Int | Ty::Long => ["0", "1", "3", "128", "-2"].map(String::from).to_vec(),
        _ => ["0.75", "-1.5", "0", "9.5", "1e-40", "inf", "nan", "3.0"].map(String::from).to_vec(),
    }
}

#[test]
fn every_row_has_a_reference_and_an_acceptance() {
    let mut evaluated = 0;
    let mut names: Vec<&str> = FUNCTIONS.iter().map(|r| r.name).collect();
    names.dedup();
    for name in names {
        let op = rows_named(name).next().unwrap().op;
        let n = op.arg_types(2).len();
        let s: Vec<Vec<String>> = op.arg_types(2).iter().map(|&t| samples(t)).collect();
        for i in 0..8 {
            let ops: Vec<&str> = (0..n).map(|j| s[j][(i + 3 * j) % s[j].len()].as_str()).collect();
            let e = evaluate(name, &ops, &Build::default()).unwrap_or_else(|e| panic!("{name}{ops:?}: {e}"));
            assert_eq!(e.reference.values.len(), op.result_types().len());
            if let Some(a) = &e.allowed {
                let bits: Vec<u64> = a.reference.iter().map(Value::bits).collect();
                assert!(a.accepts(&bits), "{name}{ops:?}: reference not accepted: {e}");
            }
            evaluated += 1;
        }
    }
    assert!(evaluated > 1500, "{evaluated}");
}

#[test]
fn values_read_as_the_shortest_decimal_plain_in_the_middle_with_an_exponent_at_the_ends() {
    assert_eq!(Value::F32(0x3f80_0000).to_string(), "0x3f800000 (1)");
    assert_eq!(Value::F32(0x7f7f_ffff).to_string(), "0x7f7fffff (3.4028235e38)");
    assert_eq!(Value::F32(1).to_string(), "0x00000001 (1e-45)");
    assert_eq!(Value::F32(0x8000_0000).to_string(), "0x80000000 (-0)");
    assert_eq!(Value::F64(0.1f64.to_bits()).to_string(), "0x3fb999999999999a (0.1)");
    let e = evaluate("__fdividef", &["1.0", "0x7f000000"], &Build::default()).unwrap();
    assert!(e.to_string().starts_with("__fdividef(0x3f800000 (1), 0x7f000000 (1.7014118e38))"), "{e}");
}
