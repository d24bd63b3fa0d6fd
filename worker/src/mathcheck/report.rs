//! math-check's verdicts: [`judge`] judges results on the CPU against mathlib's correctly
//! rounded reference and the documented bound; [`judge_filtered`] does it for a pre-filtered
//! run (the kept inputs judged here, the GPU's bins counted, every audited input compared with
//! the bin the GPU gave it); [`Report`] is what math-check prints, posts and merges.

use std::fmt::Write as _;

use mathlib::{Accept, Build, MathFn};
use mathlib::op::Ty;
use rayon::prelude::*;
use serde::Serialize;

use super::prefilter::{Filter, Tallies, KEEP};
use crate::sweep::{bucket, bucket_label, BUCKETS};

/// Tallies of one check.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub func: String,
    pub device: String,
    pub flags: String,
    pub inputs: u64,
    /// Inputs the check set out to judge (`inputs` is fewer when interrupted).
    pub planned: u64,
    /// Stopped by Ctrl-C/SIGTERM before `planned` inputs: the tallies cover `inputs` only.
    pub interrupted: bool,
    pub exhaustive: bool,
    /// Inputs whose row documents a bound.
    pub bounded: u64,
    /// Results outside the documented bound.
    pub mismatches: u64,
    /// Max ulp error of result 0 against the correctly rounded result (floats), over all
    /// inputs and over those with a documented bound.
    pub max_ulps: u64,
    pub max_ulps_bounded: u64,
    pub max_at: Option<String>,
    /// Cases per ulp bucket (`sweep::bucket_label`), trailing zeros dropped.
    pub histogram: Vec<u64>,
    /// The documented bounds of the function's rows.
    pub bounds: Vec<String>,
    pub examples: Vec<String>,
    /// How the GPU pre-filter split the inputs (`None`: every input judged here).
    pub prefilter: Option<PrefilterReport>,
    pub seconds: f64,
}

/// The pre-filter's share of a check.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PrefilterReport {
    /// The double-precision function the GPU's reference came from, with its bound.
    pub reference: String,
    /// Inputs decided and binned on the GPU.
    pub decided_on_gpu: u64,
    /// Inputs the GPU could not decide, judged here.
    pub kept: u64,
    /// Decided inputs judged here as well (one in 1024).
    pub audited: u64,
    /// Audited inputs the judge of record rejects or bins differently: pre-filter failures.
    pub audit_failures: u64,
    pub audit_examples: Vec<String>,
    /// The input with the largest error among those binned on the GPU, when that error is the
    /// largest of the check (its result is not sent back: math-check reruns it to show it).
    pub max_input: Option<u32>,
}

/// `name(args) = results, allowed ...`: one case as the report shows it.
pub fn show_case(name: &str, build: &Build, args: &[u64], results: &[u64]) -> String {
    let a: Vec<String> = args.iter().map(|a| format!("0x{a:x}")).collect();
    let got: Vec<String> = results.iter().map(|v| format!("0x{v:x}")).collect();
    let allowed = mathlib::allowed_for(name, build, args)
        .ok()
        .flatten()
        .map_or("no bound".to_string(), |a| a.outputs.iter().map(|o: &Accept| o.to_string()).collect::<Vec<_>>().join("; "));
    format!("{name}({}) = {}, allowed {allowed}", a.join(", "), got.join(", "))
}

