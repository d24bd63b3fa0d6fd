//! Parsers for command-line values whose Rust type alone would take nonsense: seconds (finite
//! and not negative), counts that must be at least 1 or within a bound the command can hold in
//! memory or finish ([`count_in`]), and shares from 0 to 1; and the names of
//! instruction families and register types, one message for every command that takes them.
//!
//! Without them `--seconds -1` or `--seconds nan` panicked (`Duration::from_secs_f64`), and a
//! zero batch, timeout or case count was silently taken as 1 or made every batch a timeout
//! fault. clap reports a value these reject as `error: invalid value 'V' for '--OPTION': WHY`
//! and exits 2, before anything runs.

/// The longest time ptxfuzz accepts, about 31 years: more is a typo (and `Duration` ends near
/// 5.8e11 years, where it would panic).
pub const MAX_SECONDS: f64 = 1e9;

/// A number of seconds from 0 to [`MAX_SECONDS`], fractions allowed (`60`, `0.5`).
pub fn seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| "not a number of seconds: give one such as 60 or 0.5".to_string())?;
    // NaN is in no range.
    if !(0.0..=MAX_SECONDS).contains(&v) {
        return Err(format!("give seconds from 0 to {MAX_SECONDS:e}"));
    }
    Ok(v)
}

/// The shortest `--stats-every`: a line per interval, and 0 would write lines without pause
/// (about 170 KB/s to stats.jsonl).
pub const MIN_STATS_EVERY: f64 = 0.1;

/// A parser for `--stats-every`: [`seconds`] of at least [`MIN_STATS_EVERY`].
pub fn stats_interval(s: &str) -> Result<f64, String> {
    let v = seconds(s)?;
    if v < MIN_STATS_EVERY {
        return Err(format!(
            "give at least {MIN_STATS_EVERY} s: stats.jsonl gets one line per interval, so {v} would write lines without pause (60, the default, suits a long campaign)"
        ));
    }
    Ok(v)
}

/// A `--families` entry: a PTX opcode (`add`, `cvt`, `setp`); a wrong one is answered with
/// every name (`gen`, `campaign` and `capture` took different, partial lists before).
pub fn family(s: &str) -> Result<ptx::isa::Opcode, String> {
    use ptx::isa::Opcode;
    Opcode::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = Opcode::ALL.iter().map(|o| o.name()).collect();
        format!("unknown family '{s}': the families are the PTX opcodes {}", all.join(", "))
    })
}

/// A `--types` entry: a register type of the arithmetic forms (`f32`, `f16x2`).
pub fn register_type(s: &str) -> Result<ptx::isa::Type, String> {
    use ptx::isa::Type;
    Type::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = Type::ALL.iter().map(|t| t.name()).collect();
        format!("unknown type '{s}': the types are {}", all.join(", "))
    })
}

/// A count of at least 1, decimal or `0x` hex, `_` allowed between digits (`65536`,
/// `0x1_0000`).
pub fn at_least_one<T: TryFrom<u64>>(s: &str) -> Result<T, String> {
    let v = number(s.trim()).map_err(|e| format!("not a count ({e}): give a whole number of at least 1"))?;
    if v == 0 {
        return Err("give at least 1".into());
    }
    T::try_from(v).map_err(|_| format!("{v} is too large here"))
}

/// A parser for clap's `value_parser =`: a whole number (decimal or `0x` hex, `_` between
/// digits, as `cli_values::number`) from `min` to `max`; `why` says what the bound protects.
pub fn count_in<T>(min: u64, max: u64, why: &'static str) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    move |s: &str| {
        let v = number(s.trim()).map_err(|e| format!("not a count ({e}): give a whole number from {min} to {max}"))?;
        if !(min..=max).contains(&v) {
            return Err(format!("give {min} to {max}: {why}"));
        }
        T::try_from(v).map_err(|_| format!("{v} does not fit this machine's word: give {min} to {max}"))
    }
}

/// A generator seed: any 64-bit number, decimal or `0x` hex (as [`number`]), one message for
/// every command that takes `--seed` (clap's own said `invalid digit found in string` for -1).
pub fn seed(s: &str) -> Result<u64, String> {
    number(s.trim()).map_err(|e| format!("not a seed ({e}): give a whole number from 0 to 2^64-1, decimal or 0x hex"))
}

/// A share from 0 to 1 (`0.1`): checked here so that `--compiled-share 2` is a usage error
/// before the campaign picks its engine, not a failure after.
pub fn share(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| "not a number: give a share from 0 to 1 such as 0.1".to_string())?;
    // NaN is in no range.
    if !(0.0..=1.0).contains(&v) {
        return Err("give a share from 0 to 1".into());
    }
    Ok(v)
}

