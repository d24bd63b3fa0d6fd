//! `ptxfuzz capture-check FILE`: run every recorded case of a hardware capture (the format of
//! `../shared/hw/h100-sm90/cases.txt.gz`) on a target and compare its results with the recorded
//! ones bit for bit. On a GPU of the capture's sm in `--exec isa` this is issue 12's check of
//! the instruction VM: the capture is the same instruction on the same hardware, so any
//! difference is a VM bug (or a different chip); on `exec-reference --profile sm_90` it checks
//! the profile against the recordings.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::form::Form;
use ptx::program::ValType;
use worker::oracles::diff_replay::{Capture, RecordedOther};
use worker::oracles::{default_target, open_spec, Engine, EngineOptions, EngineSpec, Exec, Job};

/// Run a capture's recorded operands on a target and compare the results bit for bit.
#[derive(Args, Debug)]
#[command(after_help = "Prints, per form that differs, how many of its cases differ and the \
first one; then the totals. --differ PATH writes every differing case as \
`INSTR OPERANDS -> RECORDED, target TARGET` (hex and decimal). Exits 1 if any case differs.\n\n\
The cvt, setp, set, selp and mixed-precision lines (`capture --forms`) run as those forms; on \
the interpreter (--target interp) a recorded result is judged by the form's allowed set, so a \
result the spec allows besides the interpreter's primary value (a NaN payload, a documented \
reading) is counted apart, not as a difference.\n\n\
Examples:\n  ptxfuzz capture-check ../shared/hw/h100-sm90/cases.txt.gz --target cuda --exec isa   # the VM on an sm_90 GPU\n  \
ptxfuzz capture-check ../shared/hw/h100-sm90/cases.txt.gz --target 'exec:ptxfuzz exec-reference --profile sm_90' --families rcp")]
pub struct CaptureCheckArgs {
    /// The capture: `INSTR 0xOPERAND... -> 0xRESULT` per line, plain or gzip.
    pub file: PathBuf,
    /// Engine to check: cuda, cuda:N, host, interp or exec:COMMAND. Default: the first GPU if
    /// there is one, else the host FPU.
    #[arg(long)]
    pub target: Option<String>,
    /// Execution mode on an engine with two (a GPU): isa (the instruction VM, the default: each
    /// instruction alone, as the capture recorded it) or compiled (one JIT-compiled kernel).
    #[arg(long, default_value = "isa")]
    pub exec: Exec,
    /// sm_XX to compile for: 90, sm_90, or 100a / 100f for the architecture-specific targets,
    /// as campaign takes it (default: the capture's, from its info file, else the GPU's own).
    #[arg(long)]
    pub sm: Option<ptx::isa::Arch>,
    /// Opcodes to check (comma-separated PTX names), or prefixes of cvt/setp/set/selp/mixed
    /// forms at a `.` (`cvt`, `cvt.rn.bf16`). Default: every recorded form.
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Write every differing case to this file.
    #[arg(long)]
    pub differ: Option<PathBuf>,
    /// Seconds an engine may take for one batch of forms before it is a timeout fault.
    #[arg(long, default_value_t = 120, value_parser = worker::cli_values::at_least_one::<u64>)]
    pub timeout: u64,
}

/// Forms run per engine call: big enough to keep a GPU busy, small enough for progress lines.
const FORMS_PER_BATCH: usize = 32;

