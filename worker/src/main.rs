//! ptxfuzz: command-line entry point; each subcommand lives in its own module.

mod bench;
mod bench_compare;
mod bench_cvt;
mod capture_check;
mod capture_cmd;
mod engines;
mod eval;
mod explain_cmd;
mod gen_cmd;
mod modes_cmd;
mod output;
mod genargs;
mod math;
mod vm_cmd;

// The library's modules, reachable as `crate::oracles` from the binary's modules.
pub use worker::{compare, oracles, toolkit};
use worker::{campaign, mathcheck, repro, sweep};

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Differential testing of PTX floating-point instructions against an exact reference.
///
/// ptxfuzz knows what the PTX ISA allows every floating-point instruction to return
/// (bit-exact for IEEE-rounded forms, with every reading of an ambiguous rule named).
#[derive(Parser)]
#[command(name = "ptxfuzz", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Eval(eval::EvalArgs),
    Bench(bench::BenchArgs),
    Gen(gen_cmd::GenCmd),
    Sass(gen_cmd::SassCmd),
    Math(math::MathCmd),
    Campaign(campaign::CampaignArgs),
    Repro(repro::cli::ReproArgs),
    Sweep(sweep::SweepArgs),
    MathCheck(mathcheck::MathCheckArgs),
    Engines(engines::EnginesArgs),
    VmPtx(vm_cmd::VmPtxArgs),
    Explain(explain_cmd::ExplainArgs),
    Capture(capture_cmd::CaptureArgs),
    CaptureCheck(capture_check::CaptureCheckArgs),
    ModesCheck(modes_cmd::ModesCheckArgs),
    /// Send what a campaign left in --out/.spool to a ptxfuzz server.
    Deliver(worker::server::DeliverArgs),
    /// Answer the exec protocol with the reference interpreter (sample engine, docs/exec-protocol.md).
    #[command(hide = true)]
    ExecReference(engines::ExecReferenceArgs),
}

/// `cmd` with every option and operand able to take a negative number as its value. clap
/// otherwise reads the `-1` of `--seconds -1` as an unknown flag ("unexpected argument '-1'
/// found", with a tip to write `-- -1`, which would make it an operand), so the value's parser
/// (`cli_values`), whose message says what range to give, never saw it.
fn negative_numbers_are_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| if a.get_action().takes_values() { a.allow_negative_numbers(true) } else { a })
        .mut_subcommands(negative_numbers_are_values)
}

fn main() -> ExitCode {
    output::end_quietly_when_closed();
    let matches = negative_numbers_are_values(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result: Result<()> = match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Gen(args) => gen_cmd::gen(args),
        Command::Sass(args) => gen_cmd::sass(args),
        Command::Math(args) => math::run(args),
        Command::Campaign(args) => campaign::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::MathCheck(args) => mathcheck::run(args),
        Command::Repro(args) => match repro::cli::run(args) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Engines(args) => engines::run(args),
        Command::VmPtx(args) => vm_cmd::run(args),
        Command::Explain(args) => explain_cmd::run(args),
        Command::Capture(args) => capture_cmd::run(args),
        Command::CaptureCheck(args) => capture_check::run(args),
        Command::ModesCheck(args) => modes_cmd::run(args),
        Command::Deliver(args) => worker::server::deliver(args),
        Command::ExecReference(args) => engines::exec_reference(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The message chain only: a backtrace helps nobody who typed a wrong modifier.
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
