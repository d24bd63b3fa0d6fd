//! `ptxfuzz sweep` of a form outside `Instr` (`ptx::form`: a `cvt`, `setp`, `set`, `selp`):
//! every input of a form whose operands total at most 32 bits (a conversion from f32, f16,
//! bf16 or a narrow pair; a comparison of two 16-bit values) run through the engine's
//! `run_forms` and judged against the form's allowed set (`Form::eval`), with the output
//! fingerprint of `sweep::fingerprint` so that two targets (the interpreter and a GPU) can be
//! compared over the whole space by one number.
//!
//! Input `i` gives the operands `ptx::gen::form_case::nth_case(i)`: the first operand in the
//! low bits; a conversion of two f32 into a packed pair (`cvt.rn.f16x2.f32`,
//! `cvt.rn.satfinite.e4m3x2.f32`) gets `i` in both, as the instruction sweep gives both lanes
//! of a packed form one value, so every f32 input is converted in both lanes. The fingerprint is the sum of `mix((i << r) | out)` over every input, `r` the
//! result's width (the shift `sweeps.jsonl` uses for its 16-bit results), defined where the
//! input and result widths total at most 64 bits.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use ptx::form::{Form, Operand};
use ptx::gen::form_case::nth_case;
use ptx::Scalar;
use rayon::prelude::*;
use serde::Serialize;

use super::fingerprint::term;
use super::{Plan, SweepArgs};
use crate::oracles::{open_spec, Engine, EngineFault, EngineSpec};
use crate::progress::Progress;

/// What a sweep of a form found.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct FormSweep {
    pub form: String,
    pub target: String,
    pub inputs: u64,
    /// Results the PTX ISA does not allow on their operands.
    pub mismatches: u64,
    /// Allowed results other than the interpreter's primary one (a NaN payload, a reading).
    pub allowed_not_primary: u64,
    /// The first mismatches: operands, the target's word, the interpreter's primary word.
    pub examples: Vec<FormExample>,
    /// The output fingerprint, when every input ran once and it is defined (module docs), hex.
    pub fingerprint: Option<String>,
    pub seconds: f64,
    /// Whether the sweep was interrupted (SIGINT/SIGTERM) before its last input.
    pub interrupted: bool,
}

/// One mismatch: the words (numbers in JSON, as before), and beside them each in decimal as the
/// form's registers read it (`ptx::form_value`), so that a report is read without a decoder.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FormExample {
    pub operands: Vec<u64>,
    pub got: u64,
    pub primary: u64,
    pub operands_decimal: Vec<String>,
    pub got_decimal: String,
    pub primary_decimal: String,
}

impl FormExample {
    fn new(form: &Form, operands: &[u64], got: u64, primary: u64) -> FormExample {
        use ptx::form_value::{operand_decimal, result_decimal};
        FormExample {
            operands_decimal: operands.iter().enumerate().filter_map(|(k, &o)| operand_decimal(form, k, o)).collect(),
            got_decimal: result_decimal(form, got),
            primary_decimal: result_decimal(form, primary),
            operands: operands.to_vec(),
            got,
            primary,
        }
    }
}

/// Whether `form` converts two f32 into a packed pair: swept with one value in both.
fn paired_f32(form: &Form) -> bool {
    matches!(form, Form::Cvt(_)) && form.operands() == [Operand::Float(Scalar::F32); 2]
}

/// The operands of input `i` (module docs), appended to `out`.
fn operands_of(form: &Form, kinds: &[Operand], i: u64, out: &mut Vec<u64>) {
    if paired_f32(form) {
        out.extend([i, i]);
    } else {
        nth_case(kinds, i, out);
    }
}

/// Bits of the whole operand space of `form`, if it is at most 32.
pub fn space_bits(form: &Form) -> Result<u32> {
    if paired_f32(form) {
        return Ok(32);
    }
    let bits: u32 = form.operands().iter().map(|k| k.bits()).sum();
    if bits > 32 {
        bail!("{form} has {bits} bits of operands; sweep takes forms of at most 32 (conversions from one value of 32 bits or fewer, or of two f32 into a pair; comparisons of 16-bit values); `ptxfuzz capture --forms {form}` samples the others");
    }
    Ok(bits)
}

