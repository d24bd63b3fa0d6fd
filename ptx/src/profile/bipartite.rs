//! The H100's f32 tanh unit (SASS `MUFU.TANH`) as data: a bipartite table per segment of the
//! operand, fitted against the dense dumps (issue #15; docs/approx.md, "Models"). One
//! evaluator here, the tables in a file beside the profile (`ptx/profiles/sm_90-tanh.txt.gz`).
//!
//! What the dense dumps show (`dense/tanh.approx.f32.3f000000` on the H100, 14 more binades
//! recorded on an H200 in `docs/hardware/dense-nvidia-h200-2026-11-26/`): in each binade
//! 2^e <= |x| < 2^(e+1) the unit reads the significand cut to `P` fraction bits (17 on
//! [2^-8, 2^-5), 18 below 2^-3, 19 below 1, then fixed point with 20 fraction bits: runs of
//! 2^(23-P) consecutive inputs give one output). The top `H` fraction bits pick a segment,
//! the next `M` bits `m` and the last `L` bits `l`, and the result is
//!
//! ```text
//! T0[segment][m] + T1[segment][l]   (integers, in units of 2^unit_exponent),
//! ```
//!
//! rounded once to f32: the bipartite table method (Das Sarma and Matula, 1995). The tables are
//! not the unit's own (a sum leaves each table free up to a constant, and within the rounding
//! slack): they are a solution of the exact feasibility problem "every recorded output is the
//! rounded sum" (`scripts/approx-tanh-fit`), one linear program per segment, made integers.
//! Fitted on half of a segment's inputs, such tables give the other half's outputs on 90 % or
//! more of them (docs/approx.md), so the structure is the unit's, not the fit's.

use std::sync::{Arc, OnceLock};

/// The tables of one binade of |x|.
#[derive(Clone, Debug, PartialEq)]
struct Binade {
    /// The unbiased exponent e of the binade [2^e, 2^(e+1)).
    exponent: i32,
    /// Fraction bits of the significand the unit reads (the rest are cut).
    input_bits: u32,
    segment_bits: u32,
    middle_bits: u32,
    low_bits: u32,
    segments: Vec<Segment>,
}

#[derive(Clone, Debug, PartialEq)]
struct Segment {
    /// The entries' unit is 2^unit_exponent.
    unit_exponent: i32,
    t0: Vec<i64>,
    t1: Vec<i64>,
}

/// A bipartite-table unit, parsed and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Bipartite {
    binades: Vec<Binade>,
}

/// The tables a profile may name, embedded in the binary (the profile file names them).
const EMBEDDED: [(&str, &[u8]); 1] = [("sm_90-tanh", include_bytes!("../../profiles/sm_90-tanh.txt.gz"))];

impl Bipartite {
    /// The embedded table `name`, parsed once per process.
    pub fn embedded(name: &str) -> Result<Arc<Bipartite>, String> {
        static PARSED: [OnceLock<Result<Arc<Bipartite>, String>>; EMBEDDED.len()] = [const { OnceLock::new() }; EMBEDDED.len()];
        let Some(i) = EMBEDDED.iter().position(|(n, _)| *n == name) else {
            let known: Vec<&str> = EMBEDDED.iter().map(|(n, _)| *n).collect();
            return Err(format!("no bipartite table '{name}' (embedded: {})", known.join(", ")));
        };
        PARSED[i].get_or_init(|| Bipartite::from_gzip(name, EMBEDDED[i].1).map(Arc::new)).clone()
    }

    fn from_gzip(name: &str, gz: &[u8]) -> Result<Bipartite, String> {
        use std::io::Read;
        let mut text = String::new();
        flate2::read::GzDecoder::new(gz).read_to_string(&mut text).map_err(|e| format!("bipartite table {name}: {e}"))?;
        Bipartite::parse(name, &text)
    }