/// Judge `results` (M per input) against the reference for `inputs` (K per input).
/// `shape` is (K arguments, M results) per input.
pub fn judge(name: &str, row: &MathFn, build: &Build, inputs: &[u64], results: &[u64], shape: (usize, usize), keep: usize) -> Report {
    let (k, m) = shape;
    let rtypes = row.op.result_types();
    let fmt_scalar = match row.op.fmt {
        mathlib::Fmt::F32 => ptx::Scalar::F32,
        mathlib::Fmt::F64 => ptx::Scalar::F64,
    };
    let n = inputs.len() / k.max(1);
    let per: Vec<(bool, bool, Option<u64>)> = (0..n)
        .into_par_iter()
        .map(|i| {
            let args = &inputs[i * k..(i + 1) * k];
            let got = &results[i * m..(i + 1) * m];
            let allowed = mathlib::allowed_for(name, build, args).ok().flatten();
            let bounded = allowed.as_ref().is_some_and(|a| a.is_bounded());
            let ok = allowed.as_ref().is_none_or(|a| a.accepts(got));
            let reference = match &allowed {
                Some(a) => a.reference.first().map(|v| v.bits()),
                None => mathlib::fast::eval(&row.op, args).ok().and_then(|o| o.first().map(|v| v.bits())),
            };
            let ulps = match (rtypes[0], reference) {
                (Ty::F32 | Ty::F64, Some(r)) => crate::sweep::ulps(fmt_scalar, got[0], r),
                _ => None,
            };
            (bounded, ok, ulps)
        })
        .collect();
    let mut r = Report {
        func: name.to_string(),
        device: String::new(),
        flags: String::new(),
        inputs: n as u64,
        planned: n as u64,
        interrupted: false,
        exhaustive: false,
        bounded: 0,
        mismatches: 0,
        max_ulps: 0,
        max_ulps_bounded: 0,
        max_at: None,
        histogram: vec![0; BUCKETS],
        bounds: mathlib::table::rows_named(mathlib::table::effective_name(name, &build.flags))
            .map(|row| format!("{} [{}]: {}", mathlib::cli::bound_text(&row.bound), row.table, row.text))
            .collect(),
        examples: Vec::new(),
        prefilter: None,
        seconds: 0.0,
    };
    let show = |i: usize| show_case(name, build, &inputs[i * k..(i + 1) * k], &results[i * m..(i + 1) * m]);
    for (i, &(bounded, ok, ulps)) in per.iter().enumerate() {
        r.bounded += bounded as u64;
        if !ok {
            r.mismatches += 1;
            if r.examples.len() < keep {
                r.examples.push(show(i));
            }
        }
        if let Some(u) = ulps {
            r.histogram[bucket(u)] += 1;
            if u > r.max_ulps {
                r.max_ulps = u;
                r.max_at = Some(show(i));
            }
            if bounded {
                r.max_ulps_bounded = r.max_ulps_bounded.max(u);
            }
        }
    }
    while r.histogram.len() > 1 && r.histogram.last() == Some(&0) {
        r.histogram.pop();
    }
    r
}

impl Report {
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "math-check {} on {} ({}): {} inputs{}, {:.1} s",
            self.func,
            self.device,
            self.flags,
            self.inputs,
            if self.interrupted {
                format!(" of {} ({:#x} of {:#x}), interrupted", self.planned, self.inputs, self.planned)
            } else if self.exhaustive {
                " (all)".into()
            } else {
                String::new()
            },
            self.seconds
        );
        for b in &self.bounds {
            let _ = writeln!(s, "  documented: {b}");
        }
        let _ = writeln!(s, "  {} inputs with a documented bound; {} results outside it", self.bounded, self.mismatches);
        let _ = writeln!(
            s,
            "  max error: {} ulp ({} ulp where a bound is documented){}",
            self.max_ulps,
            self.max_ulps_bounded,
            self.max_at.as_ref().map_or(String::new(), |m| format!(" at {m}"))
        );
        for (b, &n) in self.histogram.iter().enumerate() {
            if n > 0 {
                let _ = writeln!(s, "    {:>12} ulp  {n:>12}", bucket_label(b));
            }
        }
        for e in &self.examples {
            let _ = writeln!(s, "  outside the bound: {e}");
        }
        if let Some(p) = &self.prefilter {
            let _ = writeln!(
                s,
                "  pre-filter: {} inputs decided on the GPU against {}; {} kept and judged here; {} of the decided audited here, {} failed",
                p.decided_on_gpu, p.reference, p.kept, p.audited, p.audit_failures
            );
            for e in &p.audit_examples {
                let _ = writeln!(s, "  PRE-FILTER FAILURE (decided on the GPU, the judge disagrees): {e}");
            }
        }
        s
    }
}