/// Sweep `form` on `engine` over `plan`, judging each batch on every core.
pub fn sweep_form(engine: &mut dyn Engine, form: &Form, plan: Plan, batch: usize, examples: usize, stop: &AtomicBool) -> Result<FormSweep> {
    let bits = space_bits(form)?;
    if !engine.supports_form(form) {
        return Err(super::sweep_checks::not_run_on(&engine.info().name, form, form.needs(), false));
    }
    let space = 1u64 << bits;
    let kinds = form.operands();
    let t0 = Instant::now();
    let mut progress = Progress::new(format!("sweep {form}"), plan.count);
    let mut r = FormSweep { form: form.to_string(), target: engine.info().to_string(), ..FormSweep::default() };
    let (mut sum, mut done) = (0u64, 0u128);
    let mut cases = Vec::with_capacity(batch * kinds.len());
    let mut numbers = Vec::with_capacity(batch);
    while done < plan.count {
        if stop.load(Ordering::Relaxed) {
            r.interrupted = true;
            break;
        }
        let n = (plan.count - done).min(batch as u128) as u64;
        cases.clear();
        numbers.clear();
        for j in 0..n {
            let i = (plan.start as u128 + (done + j as u128) * plan.stride as u128) as u64 & (space - 1);
            numbers.push(i);
            operands_of(form, &kinds, i, &mut cases);
        }
        let got = engine.run_forms(form, &cases).map_err(|f: EngineFault| anyhow::anyhow!("{} faulted on {form}: {f}", engine.info().name))?;
        let k = kinds.len();
        let rbits = form.result_bits();
        let (s, bad, other, first) = numbers
            .par_iter()
            .zip(cases.par_chunks_exact(k))
            .zip(got.par_iter())
            .map(|((&i, ops), &g)| {
                let a = form.eval(ops).expect("the enumeration gives operands of their widths");
                let t = if bits + rbits <= 64 { term(i, g, rbits) } else { 0 };
                match (a.word == g, a.allows(g)) {
                    (true, _) => (t, 0u64, 0u64, Vec::new()),
                    (false, true) => (t, 0, 1, Vec::new()),
                    (false, false) => (t, 1, 0, vec![FormExample::new(form, ops, g, a.word)]),
                }
            })
            .reduce(
                || (0, 0, 0, Vec::new()),
                |(s1, b1, o1, mut e1), (s2, b2, o2, e2)| {
                    if e1.len() < examples {
                        e1.extend(e2.into_iter().take(examples - e1.len()));
                    }
                    (s1.wrapping_add(s2), b1 + b2, o1 + o2, e1)
                },
            );
        sum = sum.wrapping_add(s);
        r.mismatches += bad;
        r.allowed_not_primary += other;
        r.examples.extend(first.into_iter().take(examples.saturating_sub(r.examples.len())));
        done += n as u128;
        progress.update_with(done, || format!("{} mismatch(es)", r.mismatches));
    }
    progress.finish();
    r.inputs = done as u64;
    r.seconds = t0.elapsed().as_secs_f64();
    let every_input_once = done == space as u128 && plan.stride % 2 == 1;
    if every_input_once && bits + form.result_bits() <= 64 {
        r.fingerprint = Some(format!("{sum:016x}"));
    }
    Ok(r)
}

impl FormSweep {
    /// The report as text, values in hex and decimal.
    pub fn text(&self) -> String {
        let mut s = format!(
            "sweep {} on {}: {} input(s) in {:.1} s ({:.1} M/s){}\n",
            self.form,
            self.target,
            self.inputs,
            self.seconds,
            self.inputs as f64 / self.seconds.max(1e-9) / 1e6,
            if self.interrupted { ", interrupted" } else { "" }
        );
        s += &format!("  mismatches: {} (results the PTX ISA does not allow on their operands)\n", self.mismatches);
        s += &format!("  allowed besides the interpreter's primary result: {}\n", self.allowed_not_primary);
        match &self.fingerprint {
            Some(f) => s += &format!("  fingerprint: {f} (every input once; compare it across targets)\n"),
            None => s += "  fingerprint: none (not every input ran once, or the result is too wide)\n",
        }
        for e in &self.examples {
            let ops: Vec<String> = e.operands.iter().zip(&e.operands_decimal).map(|(o, d)| format!("0x{o:x} ({d})")).collect();
            s += &format!("  {} {} -> 0x{:x} ({}), allowed: 0x{:x} ({})\n", self.form, ops.join(" "), e.got, e.got_decimal, e.primary, e.primary_decimal);
        }
        s
    }
}