    /// The text format: `#` comments; `binade E P H M L` opens a binade (exponent, the fraction
    /// bits read, segment, middle and low bits: `H + M + L = P`); then one line per segment in
    /// order: the segment's index, its unit exponent, `T0[0]`, the 2^M - 1 differences
    /// `T0[m] - T0[m-1]`, and the 2^L - 1 differences `T1[l] - T1[l-1]` (`T1[0]` is 0).
    pub fn parse(name: &str, text: &str) -> Result<Bipartite, String> {
        let bad = |line: usize, what: String| Err(format!("bipartite table {name}, line {}: {what}", line + 1));
        let mut binades: Vec<Binade> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (opens_binade, rest) = match line.strip_prefix("binade") {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let nums: Result<Vec<i64>, _> = rest.split_whitespace().map(str::parse::<i64>).collect();
            let Ok(nums) = nums else { return bad(n, "expected integers".into()) };
            if opens_binade {
                let [e, p, h, m, l] = nums[..] else { return bad(n, "a binade line is 'binade E P H M L'".into()) };
                if !(-126..=127).contains(&e) || !(0..=23).contains(&p) || h < 0 || m < 0 || l < 0 || h + m + l != p || m > 12 || l > 12 {
                    return bad(n, format!("binade {e}: needs H + M + L = P <= 23, M and L at most 12"));
                }
                if binades.last().is_some_and(|b| b.exponent + 1 != e as i32) {
                    return bad(n, "binades must follow one another".into());
                }
                let (p, h, m, l) = (p as u32, h as u32, m as u32, l as u32);
                binades.push(Binade { exponent: e as i32, input_bits: p, segment_bits: h, middle_bits: m, low_bits: l, segments: Vec::new() });
                continue;
            }
            let Some(b) = binades.last_mut() else { return bad(n, "a segment line before any 'binade' line".into()) };
            let (m, l) = (1usize << b.middle_bits, 1usize << b.low_bits);
            if nums.len() != 2 + m + l - 1 || nums[0] != b.segments.len() as i64 {
                return bad(n, format!("segment {} of binade {} needs its index, a unit exponent and {} entries", b.segments.len(), b.exponent, m + l - 1));
            }
            let running = |start: i64, d: &[i64]| std::iter::once(start).chain(d.iter().scan(start, |acc, d| {
                *acc += d;
                Some(*acc)
            })).collect::<Vec<i64>>();
            let t0 = running(nums[2], &nums[3..2 + m]);
            let t1 = running(0, &nums[2 + m..]);
            // Every sum must convert to f64 exactly (one rounding, to f32, in `magnitude`).
            let top = t0.iter().map(|v| v.abs()).max().unwrap_or(0) + t1.iter().map(|v| v.abs()).max().unwrap_or(0);
            if top >= 1 << 53 || !(-200..=100).contains(&nums[1]) {
                return bad(n, "entries must sum below 2^53 and the unit exponent lie in -200..=100".into());
            }
            b.segments.push(Segment { unit_exponent: nums[1] as i32, t0, t1 });
        }
        if binades.is_empty() {
            return Err(format!("bipartite table {name}: no binade"));
        }
        for b in &binades {
            if b.segments.len() != 1 << b.segment_bits {
                return Err(format!("bipartite table {name}: binade {} has {} segments, needs 2^{}", b.exponent, b.segments.len(), b.segment_bits));
            }
        }
        Ok(Bipartite { binades })
    }

    /// The unit's result for a positive normal magnitude `a` (f32 bits) in the binades the table
    /// covers; `None` outside them (the model row's thresholds send nothing there).
    pub fn magnitude(&self, a: u32) -> Option<u32> {
        let e = ((a >> 23) & 0xff) as i32 - 127;
        if a >> 31 != 0 || e == -127 {
            return None;
        }
        let b = self.binades.iter().find(|b| b.exponent == e)?;
        let s = (a & 0x7f_ffff) >> (23 - b.input_bits);
        let seg = &b.segments[(s >> (b.middle_bits + b.low_bits)) as usize];
        let m = (s >> b.low_bits) & ((1 << b.middle_bits) - 1);
        let l = s & ((1 << b.low_bits) - 1);
        let v = seg.t0[m as usize] + seg.t1[l as usize];
        // Exact in f64 (parse), then the one rounding, to nearest even.
        Some((v as f64 * crate::approx::pow2(seg.unit_exponent)) as f32).map(f32::to_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = "# two binades\nbinade 0 3 1 1 1\n0 -3 8 1 1\n1 -3 12 1 2\nbinade 1 2 0 1 1\n0 -2 9 2 1\n";

    #[test]
    fn the_sum_of_the_two_entries_is_rounded_once_to_f32() {
        let t = Bipartite::parse("t", TINY).unwrap();
        // 1.0 (fraction 000): segment 0, m 0, l 0: 8 * 2^-3.
        assert_eq!(t.magnitude(1f32.to_bits()), Some(1f32.to_bits()));
        // 1.875 (fraction 111): segment 1, m 1, l 1: (12 + 1 + 2) * 2^-3.
        assert_eq!(t.magnitude(1.875f32.to_bits()), Some(1.875f32.to_bits()));
        // 3.5 in binade 1 (fraction 11): (9 + 2 + 1) * 2^-2; bits below P are cut.
        assert_eq!(t.magnitude(3.5f32.to_bits()), Some(3f32.to_bits()));
        assert_eq!(t.magnitude(f32::from_bits(3.5f32.to_bits() + 1).to_bits()), Some(3f32.to_bits()));
        // Outside the binades, or negative: none.
        assert_eq!(t.magnitude(4f32.to_bits()), None);
        assert_eq!(t.magnitude((-1f32).to_bits()), None);
    }

    #[test]
    fn a_table_of_the_wrong_shape_is_refused_with_its_line() {
        let e = Bipartite::parse("t", "binade 0 3 1 1 2\n").unwrap_err();
        assert!(e.contains("H + M + L = P"), "{e}");
        let e = Bipartite::parse("t", "binade 0 3 1 1 1\n0 -3 8 1\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("segment 0 of binade 0"), "{e}");
        let e = Bipartite::parse("t", "binade 0 3 1 1 1\n0 -3 8 1 1\n").unwrap_err();
        assert!(e.contains("binade 0 has 1 segments, needs 2^1"), "{e}");
        let e = Bipartite::parse("t", "binade 0 3 1 1 1\nbinade 2 3 1 1 1\n").unwrap_err();
        assert!(e.contains("follow one another"), "{e}");
        assert!(Bipartite::embedded("nope").unwrap_err().contains("sm_90-tanh"));
    }
}
