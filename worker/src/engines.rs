//! `ptxfuzz engines`: the engines available here, with their device info (and, with
//! `--check`, the smoke check of known results); `ptxfuzz exec-reference`: an exec-protocol
//! engine answering with the reference interpreter (a faithful sample engine for tests, and
//! the model to copy for your own: docs/exec-protocol.md).

use std::io::{BufWriter, Write};

use anyhow::{bail, Result};
use clap::Args;
use worker::oracles::diff_interp;
use worker::oracles::exec_protocol::serve;
use worker::smoke::{smoke, Failure};
use worker::oracles::{open, Engine, EngineOptions, EngineSpec, Job};

/// List the engines (interp, host, cuda, exec:COMMAND) and the devices behind them.
#[derive(Args, Debug)]
pub struct EnginesArgs {
    /// Run the smoke check (programs with known results) on these engines, e.g.
    /// `--check host --check 'exec:my-emulator --serve'`. A GPU is checked in both execution
    /// modes: whole-program kernels and the instruction VM (failures there end in `[isa]`).
    #[arg(long, value_name = "ENGINE")]
    check: Vec<String>,
    /// Print JSON (one object per engine) instead of text.
    #[arg(long)]
    json: bool,
    /// Seconds an engine may take for one batch before it is a timeout fault (1 to 1e9), as
    /// campaign's --timeout: a slow emulator under --check needs more than the default.
    #[arg(long, default_value_t = 60, value_parser = worker::cli_values::count_in::<u64>(1, worker::campaign::MAX_TIMEOUT_S, worker::campaign::MAX_TIMEOUT_WHY))]
    timeout: u64,
}

pub fn run(args: EnginesArgs) -> Result<()> {
    let opts = EngineOptions { timeout: std::time::Duration::from_secs(args.timeout), ..EngineOptions::default() };
    let mut out = crate::output::stdout();
    if args.check.is_empty() {
        for spec in ["interp", "host", "cuda"] {
            match open(spec, &opts) {
                Ok(e) if args.json => writeln!(out, "{}", serde_json::to_string(e.info())?)?,
                Ok(e) => writeln!(out, "{}", e.info())?,
                Err(f) if args.json => {
                    writeln!(out, "{}", serde_json::json!({"name": spec, "unavailable": f.to_string()}))?
                }
                Err(f) => writeln!(out, "{spec}: unavailable: {f}")?,
            }
        }
        if !args.json {
            writeln!(out, "exec:COMMAND: an external engine (docs/exec-protocol.md); check one with --check 'exec:COMMAND'")?;
            writeln!(out, "default target here: {}", worker::oracles::default_target())?;
        }
        return Ok(());
    }
    let mut failed = 0;
    for spec in &args.check {
        let spec: EngineSpec = spec.parse()?;
        let mut e = match worker::oracles::open_spec(&spec, &opts) {
            Ok(e) => e,
            Err(f) => bail!("{spec}: {f}"),
        };
        // A check of a slow or stuck engine waits up to --timeout per batch: say so up front.
        eprintln!("checking {spec} (each batch may take up to {} s: --timeout)", args.timeout);
        if matches!(spec, EngineSpec::Replay { .. }) {
            failed += check_replay(e.as_mut(), &mut out)?;
            continue;
        }
        let r = smoke(e.as_mut());
        writeln!(out, "{}: {} passed, {} skipped, {} failed", e.info(), r.passed.len(), r.skipped.len(), r.failed.len())?;
        for (name, why) in &r.skipped {
            writeln!(out, "  skipped: {name} ({why})")?;
        }
        write_failures(&mut out, &r.failed)?;
        failed += r.failed.len();
    }
    if failed > 0 {
        bail!("{failed} smoke check(s) failed");
    }
    Ok(())
}

/// The smoke check of a capture (`replay:FILE`): a known case the capture does not record is
/// not covered, not failed. The replay engine answers recorded cases only (an `unsupported`
/// fault otherwise, which `smoke` counts as skipped), so a capture of `cvt.rn.bf16.f32` that
/// lacks the smoke's operand says nothing about that case either way; only a recorded result
/// that differs from the known one is a failure. Returns the failures.
fn check_replay(engine: &mut dyn Engine, out: &mut impl Write) -> Result<usize> {
    let r = smoke(engine);
    writeln!(
        out,
        "{}: {} passed, {} not covered (the capture does not record the case), {} failed",
        engine.info(),
        r.passed.len(),
        r.skipped.len(),
        r.failed.len()
    )?;
    for (name, why) in &r.skipped {
        // The fault's text says which case was not recorded.
        writeln!(out, "  not covered: {name}: {why}")?;
    }
    write_failures(out, &r.failed)?;
    if !r.skipped.is_empty() && r.passed.is_empty() && r.failed.is_empty() {
        writeln!(out, "  the capture records none of the known cases: `ptxfuzz capture-check FILE --target interp` checks every case it does record")?;
    }
    Ok(r.failed.len())
}

/// The failures, one line each. A fault of the whole batch (a timeout, an engine that exited)
/// fails every check with the same text: three or more such are one line, with their count and
/// the first and last names, so that the cause is read once rather than 28 times.
fn write_failures(out: &mut impl Write, failed: &[Failure]) -> Result<()> {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for f in failed {
        match groups.iter_mut().find(|(why, _)| *why == f.why) {
            Some((_, names)) => names.push(&f.name),
            None => groups.push((&f.why, vec![&f.name])),
        }
    }
    for (why, names) in groups {
        match names.as_slice() {
            [first, .., last] if names.len() >= 3 => {
                writeln!(out, "  FAILED: {} checks ({first} ... {last}), each: {why}", names.len())?
            }
            _ => {
                for name in names {
                    writeln!(out, "  FAILED: {name}: {why}")?;
                }
            }
        }
    }
    Ok(())
}

/// Answer the exec protocol on stdin/stdout with the reference interpreter (primary results).
#[derive(Args, Debug)]
pub struct ExecReferenceArgs {
    /// Answer with this profile's results: spec (the interpreter's primary result, the first
    /// reading the PTX ISA allows) or sm_90 (the H100's bits where the profile has them): an
    /// engine that follows the H100, for `campaign --judge sm_90`.
    #[arg(long, default_value = "spec")]
    pub profile: String,
}

pub fn exec_reference(args: ExecReferenceArgs) -> Result<()> {
    let profile = ptx::profile::Profile::named(&args.profile)?;
    let stdin = std::io::stdin().lock();
    let stdout = BufWriter::new(crate::output::stdout());
    serve(stdin, stdout, |req| match &profile {
        ptx::profile::Profile::Spec => {
            diff_interp::run_job(&Job::new(&req.program, &req.cases, false)).map(|o| o.values).map_err(|f| f.to_string())
        }
        hw => worker::compare::profile_outputs(hw, &req.program, &req.cases).map_err(|e| e.to_string()),
    })?;
    Ok(())
}