/// `ptxfuzz sweep FORM`: the options that apply to a form, then the sweep; 130 when
/// interrupted. Mismatches are the measurement, in the report, and exit 0 as an instruction's
/// sweep and `math-check` do: a script tells "the hardware disagrees" from "the sweep failed"
/// by the status (until 2026-12-07 a form's mismatches exited 1, an instruction's 0).
pub fn run(args: &SweepArgs, form: Form) -> Result<()> {
    if args.dump.is_some() || args.truth.is_some() || args.judge != "spec" || args.post.server.is_some() {
        bail!("{form}: a sweep of a cvt/setp/set/selp form takes --target, --start, --stride, --limit, --batch, --examples, --timeout, --sm, --json and --save; --dump, --truth, --judge and --server are for instructions");
    }
    let bits = space_bits(&form)?;
    super::sweep_checks::check_start(args.start, bits, &form.to_string())?;
    let opts = super::sweep_checks::engine_options(args.timeout, args.sm)?;
    let save = args.save.as_deref().map(|p| super::sweep_checks::out_path("--save", p, &format!("{form}.sweep.json"))).transpose()?;
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => crate::oracles::default_target(),
    };
    let mut engine = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let (plan, note) = Plan::new(args.start, args.stride, args.limit, bits);
    // On stderr under --json too, as the instruction sweep does: stdout holds the report alone,
    // and the note says which inputs the report covers.
    if let Some(note) = note {
        eprintln!("{note}");
    }
    // Before the "sweeping" line: a target that cannot run the form ran nothing.
    if !engine.supports_form(&form) {
        return Err(super::sweep_checks::not_run_on(&engine.info().name, &form, form.needs(), args.target.is_none()));
    }
    let batch = args.batch.unwrap_or(1 << 20).max(1);
    let stop = crate::interrupt::stop_flag()?;
    if !args.json {
        eprintln!("sweeping {form}: {} input(s) on {}", crate::progress::count(plan.count), engine.info());
    }
    let report = sweep_form(&mut *engine, &form, plan, batch, args.examples, &stop)?;
    let json = serde_json::to_string(&report)?;
    if let Some(path) = &save {
        crate::repro::replace_synced(path, format!("{json}\n").as_bytes())?;
    }
    if args.json {
        println!("{json}");
    } else {
        print!("{}", report.text());
    }
    // Interrupted: 130, as the instruction sweep (the report above covers the inputs run).
    if report.interrupted {
        super::exit_interrupted(report.inputs, plan.count);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::diff_interp::InterpEngine;

    fn sweep(text: &str, plan: Plan) -> FormSweep {
        let f = Form::parse(text).unwrap();
        sweep_form(&mut InterpEngine::new(), &f, plan, 1 << 12, 5, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn a_whole_small_space_runs_once_with_a_fingerprint_and_no_mismatch() {
        let r = sweep("cvt.rn.f16x2.e4m3x2", Plan { start: 0, stride: 1, count: 1 << 16 });
        assert_eq!((r.inputs, r.mismatches), (65536, 0));
        // The fingerprint is the sum of the terms, whatever the order: an odd stride agrees.
        let again = sweep("cvt.rn.f16x2.e4m3x2", Plan { start: 7, stride: 0x9e37, count: 1 << 16 });
        assert_eq!(r.fingerprint, again.fingerprint);
        assert!(r.fingerprint.is_some());
        let part = sweep("cvt.rn.f16x2.e4m3x2", Plan { start: 0, stride: 1, count: 1000 });
        assert_eq!((part.inputs, part.fingerprint), (1000, None));
    }

    #[test]
    fn the_fingerprint_is_the_sum_of_each_input_term() {
        let f = Form::parse("cvt.rn.f16x2.e2m1x2").unwrap();
        let r = sweep("cvt.rn.f16x2.e2m1x2", Plan { start: 0, stride: 1, count: 256 });
        let want = (0..256u64).fold(0u64, |s, i| s.wrapping_add(term(i, f.eval(&[i]).unwrap().word, 32)));
        assert_eq!(r.fingerprint, Some(format!("{want:016x}")));
    }

    #[test]
    fn a_mismatch_shows_each_word_in_hex_and_as_the_form_reads_it() {
        let f = Form::parse("cvt.rn.f16x2.e4m3x2").unwrap();
        // 0x387e: e4m3 elements 448 (lane 0) and 1.0; 0x5f00 is f16 448, 0x3c00 f16 1.0.
        let e = FormExample::new(&f, &[0x387e], 0x3c00_5f01, 0x3c00_5f00);
        let r = FormSweep { form: f.to_string(), examples: vec![e], ..FormSweep::default() };
        let text = r.text();
        assert!(text.contains("cvt.rn.f16x2.e4m3x2 0x387e (448,1) -> 0x3c005f01 (448.2,1), allowed: 0x3c005f00 (448,1)"), "{text}");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["examples"][0]["operands"][0], 0x387e);
        assert_eq!(json["examples"][0]["operands_decimal"][0], "448,1");
    }

    #[test]
    fn forms_wider_than_32_bits_of_operands_are_refused_with_what_to_use() {
        let e = space_bits(&Form::parse("cvt.rn.f32.f64").unwrap()).unwrap_err().to_string();
        assert!(e.contains("64 bits of operands") && e.contains("capture --forms"), "{e}");
        assert_eq!(space_bits(&Form::parse("setp.lt.f16").unwrap()).unwrap(), 32);
        // Comparisons of two f32 are pairs, not one value twice.
        assert!(space_bits(&Form::parse("setp.lt.f32").unwrap()).is_err());
    }

    #[test]
    fn a_conversion_of_two_f32_gets_each_input_in_both_operands() {
        let r = sweep("cvt.rn.satfinite.e4m3x2.f32", Plan { start: 0x43f0_0000, stride: 1, count: 4096 });
        assert_eq!((r.inputs, r.mismatches), (4096, 0));
        let f = Form::parse("cvt.rn.f16x2.f32").unwrap();
        assert_eq!(space_bits(&f).unwrap(), 32);
        let mut out = Vec::new();
        operands_of(&f, &f.operands(), 0x3f80_0000, &mut out);
        assert_eq!(out, [0x3f80_0000, 0x3f80_0000]);
    }
}