/// A whole number, decimal or `0x` hex, `_` allowed between digits; decimal also with a
/// power of ten (`1e9`, `2.5e6`), as the help writes the bounds, when the value is whole and
/// exact in a double (up to 2^53).
pub fn number(s: &str) -> Result<u64, String> {
    let digits = s.replace('_', "");
    match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).map_err(|e| e.to_string()),
        None if digits.contains(['e', 'E']) => {
            let v: f64 = digits.parse().map_err(|_| "invalid digit found in string".to_string())?;
            if !(0.0..=9007199254740992.0).contains(&v) || v.fract() != 0.0 {
                return Err(format!("{s} is not a whole number up to 2^53"));
            }
            Ok(v as u64)
        }
        None => digits.parse().map_err(|e: std::num::ParseIntError| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_family_or_type_is_answered_with_every_name() {
        assert_eq!(family("cvt"), Ok(ptx::isa::Opcode::Cvt));
        let e = family("fmad").unwrap_err();
        assert!(e.starts_with("unknown family 'fmad': the families are the PTX opcodes testp, copysign, add") && e.ends_with("selp"), "{e}");
        assert_eq!(register_type("f16x2"), Ok(ptx::isa::Type::F16x2));
        assert_eq!(register_type("f8").unwrap_err(), "unknown type 'f8': the types are f16, f16x2, bf16, bf16x2, f32, f32x2, f64");
    }

    #[test]
    fn counts_read_decimal_hex_underscores_and_whole_powers_of_ten() {
        assert_eq!(number("65_536"), Ok(65536));
        assert_eq!(number("0x1_0000"), Ok(65536));
        assert_eq!(number("1e9"), Ok(1_000_000_000));
        assert_eq!(number("2.5E3"), Ok(2500));
        assert!(number("1.5e0").unwrap_err().contains("not a whole number"));
        assert!(number("1e30").is_err() && number("-1e3").is_err() && number("e9").is_err());
        assert_eq!(count_in::<u64>(1, 1_000_000_000, "why")("1e9"), Ok(1_000_000_000));
    }

    #[test]
    fn a_seed_is_any_64_bit_number_and_a_negative_one_is_told_the_range() {
        assert_eq!(seed("7"), Ok(7));
        assert_eq!(seed("0xdead_beef"), Ok(0xdead_beef));
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        for bad in ["-1", "18446744073709551616", "one"] {
            let e = seed(bad).unwrap_err();
            assert!(e.starts_with("not a seed (") && e.ends_with("give a whole number from 0 to 2^64-1, decimal or 0x hex"), "{bad}: {e}");
        }
    }

    #[test]
    fn stats_every_has_a_floor() {
        assert_eq!(stats_interval("0.5"), Ok(0.5));
        let e = stats_interval("0").unwrap_err();
        assert!(e.starts_with("give at least 0.1 s: stats.jsonl gets one line per interval"), "{e}");
        assert!(stats_interval("-1").is_err());
    }

    #[test]
    fn seconds_are_finite_and_not_negative() {
        assert_eq!(seconds("60"), Ok(60.0));
        assert_eq!(seconds("0.5"), Ok(0.5));
        assert_eq!(seconds("0"), Ok(0.0));
        for bad in ["-1", "nan", "NaN", "inf", "1e10", "", "ten"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        // Whatever it accepts, `Duration` takes without a panic.
        let _ = std::time::Duration::from_secs_f64(seconds("1e9").unwrap());
    }

    #[test]
    fn counts_are_at_least_one_and_fit_their_type() {
        assert_eq!(at_least_one::<usize>("1"), Ok(1));
        assert_eq!(at_least_one::<u64>("0x1_0000"), Ok(65536));
        assert_eq!(at_least_one::<u64>("1_000"), Ok(1000));
        assert_eq!(at_least_one::<u64>("0"), Err("give at least 1".to_string()));
        assert!(at_least_one::<u64>("-3").is_err());
        assert!(at_least_one::<u64>("1.5").is_err());
        assert!(at_least_one::<u16>("70000").is_err());
    }

    #[test]
    fn shares_are_from_0_to_1() {
        assert_eq!(share("0"), Ok(0.0));
        assert_eq!(share("0.1"), Ok(0.1));
        assert_eq!(share("1"), Ok(1.0));
        for bad in ["-0.1", "1.01", "nan", "inf", "", "half"] {
            assert!(share(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_count_outside_its_range_is_refused_with_the_range_and_the_reason() {
        let p = count_in::<usize>(1, 1 << 20, "the reason");
        assert_eq!(p("1"), Ok(1));
        assert_eq!(p("0x10_0000"), Ok(1 << 20));
        assert_eq!(p("1_048_577"), Err("give 1 to 1048576: the reason".to_string()));
        assert_eq!(p("0"), Err("give 1 to 1048576: the reason".to_string()));
        assert_eq!(p("99999999999"), Err("give 1 to 1048576: the reason".to_string()));
        for bad in ["-1", "1.5", "", "many", "99999999999999999999999"] {
            let e = p(bad).unwrap_err();
            assert!(e.starts_with("not a count") && e.ends_with("from 1 to 1048576"), "{bad}: {e}");
        }
        // A lower bound of 0 lets 0 through (a count of printed examples may be none).
        assert_eq!(count_in::<u64>(0, 10, "r")("0"), Ok(0));
    }
}
