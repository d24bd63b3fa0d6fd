//! `ptxfuzz repro FILE`: re-run a finding on a target and print the verdict.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::{cuda, write_synced, Reproducer, ReproducerExt};
use crate::oracles::{open, EngineOptions, Exec, Job};

/// Exit status when the finding reproduces.
pub const REPRODUCED: u8 = 0;
/// Exit status when the target now returns allowed results.
pub const NOT_REPRODUCED: u8 = 3;

/// Re-run a finding (a folder written by `ptxfuzz campaign`, or its repro.json) and say whether
/// the target still disagrees with the reference.
#[derive(Args, Debug)]
#[command(after_help = "Exit status: 0 the finding reproduces (some output is not allowed), 3 the \
target now returns allowed results, 1 an error (bad file, engine fault).\n\n\
The allowed results are recomputed by this ptxfuzz's interpreter, so a reproducer also tells \
whether a change of the reference model explains a finding away. The folder's repro.cu is \
the same check as a standalone CUDA program (nvcc -arch=sm_XX -o repro repro.cu && ./repro).")]
pub struct ReproArgs {
    /// A finding folder, or its repro.json.
    pub file: PathBuf,
    /// Engine to run it on: interp, host, cuda, cuda:N, exec:COMMAND or replay:PATH. Default: the target
    /// recorded in the reproducer.
    #[arg(long)]
    pub target: Option<String>,
    /// Seconds an engine may take to answer before it is a timeout fault.
    #[arg(long, default_value_t = 60, value_parser = crate::cli_values::at_least_one::<u64>)]
    pub timeout: u64,
    /// cuda: compile for sm_XX instead of the device's own: 90, sm_90, or with its suffix
    /// (100a, 100f). Default: the device's own sm, or for a finding whose program needs a
    /// suffix (repro.json's `variant`) the sm and suffix it records.
    #[arg(long)]
    pub sm: Option<ptx::isa::Arch>,
    /// Write repro.ptx and repro.cu again from repro.json (after editing it by hand).
    #[arg(long)]
    pub regenerate: bool,
    /// Judge against this profile: spec (the PTX ISA's allowed set) or sm_90 (the H100's
    /// bits). Default: the profile the finding was judged with (its repro.json `judge`).
    #[arg(long)]
    pub judge: Option<String>,
    /// Execution mode on a GPU: compiled (the whole program as one kernel) or isa (each
    /// instruction alone on the instruction VM). Default: the mode the finding was found in
    /// (its repro.json `exec`). CPU engines run both alike.
    #[arg(long)]
    pub exec: Option<Exec>,
}

/// An sm the kernel emitter does not know is refused with the emitter's message, as
/// `campaign` and `gen` refuse it, before the reproducer is read or an engine opened.
fn check_sm(args: &ReproArgs) -> Result<()> {
    if let Some(arch) = args.sm {
        ptx::kernel::min_ptx_for_arch(arch).map_err(|e| anyhow::anyhow!("--sm {}: {e}", arch.to_string().trim_start_matches("sm_")))?;
    }
    Ok(())
}

/// The engine options of `--timeout` and `--sm` (its suffix too). Without `--sm`, a finding
/// recorded for a suffixed target (`sm_100a`: its program has a form only that target has,
/// PTX ISA 9.7.9.21) is compiled for that target again: the device's plain sm would refuse
/// the program. A plain finding runs on the device's own sm, as before.
fn engine_options(args: &ReproArgs, recorded: ptx::isa::Arch) -> EngineOptions {
    let arch = args.sm.or((recorded.variant != ptx::isa::Variant::Plain).then_some(recorded));
    EngineOptions {
        timeout: Duration::from_secs(args.timeout),
        sm: arch.map(|a| a.sm),
        variant: arch.map_or(ptx::isa::Variant::Plain, |a| a.variant),
    }
}

