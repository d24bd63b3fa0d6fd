//! Limits shared by the request bodies: how long a string may be, which client timestamps are
//! believable, and the one spelling of hex bits. Each check returns a message that names the
//! field, the limit and what to do; the handlers send it as a 422.

use chrono::{DateTime, TimeDelta, TimeZone, Utc};

/// Short names: a campaign's host, target, device, GPU, driver, CUDA and interpreter version,
/// a reproducer's target and device. The same cap as a lease's worker and a result's fields
/// (`http::regressions`); real ones are under 100 bytes (`NVIDIA H100 80GB HBM3`,
/// `ptxfuzz 0.1.0 (abc1234)`), and every one is shown in a table cell of the dashboard.
pub const MAX_NAME: usize = 500;
/// A triage note: a paragraph of evidence, the same cap as a known divergence's reason
/// (`http::known`), shown in full in a finding's history.
pub const MAX_NOTE: usize = 10_000;
/// A report's `.ptx` file. The worker sends `api::repro::files::ptx_file` of the minimized
/// program: a launch header and one kernel, about 1.5 KB for the H100 findings of
/// `shared/hw/h100-sm90/campaign-60s` and under 100 KB for a program minimization could not
/// shrink. 1 MiB leaves room for the largest program a regression takes
/// (`validate::MAX_PROGRAM_BYTES`, 256 KiB of text) written as a kernel.
pub const MAX_PTX: usize = 1 << 20;
/// A report's SASS (`cuobjdump -sass` of that one kernel): several lines per PTX instruction,
/// so four times the PTX cap.
pub const MAX_SASS: usize = 4 << 20;

/// How far ahead of the server's clock a client's timestamp may be: workers' clocks drift and
/// time zones get misconfigured, but a day ahead is a wrong clock, and a time in the future
/// would sort first in every newest-first list until that day comes.
pub const FUTURE_TOLERANCE_HOURS: i64 = 24;
/// No timestamp before this year is believable: ptxfuzz did not exist, and a 0001-01-01 (a
/// zeroed clock) would sort last, or first as a campaign's or finding's earliest date, forever.
pub const EARLIEST_YEAR: i32 = 2000;

/// 422 text when `value` is longer than `max` bytes; `what` says what to do instead.
pub fn cap(field: &str, value: &str, max: usize, what: &str) -> Result<(), String> {
    if value.len() > max {
        return Err(format!("{field} is {} bytes long; at most {max} bytes are accepted: {what}", value.len()));
    }
    Ok(())
}

/// The earliest accepted timestamp, 2000-01-01T00:00:00Z.
pub fn earliest() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(EARLIEST_YEAR, 1, 1, 0, 0, 0).single().expect("a valid date")
}

/// A client's timestamp must lie between [`earliest`] and `now` plus
/// [`FUTURE_TOLERANCE_HOURS`]; `now` is the server's clock.
pub fn check_time(field: &str, t: DateTime<Utc>, now: DateTime<Utc>) -> Result<(), String> {
    let latest = now + TimeDelta::hours(FUTURE_TOLERANCE_HOURS);
    if t < earliest() || t > latest {
        let fmt = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        return Err(format!(
            "{field}: {} is outside the accepted range {} .. {} (the server's clock plus {FUTURE_TOLERANCE_HOURS} h for clock skew); set the worker's clock right and send the time it really happened",
            t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
            fmt(earliest()),
            fmt(latest)
        ));
    }
    Ok(())
}

/// The hex digits of bits spelled as workers write them (`ValType::format_hex`): `0x`, then
/// hex. One rule for reports, raw regressions and results, so that `"1"` is never read as the
/// bit pattern 0x1 in one place and refused in another.
pub fn strip_0x(text: &str) -> Option<&str> {
    text.strip_prefix("0x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_outside_the_range_are_refused_naming_the_field_and_range() {
        let now = Utc::now();
        assert!(check_time("at", now, now).is_ok());
        assert!(check_time("at", now + TimeDelta::hours(23), now).is_ok());
        assert!(check_time("at", earliest(), now).is_ok());
        let e = check_time("at", Utc.with_ymd_and_hms(9999, 1, 1, 0, 0, 0).unwrap(), now).unwrap_err();
        assert!(e.starts_with("at: 9999-01-01") && e.contains("2000-01-01T00:00:00Z .. ") && e.contains("24 h"), "{e}");
        let e = check_time("found_at", Utc.with_ymd_and_hms(1, 1, 1, 0, 0, 0).unwrap(), now).unwrap_err();
        assert!(e.starts_with("found_at: 0001-01-01"), "{e}");
        assert!(check_time("x", now + TimeDelta::hours(25), now).is_err());
    }

    #[test]
    fn caps_name_the_field_and_the_limit() {
        assert!(cap("gpu_name", &"x".repeat(MAX_NAME), MAX_NAME, "shorten it").is_ok());
        let e = cap("gpu_name", &"x".repeat(MAX_NAME + 1), MAX_NAME, "shorten it").unwrap_err();
        assert_eq!(e, "gpu_name is 501 bytes long; at most 500 bytes are accepted: shorten it");
    }

    #[test]
    fn hex_needs_the_prefix() {
        assert_eq!(strip_0x("0x7f00"), Some("7f00"));
        assert_eq!(strip_0x("7f00"), None);
        assert_eq!(strip_0x("0X7f00"), None);
    }
}
