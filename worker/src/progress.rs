//! The progress line of long counted work (`sweep`, `math-check`): done of total, share, rate
//! and time left, on stderr, so a `--json` report on stdout stays clean.
//!
//! A 2^32-input sweep on the CPU takes minutes; it printed nothing until its report. On a
//! terminal the line is redrawn in place twice a second, as the campaign's is; elsewhere (a log,
//! CI) a line every 10 s, so a log shows the work moving without drowning in it.

use std::io::IsTerminal;
use std::time::Instant;

use crate::campaign::stats::si;

/// `what: 1.07 G of 4.29 G inputs (25%), 53.69 M/s, about 60 s left`.
pub fn line(what: &str, done: u128, total: u128, secs: f64) -> String {
    line_of(what, done, total, secs, "inputs")
}

/// As [`line`], counting `unit` (`programs` for `gen`).
fn line_of(what: &str, done: u128, total: u128, secs: f64, unit: &str) -> String {
    let si = |v: f64| si(v).trim_end().to_string();
    let rate = done as f64 / secs.max(1e-9);
    let left = if done == 0 { "time left not known yet".to_string() } else { time_left(total.saturating_sub(done) as f64 / rate) };
    format!(
        "{what}: {} of {} {unit} ({:.0}%), {}/s, {left}",
        si(done as f64),
        si(total as f64),
        100.0 * done as f64 / total.max(1) as f64,
        si(rate)
    )
}

/// `about 60 s left`, in the unit a reader takes in at once: a sweep of an f32 pair (2^64
/// inputs) printed `about 834771079118 s left`; it is about 26 k years.
fn time_left(secs: f64) -> String {
    const MIN: f64 = 60.0;
    const HOUR: f64 = 60.0 * MIN;
    const DAY: f64 = 24.0 * HOUR;
    const YEAR: f64 = 365.25 * DAY;
    let (v, unit) = match secs {
        s if s < 2.0 * MIN => return format!("about {s:.0} s left"),
        s if s < 2.0 * HOUR => (s / MIN, "min"),
        s if s < 2.0 * DAY => (s / HOUR, "h"),
        s if s < 2.0 * YEAR => (s / DAY, "days"),
        s => return format!("about {} years left", si(s / YEAR).trim_end()),
    };
    format!("about {v:.0} {unit} left")
}

/// A count of inputs as a sweep announces it: `4294967296 (2^32)`, the power of two named where
/// the count is one (a whole space, which is how sweeps are sized), so `18446744073709551616`
/// reads as an f32 pair's 2^64 at a glance.
pub fn count(n: u128) -> String {
    if n >= 1 << 10 && n.is_power_of_two() {
        format!("{n} (2^{})", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// Prints [`line`] when it is due; [`Progress::finish`] ends a line drawn in place.
pub struct Progress {
    what: String,
    total: u128,
    started: Instant,
    last: Instant,
    tty: bool,
    /// Seconds between lines: 0.5 on a terminal, 10 elsewhere.
    every: f64,
    drawn: bool,
    /// What is counted: `inputs` unless [`Progress::counting`] says otherwise.
    unit: &'static str,
}

impl Progress {
    pub fn new(what: impl Into<String>, total: u128) -> Progress {
        let tty = std::io::stderr().is_terminal();
        let now = Instant::now();
        Progress { what: what.into(), total, started: now, last: now, tty, every: if tty { 0.5 } else { 10.0 }, drawn: false, unit: "inputs" }
    }

    /// Count `unit` instead of inputs (`programs`).
    pub fn counting(mut self, unit: &'static str) -> Progress {
        self.unit = unit;
        self
    }

    /// `done` of the total so far: a line if one is due.
    pub fn update(&mut self, done: u128) {
        self.update_with(done, String::new);
    }

    /// As [`Progress::update`], the line followed by `extra()` (what the work has found so
    /// far, e.g. `3 mismatch(es)`), computed only when a line is due.
    pub fn update_with(&mut self, done: u128, extra: impl FnOnce() -> String) {
        if self.last.elapsed().as_secs_f64() < self.every {
            return;
        }
        self.last = Instant::now();
        let mut l = line_of(&self.what, done, self.total, self.started.elapsed().as_secs_f64(), self.unit);
        let extra = extra();
        if !extra.is_empty() {
            l.push_str(", ");
            l.push_str(&extra);
        }
        if self.tty {
            eprint!("\r{l}\x1b[K");
            self.drawn = true;
        } else {
            eprintln!("{l}");
        }
    }

    /// End a line drawn in place, so what follows starts on its own.
    pub fn finish(&mut self) {
        if std::mem::take(&mut self.drawn) {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_gives_done_total_share_rate_and_time_left() {
        let l = line("math-check expf", 1 << 30, 1 << 32, 20.0);
        assert_eq!(l, "math-check expf: 1.07 G of 4.29 G inputs (25%), 53.69 M/s, about 60 s left");
        // 2^64 inputs (a sweep of an f32 pair) and none done yet: no overflow, no NaN.
        let l = line("sweep add.rn.f32", 0, 1 << 64, 0.0);
        assert_eq!(l, "sweep add.rn.f32: 0 of 18.45 E inputs (0%), 0/s, time left not known yet");
        // gen counts programs.
        assert_eq!(line_of("gen", 500, 1000, 1.0, "programs"), "gen: 500 of 1000 programs (50%), 500/s, about 1 s left");
    }

    #[test]
    fn a_count_names_its_power_of_two() {
        assert_eq!(count(1 << 32), "4294967296 (2^32)");
        assert_eq!(count(1 << 64), "18446744073709551616 (2^64)");
        assert_eq!(count(1000), "1000");
        assert_eq!(count(3 << 20), "3145728");
        // Small powers of two read at once as they are.
        assert_eq!(count(256), "256");
    }

    #[test]
    fn time_left_is_in_the_largest_unit_that_reads_at_once() {
        assert_eq!(time_left(59.4), "about 59 s left");
        assert_eq!(time_left(119.0), "about 119 s left");
        assert_eq!(time_left(150.0), "about 2 min left");
        assert_eq!(time_left(5400.0), "about 90 min left");
        assert_eq!(time_left(3.0 * 3600.0), "about 3 h left");
        assert_eq!(time_left(10.0 * 86400.0), "about 10 days left");
        // A 2^64-input sweep at 22 M inputs/s.
        let l = line("sweep add.rn.f32", 22_000_000, 1 << 64, 1.0);
        assert!(l.ends_with(", about 26.6 k years left"), "{l}");
    }
}