/// The engine to run on: `--target`, else the one repro.json records. A recorded `exec:`
/// target is a shell command from a file that may have come from someone else, so it is
/// never run unless the user names it: the error prints it and says how.
fn target_spec(args: &ReproArgs, r: &Reproducer, file: &std::path::Path) -> Result<String> {
    if let Some(t) = &args.target {
        return Ok(t.clone());
    }
    if let Some(cmd) = r.target.strip_prefix("exec:") {
        bail!(
            "{} records the target `exec:{cmd}`, a shell command; repro does not run a command from a file on its own. \
             To run it, pass it yourself: --target 'exec:{cmd}'; or re-run the finding elsewhere with --target interp (or host, cuda)",
            file.display()
        );
    }
    Ok(r.target.clone())
}

pub fn run(args: ReproArgs) -> Result<ExitCode> {
    check_sm(&args)?;
    let r = Reproducer::load(&args.file)?;
    let opts = engine_options(&args, ptx::isa::Arch { sm: r.sm, variant: r.variant });
    // api's messages name "repro.json" alone: which one matters when several are open.
    let case = r.case().with_context(|| format!("{}: the finding's program or inputs do not load", args.file.display()))?;
    let p = &case.program;
    if args.regenerate {
        let dir = if args.file.is_dir() { args.file.clone() } else { args.file.parent().map(PathBuf::from).unwrap_or_default() };
        write_synced(&dir.join("repro.ptx"), r.ptx_file()?.as_bytes())?;
        write_synced(&dir.join("repro.cu"), cuda::source(&r)?.as_bytes())?;
        println!("wrote {} and {}", dir.join("repro.ptx").display(), dir.join("repro.cu").display());
    }
    let spec = target_spec(&args, &r, &args.file)?;
    let mut engine = open(&spec, &opts).with_context(|| match &args.target {
        Some(_) => format!("cannot open target '{spec}' (given by --target)"),
        None => format!(
            "cannot open target '{spec}', which {} records; pass --target (interp, host, cuda, exec:COMMAND) to run it elsewhere",
            args.file.display()
        ),
    })?;
    let judge = args.judge.as_deref().unwrap_or(&r.judge);
    let profile = ptx::profile::Profile::named(judge)?;
    let expected =
        crate::compare::expected_outputs(&profile, p, &case.inputs).context("the reference cannot run this program")?;

    println!("finding: {} [{}]", r.signature, r.class);
    for line in r.program_text.lines().filter(|l| !l.starts_with("//")) {
        println!("  {line}");
    }
    for (j, &v) in case.inputs.iter().enumerate() {
        let ty = p.inputs()[j];
        println!("input {}: {} ({})", p.name(ptx::program::Reg(j as u16)), ty.format_hex(v), ty.format_decimal(v));
    }
    println!("target: {}", engine.info());
    println!("judged against: {} profile", profile.name());
    let exec = args.exec.unwrap_or(r.exec);
    println!("execution mode: {exec}");
    if !engine.supports(p) {
        bail!("target '{spec}' does not support this program; pick another with --target");
    }
    let out = engine
        .run(&[Job::new(p, &case.inputs, false).with_exec(exec)])
        .pop()
        .context("the engine returned no result")?
        .map_err(|f| anyhow::anyhow!("engine fault ({}): {f}", f.kind()))?;
    let recorded = r.actual_bits().unwrap_or_default();
    let mut bad = 0;
    for (k, e) in expected.iter().enumerate() {
        let got = out.case(0)[k];
        let ok = e.accepts(got);
        bad += !ok as usize;
        // Hex and decimal, as the inputs above: the output register's type reads the bits.
        let ty = p.reg_type(p.outputs()[k]);
        let shown = |v: u64| format!("{} ({})", ty.format_hex(v), ty.format_decimal(v));
        let was = recorded.get(k).map_or(String::new(), |&v| format!(", recorded {}", shown(v)));
        let allowed_decimal = e.decimal().map_or(String::new(), |d| format!(" ({d})"));
        println!(
            "output {k} ({}): got {}{was}; allowed {e}{allowed_decimal}: {}",
            p.name(p.outputs()[k]),
            shown(got),
            if ok { "ok" } else { "NOT ALLOWED" }
        );
    }
    if bad > 0 {
        println!("verdict: REPRODUCED ({bad} output(s) not allowed)");
        Ok(ExitCode::from(REPRODUCED))
    } else {
        println!("verdict: not reproduced (every output is allowed)");
        Ok(ExitCode::from(NOT_REPRODUCED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        repro: ReproArgs,
    }

    fn options(sm: &str) -> Result<EngineOptions> {
        let args = Cli::try_parse_from(["repro", "f", "--sm", sm]).map_err(|e| anyhow::anyhow!("{e}"))?.repro;
        check_sm(&args)?;
        Ok(engine_options(&args, ptx::isa::Arch::from(90)))
    }

    #[test]
    fn without_sm_a_suffixed_finding_runs_on_its_recorded_target_a_plain_one_on_the_devices() {
        let args = Cli::try_parse_from(["repro", "f"]).unwrap().repro;
        let a100 = ptx::isa::Arch { sm: 100, variant: ptx::isa::Variant::A };
        let o = engine_options(&args, a100);
        assert_eq!((o.sm, o.variant), (Some(100), ptx::isa::Variant::A));
        let o = engine_options(&args, ptx::isa::Arch::from(90));
        assert_eq!((o.sm, o.variant), (None, ptx::isa::Variant::Plain));
        // --sm wins over what the finding records.
        let args = Cli::try_parse_from(["repro", "f", "--sm", "103a"]).unwrap().repro;
        let o = engine_options(&args, a100);
        assert_eq!((o.sm, o.variant), (Some(103), ptx::isa::Variant::A));
    }

    #[test]
    fn sm_takes_every_spelling_gen_takes_and_passes_its_suffix_to_the_engine() {
        for (sm, want) in [("90", (Some(90), ptx::isa::Variant::Plain)), ("sm_90", (Some(90), ptx::isa::Variant::Plain)), ("100a", (Some(100), ptx::isa::Variant::A)), ("sm_100f", (Some(100), ptx::isa::Variant::F))] {
            let o = options(sm).unwrap();
            assert_eq!((o.sm, o.variant), want, "{sm}");
        }
    }

    #[test]
    fn a_recorded_exec_target_is_never_run_without_target() {
        let mut r = crate::repro::tests::sample();
        r.target = "exec:touch /tmp/x; false".into();
        let args = Cli::try_parse_from(["repro", "f"]).unwrap().repro;
        let e = target_spec(&args, &r, std::path::Path::new("d/repro.json")).unwrap_err().to_string();
        assert!(e.contains("`exec:touch /tmp/x; false`") && e.contains("--target 'exec:touch /tmp/x; false'") && e.contains("--target interp"), "{e}");
        // Named by the user, it runs; a recorded non-exec target runs as before.
        let args = Cli::try_parse_from(["repro", "f", "--target", "exec:touch /tmp/x; false"]).unwrap().repro;
        assert_eq!(target_spec(&args, &r, std::path::Path::new("d")).unwrap(), "exec:touch /tmp/x; false");
        r.target = "interp".into();
        let args = Cli::try_parse_from(["repro", "f"]).unwrap().repro;
        assert_eq!(target_spec(&args, &r, std::path::Path::new("d")).unwrap(), "interp");
    }

    #[test]
    fn an_unknown_sm_or_suffix_is_refused_before_anything_runs() {
        let e = options("95").unwrap_err().to_string();
        assert!(e.contains("sm_95 is not a target") && e.contains("use one of"), "{e}");
        let e = options("89a").unwrap_err().to_string();
        assert!(e.contains("is not a target") && e.contains("write sm_89"), "{e}");
        let e = options("ninety").unwrap_err().to_string();
        assert!(e.contains("write 90, sm_90, 100a or 100f"), "{e}");
    }
}
