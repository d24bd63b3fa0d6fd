//! Measured errors where the spec documents no bound (`Outcome::Unbounded`: e.g. sin.approx
//! outside [-100pi, 100pi], rsqrt.approx.f64): never findings, recorded as statistics per form
//! (count, worst error in ulps, log2 histogram), in bounded memory.

use serde::{Deserialize, Serialize};

/// Errors (target minus correctly rounded reference, in ulps) of one form.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorStats {
    /// Results compared (only those differing from the reference are counted).
    pub count: u64,
    /// Results that are NaN where the reference is a number, or the reverse (no ulp distance).
    pub nan: u64,
    /// Largest |ulps| seen.
    pub max_abs_ulps: u64,
    /// The case with the largest error: operands, result, reference.
    pub worst: Option<WorstCase>,
    /// `histogram[k]`: errors with `2^(k-1) < |ulps| <= 2^k` (k = 0: exactly 1 ulp... see
    /// [`ErrorStats::bucket`]).
    pub histogram: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorstCase {
    pub operands: Vec<u64>,
    pub got: u64,
    pub reference: u64,
    pub ulps: i64,
}

impl ErrorStats {
    /// The histogram bucket of an error of `|ulps|` > 0: ceil(log2 |ulps|) (1 -> 0, 2 -> 1,
    /// 3..4 -> 2, ...).
    pub fn bucket(abs_ulps: u64) -> usize {
        (64 - (abs_ulps.max(1) - 1).leading_zeros()) as usize
    }

    /// Record one error; `ulps` `None` when NaN is involved.
    pub fn record(&mut self, operands: &[u64], got: u64, reference: u64, ulps: Option<i64>) {
        self.count += 1;
        let Some(u) = ulps else {
            self.nan += 1;
            return;
        };
        let a = u.unsigned_abs();
        let b = Self::bucket(a);
        if self.histogram.len() <= b {
            self.histogram.resize(b + 1, 0);
        }
        self.histogram[b] += 1;
        if a > self.max_abs_ulps || self.worst.is_none() {
            self.max_abs_ulps = self.max_abs_ulps.max(a);
            self.worst = Some(WorstCase { operands: operands.to_vec(), got, reference, ulps: u });
        }
    }

    pub fn merge(&mut self, other: &ErrorStats) {
        self.count += other.count;
        self.nan += other.nan;
        if self.histogram.len() < other.histogram.len() {
            self.histogram.resize(other.histogram.len(), 0);
        }
        for (a, b) in self.histogram.iter_mut().zip(&other.histogram) {
            *a += b;
        }
        if let Some(w) = &other.worst {
            if self.worst.is_none() || other.max_abs_ulps > self.max_abs_ulps {
                self.worst = Some(w.clone());
            }
        }
        self.max_abs_ulps = self.max_abs_ulps.max(other.max_abs_ulps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_ceil_log2() {
        let b: Vec<usize> = [1, 2, 3, 4, 5, 8, 9, 1 << 40].iter().map(|&u| ErrorStats::bucket(u)).collect();
        assert_eq!(b, [0, 1, 2, 2, 3, 3, 4, 40]);
    }

    #[test]
    fn record_and_merge_keep_the_worst() {
        let mut a = ErrorStats::default();
        a.record(&[1], 10, 7, Some(3));
        a.record(&[2], 0, 0, None);
        let mut b = ErrorStats::default();
        b.record(&[5], 100, 0, Some(-100));
        a.merge(&b);
        assert_eq!((a.count, a.nan, a.max_abs_ulps), (3, 1, 100));
        assert_eq!(a.worst.as_ref().unwrap().operands, [5]);
        assert_eq!(a.histogram[2], 1);
        assert_eq!(a.histogram[7], 1);
    }
}