pub fn run(args: CaptureCheckArgs) -> Result<()> {
    let t0 = Instant::now();
    // The sm and its suffix, checked against the known targets before the capture is read.
    if let Some(arch) = args.sm {
        ptx::kernel::min_ptx_for_arch(arch)?;
    }
    let capture = Capture::load(&args.file)?;
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => default_target(),
    };
    let opts = EngineOptions {
        timeout: Duration::from_secs(args.timeout),
        sm: args.sm.map(|a| a.sm).or(capture.sm),
        variant: args.sm.map_or(ptx::isa::Variant::Plain, |a| a.variant),
    };
    let mut target = open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?;
    let exec = if target.exec_modes().contains(&args.exec) { args.exec } else { target.exec_modes()[0] };
    let every_form = Form::all();
    for f in &args.families {
        if let (Err(e), false) = (worker::cli_values::family(f), every_form.iter().any(|o| o.matches(f))) {
            bail!("{e}; or form prefixes such as cvt.rn, setp.ltu");
        }
    }
    let forms: Vec<_> = capture
        .forms
        .iter()
        .filter(|f| args.families.is_empty() || args.families.iter().any(|o| o == f.instr.op.name()))
        .collect();
    let others: Vec<&RecordedOther> =
        capture.others.iter().filter(|f| args.families.is_empty() || args.families.iter().any(|p| f.form.matches(p))).collect();
    if forms.is_empty() && others.is_empty() {
        bail!("{} has no form of {}: name opcodes it records (e.g. add,rcp) or leave --families out", args.file.display(), args.families.join(","));
    }
    eprintln!(
        "capture-check: {} ({} case(s) of {} form(s){}) on {} [{exec}]",
        args.file.display(),
        forms.iter().map(|f| f.cases.len() / f.instr.inputs.max(1) as usize).sum::<usize>()
            + others.iter().map(|f| f.cases.len() / f.form.operands().len()).sum::<usize>(),
        forms.len() + others.len(),
        capture.gpu.as_deref().map(|g| format!(", recorded on {g}")).unwrap_or_default(),
        target.info()
    );
    let mut differ: Option<Box<dyn Write>> = match &args.differ {
        Some(p) => Some(Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        ))),
        None => None,
    };
    let (mut equal, mut differing, mut skipped, mut faults) = (0u64, 0u64, Vec::new(), Vec::new());
    let mut differing_forms = Vec::new();
    for (b, batch) in forms.chunks(FORMS_PER_BATCH).enumerate() {
        let runnable: Vec<_> = batch.iter().filter(|f| target.supports(&f.program)).collect();
        skipped.extend(batch.iter().filter(|f| !target.supports(&f.program)).map(|f| f.instr.to_string()));
        let jobs: Vec<Job> = runnable.iter().map(|f| Job::new(&f.program, &f.cases, false).with_exec(exec)).collect();
        let results = target.run(&jobs);
        for (f, r) in runnable.iter().zip(results) {
            let out = match r {
                Ok(o) => o,
                Err(e) => {
                    faults.push(format!("{}: {e}", f.instr));
                    continue;
                }
            };
            let n = f.instr.inputs.max(1) as usize;
            let (mut bad, mut first) = (0u64, None);
            for (ops, &got) in f.cases.chunks_exact(n).zip(&out.values) {
                let want = capture.result(&f.instr, ops).expect("every case of a form has its recorded result");
                if got == want {
                    equal += 1;
                    continue;
                }
                bad += 1;
                let line = differ_line(&f.instr.to_string(), |w| ValType::of_result(&f.instr).format_decimal(w), ops, want, got);
                if let Some(w) = differ.as_mut() {
                    writeln!(w, "{line}")?;
                }
                first.get_or_insert(line);
            }
            if bad > 0 {
                differing += bad;
                differing_forms.push((f.instr.to_string(), bad, f.cases.len() / n, first.unwrap_or_default()));
            }
        }
        eprintln!("capture-check: {}/{} forms, {} differ so far", ((b + 1) * FORMS_PER_BATCH).min(forms.len()), forms.len(), differing);
    }
    let mut allowed = 0;
    for f in &others {
        if !target.supports_form(&f.form) {
            skipped.push(f.form.to_string());
            continue;
        }
        let t = match check_other(&mut *target, &capture, f, differ.as_mut()) {
            Ok(t) => t,
            Err(e) => {
                faults.push(format!("{}: {e}", f.form));
                continue;
            }
        };
        equal += t.equal;
        allowed += t.allowed;
        if t.differ > 0 {
            differing += t.differ;
            differing_forms.push((f.form.to_string(), t.differ, t.of, t.first.unwrap_or_default()));
        }
    }
    if !others.is_empty() {
        eprintln!("capture-check: {} cvt/comparison/mixed form(s) done, {differing} differ so far", others.len());
    }
    if let Some(mut w) = differ {
        w.flush()?;
    }
    if allowed > 0 {
        println!("  {allowed} case(s) recorded a result the spec allows besides the interpreter's primary (counted as equal)");
    }
    for (form, bad, of, first) in &differing_forms {
        println!("  {form}: {bad} of {of} cases differ; first: {first}");
    }
    for s in &skipped {
        println!("  {s}: not supported by the target, skipped");
    }
    for f in &faults {
        println!("  fault: {f}");
    }
    println!(
        "capture-check: {equal} equal, {differing} differ ({} form(s)), {} form(s) skipped, {} fault(s), in {:.1} s [{exec}]",
        differing_forms.len(),
        skipped.len(),
        faults.len(),
        t0.elapsed().as_secs_f64()
    );
    if let Some(split) = target.stage_times().filter(|s| !s.is_empty()) {
        println!("  engine split: {}", split.line());
    }
    if differing > 0 || !faults.is_empty() {
        bail!("{differing} case(s) differ from the capture and {} form(s) faulted (see above{})", faults.len(), if args.differ.is_some() { " and --differ" } else { "" });
    }
    Ok(())
}