/// Judge a pre-filtered run of `filter`'s function: every kept input (and every audited one)
/// here as [`judge`] does, the inputs binned on the GPU counted into the histogram as they
/// are (all of them are within the bound, which holds for every argument), and each audited
/// input's bin compared with the judge's own measure.
pub fn judge_filtered(name: &str, build: &Build, filter: &Filter, t: &Tallies, keep: usize) -> Report {
    let inputs: Vec<u64> = t.kept.iter().map(|k| k[0] as u64).collect();
    let results: Vec<u64> = t.kept.iter().map(|k| k[1] as u64).collect();
    let mut r = judge(name, filter.row, build, &inputs, &results, (1, 1), keep);
    let failures: Vec<String> = t
        .kept
        .par_iter()
        .filter(|k| k[2] != KEEP)
        .filter_map(|&[x, y, bin]| {
            let allowed = mathlib::allowed_for(name, build, &[x as u64]).ok().flatten();
            let ok = allowed.as_ref().is_some_and(|a| a.accepts(&[y as u64]));
            let cr = allowed.as_ref().and_then(|a| a.reference.first().map(|v| v.bits()));
            let ulps = cr.and_then(|cr| crate::sweep::ulps(ptx::Scalar::F32, y as u64, cr));
            (!ok || ulps != Some(bin as u64)).then(|| {
                format!("{} (the GPU binned it at {bin} ulp, the judge measures {ulps:?})", show_case(name, build, &[x as u64], &[y as u64]))
            })
        })
        .collect();
    let passed = t.passed();
    r.inputs += passed;
    r.bounded += passed;
    r.histogram.resize(BUCKETS, 0);
    let mut max_input = None;
    for (u, &n) in t.bins.iter().enumerate().filter(|(_, &n)| n > 0) {
        r.histogram[bucket(u as u64)] += n;
        r.max_ulps_bounded = r.max_ulps_bounded.max(u as u64);
        if u as u64 > r.max_ulps {
            r.max_ulps = u as u64;
            r.max_at = None;
            max_input = Some(t.bin_input[u]);
        }
    }
    while r.histogram.len() > 1 && r.histogram.last() == Some(&0) {
        r.histogram.pop();
    }
    let audited = t.kept.iter().filter(|k| k[2] != KEEP).count() as u64;
    r.prefilter = Some(PrefilterReport {
        reference: filter.reference_text(),
        decided_on_gpu: passed + audited,
        kept: t.kept.len() as u64 - audited,
        audited,
        audit_failures: failures.len() as u64,
        audit_examples: failures.into_iter().take(keep).collect(),
        max_input,
    });
    r
}

pub(super) fn merge(mut a: Report, b: Report, keep: usize) -> Report {
    a.inputs += b.inputs;
    a.planned += b.planned;
    a.bounded += b.bounded;
    a.mismatches += b.mismatches;
    if b.max_ulps > a.max_ulps {
        a.max_ulps = b.max_ulps;
        a.max_at = b.max_at;
    }
    a.max_ulps_bounded = a.max_ulps_bounded.max(b.max_ulps_bounded);
    if a.histogram.len() < b.histogram.len() {
        a.histogram.resize(b.histogram.len(), 0);
    }
    for (x, y) in a.histogram.iter_mut().zip(b.histogram) {
        *x += y;
    }
    let room = keep.saturating_sub(a.examples.len());
    a.examples.extend(b.examples.into_iter().take(room));
    // A pre-filtered check is judged once, over all its tallies (`judge_filtered`).
    a.prefilter = a.prefilter.or(b.prefilter);
    a
}

