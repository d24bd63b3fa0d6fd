//! Which execution mode each program of a campaign runs in (issue 12): on an engine with both
//! modes (a GPU) most programs run on the instruction VM (`isa`, no JIT per program) and a
//! share runs whole-program compiled (`compiled`, where compiler effects show); an engine with
//! one mode runs every program in it.
//!
//! The choice depends on the program's position in the campaign only, never on timing or on
//! the thread count, so a seed gives the same programs in the same modes on every run.

use anyhow::{bail, Result};

use crate::oracles::Exec;

/// Parts per million: the share is applied in integers, so that program n's mode is exact.
const PPM: u64 = 1_000_000;

/// The split of a campaign's programs between the engine's execution modes.
#[derive(Clone, Debug)]
pub struct Split {
    modes: &'static [Exec],
    /// Compiled programs per million.
    compiled_ppm: u64,
    /// Programs assigned so far.
    assigned: u64,
}

impl Split {
    /// `compiled_share` of the programs compiled (`campaign --compiled-share`), the rest on
    /// the VM, when the engine has both `modes`.
    pub fn new(modes: &'static [Exec], compiled_share: f64) -> Result<Split> {
        if !(0.0..=1.0).contains(&compiled_share) {
            bail!("--compiled-share {compiled_share}: give a share between 0 (every program on the instruction VM) and 1 (every program compiled)");
        }
        if modes.is_empty() {
            bail!("the engine names no execution mode");
        }
        Ok(Split { modes, compiled_ppm: (compiled_share * PPM as f64).round() as u64, assigned: 0 })
    }

    /// The mode of the next program. Program n is compiled when the running count of compiled
    /// programs, `floor((n + 1) * share)`, steps up at it: any window of programs holds the
    /// share to within one, spread evenly (one in ten at 0.1), not in bursts.
    pub fn assign(&mut self) -> Exec {
        let n = self.assigned;
        self.assigned += 1;
        match self.modes {
            [one] => *one,
            _ if (n + 1) * self.compiled_ppm / PPM > n * self.compiled_ppm / PPM => Exec::Compiled,
            _ => Exec::Isa,
        }
    }
}

/// `isa`, or `isa 90%, compiled 10%` on an engine with both modes.
impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.modes {
            [one] => write!(f, "{one}"),
            _ => {
                let compiled = self.compiled_ppm as f64 / (PPM as f64 / 100.0);
                let pct = |v: f64| format!("{v:.1}").trim_end_matches(".0").to_string();
                write!(f, "isa {}%, compiled {}%", pct(100.0 - compiled), pct(compiled))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: &[Exec] = &[Exec::Compiled, Exec::Isa];

    fn modes(split: &mut Split, n: usize) -> Vec<Exec> {
        (0..n).map(|_| split.assign()).collect()
    }

    #[test]
    fn a_tenth_compiled_is_every_tenth_program() {
        let m = modes(&mut Split::new(BOTH, 0.1).unwrap(), 100);
        let compiled: Vec<usize> = (0..100).filter(|&i| m[i] == Exec::Compiled).collect();
        assert_eq!(compiled, (0..10).map(|k| 10 * k + 9).collect::<Vec<_>>());
    }

    #[test]
    fn the_share_holds_in_every_window_to_within_one_program() {
        for share in [0.0, 0.01, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.9, 1.0] {
            let m = modes(&mut Split::new(BOTH, share).unwrap(), 10_000);
            for w in m.windows(97).step_by(31) {
                let compiled = w.iter().filter(|&&e| e == Exec::Compiled).count() as f64;
                assert!((compiled - share * 97.0).abs() <= 1.0, "share {share}: {compiled} of 97");
            }
        }
    }

    #[test]
    fn the_split_names_its_modes_and_shares() {
        assert_eq!(Split::new(BOTH, 0.1).unwrap().to_string(), "isa 90%, compiled 10%");
        assert_eq!(Split::new(BOTH, 1.0 / 3.0).unwrap().to_string(), "isa 66.7%, compiled 33.3%");
        assert_eq!(Split::new(&[Exec::Isa], 0.1).unwrap().to_string(), "isa");
    }

    #[test]
    fn an_engine_with_one_mode_runs_every_program_in_it() {
        for one in [&[Exec::Isa][..], &[Exec::Compiled][..]] {
            let m = modes(&mut Split::new(one, 0.5).unwrap(), 50);
            assert!(m.iter().all(|&e| e == one[0]));
        }
    }

    #[test]
    fn a_share_outside_zero_to_one_is_an_error_that_says_what_to_give() {
        for bad in [-0.1, 1.5, f64::NAN] {
            let e = Split::new(BOTH, bad).unwrap_err().to_string();
            assert!(e.contains("between 0"), "{e}");
        }
    }
}