/// What one recorded form outside `Instr` gave on the target.
#[derive(Default)]
struct Tally {
    equal: u64,
    /// Not the target's word, but in the form's allowed set (judged on a reference target).
    allowed: u64,
    differ: u64,
    of: usize,
    first: Option<String>,
}

/// Run one recorded form's cases on the target and compare with the recorded words: bit for
/// bit, or on the interpreter (`outputs_are_reference`) against the form's allowed set.
fn check_other(target: &mut dyn Engine, capture: &Capture, f: &RecordedOther, mut differ: Option<&mut Box<dyn Write>>) -> Result<Tally> {
    let got = target.run_forms(&f.form, &f.cases)?;
    let k = f.form.operands().len();
    let judge_by_set = target.outputs_are_reference();
    let mut t = Tally { of: f.cases.len() / k, ..Tally::default() };
    for (ops, &got) in f.cases.chunks_exact(k).zip(&got) {
        let want = capture.form_result(&f.form, ops).expect("every case of a form has its recorded result");
        if got == want {
            t.equal += 1;
        } else if judge_by_set && f.form.eval(ops).is_ok_and(|a| a.allows(want)) {
            t.equal += 1;
            t.allowed += 1;
        } else {
            t.differ += 1;
            let line = differ_line(&f.form.to_string(), |w| ptx::form_value::result_decimal(&f.form, w), ops, want, got);
            if let Some(w) = differ.as_mut() {
                writeln!(w, "{line}")?;
            }
            t.first.get_or_insert(line);
        }
    }
    Ok(t)
}

/// One differing case: the capture's line with the target's result beside the recorded one,
/// each in hex and as the destination reads it (`decimal`: 2 for an f16's 0x4000, -1 for an
/// `s32`'s 0xffffffff, `1|0` for a `setp` pair).
fn differ_line(form: &str, decimal: impl Fn(u64) -> String, ops: &[u64], want: u64, got: u64) -> String {
    let ops: Vec<String> = ops.iter().map(|v| format!("0x{v:x}")).collect();
    format!("{form} {} -> 0x{want:x} ({}), target 0x{got:x} ({})", ops.join(" "), decimal(want), decimal(got))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_differing_case_reads_each_result_as_its_destination_type() {
        let add = ptx::isa::Instr::parse_default("add.f32").unwrap();
        assert_eq!(
            differ_line("add.f32", |w| ValType::of_result(&add).format_decimal(w), &[0x3f80_0000, 0x3f80_0000], 0x4040_0000, 0x4000_0000),
            "add.f32 0x3f800000 0x3f800000 -> 0x40400000 (3), target 0x40000000 (2)"
        );
    }
}