pub(super) fn print_report(r: &Report, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string(r)?);
    } else {
        print!("{}", r.text());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::source::Rng;
    use crate::mathcheck::{arg_types, sample};

    fn row(name: &str) -> &'static MathFn {
        mathlib::reference::row(name).unwrap()
    }

    #[test]
    fn reference_judged_against_itself_has_no_mismatch_and_no_error() {
        for name in ["sinf", "__fadd_rz", "frexpf", "fdiv"] {
            let r = row(name);
            let types = arg_types(r, 3);
            let (k, m) = (types.len(), r.op.result_types().len());
            let mut rng = Rng::new(9);
            let inputs: Vec<u64> = (0..2000 * k).map(|j| sample(&mut rng, types[j % k])).collect();
            let results: Vec<u64> = inputs
                .chunks(k)
                .flat_map(|a| mathlib::fast::eval(&r.op, a).unwrap().iter().map(|v| v.bits()).collect::<Vec<_>>())
                .collect();
            let rep = judge(name, r, &Build::default(), &inputs, &results, (k, m), 3);
            assert_eq!(rep.mismatches, 0, "{name}: {:?}", rep.examples);
            assert_eq!(rep.max_ulps, 0, "{name}");
            assert!(rep.bounded > 0, "{name}");
            assert!(!rep.bounds.is_empty());
        }
    }

    #[test]
    fn a_result_two_ulps_off_breaks_a_one_ulp_bound() {
        // expm1f: 1 ulp (Table 7).
        let r = row("expm1f");
        let inputs: Vec<u64> = [0.5f32, 1.5, -0.25].iter().map(|x| x.to_bits() as u64).collect();
        let results: Vec<u64> =
            inputs.iter().map(|&a| mathlib::fast::eval(&r.op, &[a]).unwrap()[0].bits() + 2).collect();
        let rep = judge("expm1f", r, &Build::default(), &inputs, &results, (1, 1), 5);
        assert_eq!(rep.mismatches, 3);
        assert_eq!(rep.max_ulps, 2);
        assert_eq!(rep.histogram[2], 3);
        assert!(rep.text().contains("outside the bound: expm1f(0x3f000000)"), "{}", rep.text());
    }

    /// The correctly rounded result of `row` at f32 `x`, and of the filter's double reference.
    fn cr(row: &MathFn, x: u32) -> u32 {
        mathlib::fast::eval(&row.op, &[x as u64]).unwrap()[0].bits() as u32
    }
    fn cr_double(row: &MathFn, x: u32) -> f64 {
        let xd = (f32::from_bits(x) as f64).to_bits();
        f64::from_bits(mathlib::fast::eval(&row.op, &[xd]).unwrap()[0].bits())
    }

    /// The function under test: the correctly rounded result, moved by a few steps (or
    /// replaced by a NaN) on a pseudo-random share of inputs.
    fn faulty(row: &MathFn, x: u32) -> u32 {
        let c = cr(row, x);
        let h = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60;
        let nan = c & 0x7fff_ffff > 0x7f80_0000;
        match h {
            _ if nan => c,
            10 | 11 if c & 0x7fff_ffff < 0x7f7f_ffff => c + 1,
            12 if c & 0x7fff_ffff > 1 => c - 1,
            13 if c & 0x7fff_ffff < 0x7f7f_fffe => c + 2,
            14 if c & 0x7fff_ffff < 0x7f7f_fffd => c + 3,
            15 => 0x7fc0_0000,
            _ => c,
        }
    }

    /// A stride through all 2^32 inputs, and every input near 0, 1, the overflow and the
    /// underflow of expf.
    fn inputs() -> Vec<u32> {
        let mut xs: Vec<u32> = (0..1u64 << 32).step_by(65_521).map(|x| x as u32).collect();
        for c in [0u32, 0x3f80_0000, 0x42b1_7218, 0xc2ce_8ed0, 0x7f80_0000, 0xff80_0000] {
            xs.extend(c.saturating_sub(300)..c.saturating_add(300));
        }
        xs
    }

    #[test]
    fn a_prefiltered_run_reports_what_judging_every_input_reports() {
        for name in ["expf", "sinf", "log1pf"] {
            let build = Build::default();
            let f = Filter::of(name, &build).unwrap();
            let xs = inputs();
            let t = super::super::prefilter::emulate(&f, xs.iter().copied(), |x| faulty(f.row, x), |x| cr_double(f.reference, x));
            let filtered = judge_filtered(name, &build, &f, &t, 5);
            let all_in: Vec<u64> = xs.iter().map(|&x| x as u64).collect();
            let all_out: Vec<u64> = xs.iter().map(|&x| faulty(f.row, x) as u64).collect();
            let every = judge(name, f.row, &build, &all_in, &all_out, (1, 1), 5);
            let p = filtered.prefilter.as_ref().unwrap();
            assert_eq!(p.audit_failures, 0, "{name}: {:?}", p.audit_examples);
            // One input in 8 is broken beyond the bound (+3 steps, NaN) and so kept.
            assert!(p.decided_on_gpu > xs.len() as u64 * 8 / 10, "{name}: only {} of {} decided", p.decided_on_gpu, xs.len());
            assert!(p.audited > 0 && p.kept > 0, "{name}");
            assert_eq!(
                (filtered.inputs, filtered.bounded, filtered.mismatches, &filtered.histogram),
                (every.inputs, every.bounded, every.mismatches, &every.histogram),
                "{name}"
            );
            assert_eq!((filtered.max_ulps, filtered.max_ulps_bounded), (every.max_ulps, every.max_ulps_bounded), "{name}");
            assert!(every.mismatches > 0, "{name}: the faulty function breaks the bound somewhere");
            assert!(filtered.text().contains("pre-filter: "), "{}", filtered.text());
        }
    }

    #[test]
    fn a_reference_outside_its_bound_is_caught_by_the_audit_and_reported_loudly() {
        let build = Build::default();
        let f = Filter::of("expf", &build).unwrap();
        // A double exp 2^-25 off (about half a float ulp): far outside Table 8's 1 ulp.
        let t = super::super::prefilter::emulate(
            &f,
            (0..1u64 << 32).step_by(4099).map(|x| x as u32),
            |x| cr(f.row, x),
            |x| cr_double(f.reference, x) * (1.0 + 2f64.powi(-25)),
        );
        let r = judge_filtered("expf", &build, &f, &t, 3);
        let p = r.prefilter.as_ref().unwrap();
        assert!(p.audit_failures > 0, "{p:?}");
        assert!(r.text().contains("PRE-FILTER FAILURE"), "{}", r.text());
    }
}
