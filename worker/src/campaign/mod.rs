//! `ptxfuzz campaign`: generate programs and cases, run them on a target, compare every
//! result with the reference, and keep each new disagreement as a minimized reproducer.
//!
//! Pipeline: a source thread ([`source`]) fills a bounded queue with batches (a corpus first
//! when given, then random programs); the main thread runs each batch on the target, judges it
//! (`crate::compare`), and hands each new signature to [`findings`], which resolves,
//! minimizes and writes it at once; on a CPU engine the source runs and judges each program
//! itself, where it generated it ([`fused`]). Memory stays flat: the queue is bounded,
//! findings go to disk as found, and only per-signature counters are kept.
//!
//! `--out` gets one folder per finding, `stats.jsonl` (a JSON line per `--stats-every`
//! seconds) and `summary.json` (at the end). SIGINT/SIGTERM end the campaign after the batch
//! in flight, with the summary written; a second SIGINT exits at once (nothing found is lost:
//! findings are on disk already).

pub mod batch;
pub mod findings;
pub mod fused;
mod leftovers;
pub mod queue;
pub mod source;
pub mod split;
pub mod stats;
mod summary;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use ptx::gen::{GenConfig, Generator};
use ptx::isa::{Opcode, Type};
use ptx::profile::Profile;
use serde::Serialize;

use crate::compare::CompareOptions;
use crate::minimize::Limits;
use crate::server::Session;
use crate::oracles::diff_replay::{Capture, ReplayEngine};
use crate::oracles::{open_spec, Engine, EngineInfo, EngineOptions, EngineSpec, Exec};
use findings::{Findings, Record};
use queue::Queue;
use source::SourceConfig;
use split::Split;
use stats::{Meter, Rates, StatsLog, Totals};

/// Run a differential-testing campaign against a target.
#[derive(Args, Debug, Clone)]
#[command(after_help = "Findings: --out/SIGNATURE/ holds repro.json, repro.ptx and repro.cu (re-run \
with `ptxfuzz repro --out/SIGNATURE`); --out/stats.jsonl gets a stats line every minute, \
--out/summary.json the summary at the end. A folder already in --out is a known finding: \
it is counted, not rewritten.\n\n\
Ctrl-C (SIGINT) or SIGTERM finish the batch in flight and write the summary; a second Ctrl-C \
exits at once.\n\n\
Exit status: 0 when the campaign ran (findings are in --out, not in the status); 1 on an error, \
or when nothing was judged because every program ended in an engine fault or the target \
supports none of the programs drawn.\n\n\
Examples:\n  ptxfuzz campaign --target host --seconds 30\n  \
ptxfuzz campaign --target cuda --sm 90 --families add,fma,rcp --seconds 600\n  \
ptxfuzz campaign --target 'exec:my-emulator --serve' --cases 1000000 --trace\n  \
ptxfuzz campaign --target cuda --server https://ptxfuzz.lan --token $TOKEN\n  \
ptxfuzz campaign --target replay:../shared/hw/h100-sm90/cases.txt.gz --judge sm_90\n\n\
--target replay:PATH answers with a hardware capture's recorded results (the format of \
cases.txt.gz): the campaign replays every recorded case of the chosen forms, then ends; \
minimization can only use recorded cases, so findings keep their recorded operands.\n\n\
With --server, findings, heartbeats and regression results wait in --out/.spool until the \
server has them (`ptxfuzz deliver` sends what a campaign left there).\n\n\
On --target cuda the summary's `engine split` line says where the engine's time went (module \
loads, packing, uploads, kernel waits, downloads, unpacking). Environment: \
PTXFUZZ_COMPILE_AHEAD=0 JIT-compiles compiled-mode modules instead of assembling them ahead \
with ptxas processes; PTXFUZZ_CUDA_PINNED=0 copies through ordinary host memory instead of \
pinned buffers (both to measure what they buy).")]
pub struct CampaignArgs {
    /// Engine under test: cuda, cuda:N, host, interp or exec:COMMAND. Default: the first
    /// GPU if a driver and a device are there, else the host FPU.
    #[arg(long)]
    pub target: Option<String>,
    /// Stop after this many seconds (default: run until interrupted).
    #[arg(long, conflicts_with = "cases", value_parser = crate::cli_values::seconds)]
    pub seconds: Option<f64>,
    /// Stop after this many cases (1 or more: 0 ran nothing and said nothing).
    #[arg(long, value_parser = crate::cli_values::at_least_one::<u64>)]
    pub cases: Option<u64>,
    /// Seed of the program and case generator (decimal or 0x hex): the same seed gives the
    /// same programs.
    #[arg(long, default_value_t = 1, value_parser = crate::cli_values::seed)]
    pub seed: u64,
    /// sm_XX to generate for (only forms that exist there) and, on cuda, to compile for.
    /// Default: the GPU's own, else 90. 100a or 100f adds the architecture-specific f6/ue8m0
    /// and `.rs` conversions; on cuda the modules are then `.target sm_100a` (or f), which load
    /// on an sm_100 GPU (family) alone.
    #[arg(long)]
    pub sm: Option<ptx::isa::Arch>,
    /// Opcodes to generate (comma-separated PTX names: add,fma,rcp,...). Default: all, or on
    /// the host target the ones it implements (add,sub,mul,fma,div,sqrt,rcp).
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Instruction types to generate (f16,f16x2,bf16,bf16x2,f32,f32x2,f64). Default: all
    /// (host: f32,f64).
    #[arg(long, value_delimiter = ',')]
    pub types: Vec<String>,
    /// Trace mode: check every instruction against the expectation from the target's own
    /// inputs to it (default: end to end, outputs only, where compiler effects show).
    #[arg(long)]
    pub trace: bool,
    /// Replay this folder first: files of the `explore` fuzz target's corpus (raw bytes that
    /// ptx::gen decodes), program JSON files (`ptxfuzz gen --out` writes them) or repro.json
    /// files, in it and its subfolders (so a campaign's --out replays its finding folders);
    /// `.ptx` and `.cu` files, the text views written beside those, hidden files and a
    /// campaign's summary.json and stats.jsonl are skipped. Without --seconds/--cases the
    /// campaign ends after the corpus.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Where findings, stats.jsonl and summary.json go.
    #[arg(long, default_value = "findings")]
    pub out: PathBuf,
    /// A GenConfig JSON file (see ptx::gen::config) instead of the defaults; --sm, --families
    /// and --types still override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Generate only IEEE-rounded forms (no .approx/.full, sin, cos, lg2, ex2, tanh, rsqrt).
    #[arg(long)]
    pub exact_only: bool,
    /// Generate unrounded mul + add/sub pairs that ptxas may contract into fma.
    #[arg(long)]
    pub contraction: bool,
    /// Also generate forms ptxas accepts but the PTX ISA does not document (today
    /// fma.{rz,rm,rp}{.relu}.{bf16,bf16x2}: on the H100 they compute in f16, hundreds of
    /// findings of one cause). Off by default; their findings say so.
    #[arg(long)]
    pub undocumented: bool,
    /// Share of programs run whole-program compiled on an engine with both execution modes (a
    /// GPU): the rest run on the instruction VM (`isa`). 0.1 by default: the VM runs a program
    /// without a JIT, so most cases go there, while every tenth program still goes through
    /// ptxas, where compiler effects (contraction, folding, the bf16 fma lowering) show. Its
    /// cost is CPU: about 5 ms of ptxas per compiled program against about 0.1 us per isa case,
    /// so at 0.1 ptxas takes most of the host's cores (a 16-core host then judges about 26 M
    /// cases/s); 0 for the VM's full speed (docs/benchmarks.md, "A GPU campaign's CPU work").
    /// CPU engines have one mode (`isa`) and ignore it.
    #[arg(long, default_value_t = 0.1, value_parser = crate::cli_values::share)]
    pub compiled_share: f64,
    /// Random cases per program (1 to 2^21).
    #[arg(long, default_value_t = 1024, value_parser = crate::cli_values::count_in::<usize>(1, MAX_BATCH_CASES, MAX_BATCH_WHY))]
    pub cases_per_program: usize,
    /// Cases per batch handed to the target (1 to 2^21; default: the engine's preferred batch
    /// size).
    #[arg(long, value_parser = crate::cli_values::count_in::<usize>(1, MAX_BATCH_CASES, MAX_BATCH_WHY))]
    pub batch_cases: Option<usize>,
    /// Judge results against this profile: spec (the set the PTX ISA allows, true of every
    /// GPU) or sm_90 (the H100's bits for every IEEE-rounded and non-rounding form and the
    /// approximate forms with a bit-exact model; the others keep the spec's set).
    /// `--target exec:... --judge sm_90` judges an
    /// emulator bit for bit against the H100 with no GPU present.
    #[arg(long, default_value = "spec")]
    pub judge: String,
    /// Seconds an engine may take for one batch before it is a timeout fault (1 to 1e9).
    #[arg(long, default_value_t = 60, value_parser = crate::cli_values::count_in::<u64>(1, MAX_TIMEOUT_S, MAX_TIMEOUT_WHY))]
    pub timeout: u64,
    /// Seconds between lines of --out/stats.jsonl (at least 0.1).
    #[arg(long, default_value_t = 60.0, value_parser = crate::cli_values::stats_interval)]
    pub stats_every: f64,
    /// Candidates a minimization may probe (0 to 10^7; 0: findings are kept unminimized).
    #[arg(long, default_value_t = 20_000, value_parser = crate::cli_values::count_in::<usize>(0, MAX_PROBES, MAX_PROBES_WHY))]
    pub max_probes: usize,
    /// No progress line (the summary is still printed).
    #[arg(long)]
    pub quiet: bool,
    /// Threads that generate programs, run the interp/host engines and judge results (default:
    /// every core; on a GPU target of 8 cores or more, every core but the engine's packing
    /// threads). What a campaign finds does not depend on it: each program draws from its own
    /// seeded stream and findings are handled in program order.
    #[arg(long, value_parser = crate::cli_values::count_in::<u16>(1, 65535, "threads, one per core without --jobs"))]
    pub jobs: Option<u16>,
    #[command(flatten)]
    pub server: crate::server::ServerArgs,
}

/// The most cases of a batch, and of one program (a batch holds whole programs): 2^21, twice
/// the largest engine's preferred batch (cuda, 2^20). A case is its inputs and outputs, about
/// 8 words (64 bytes) for the default programs and at most about 32 for 8-instruction ones, and
/// up to four batches are alive (two queued, one on the engine, one being generated): at most
/// about 0.5 GiB typical and 2 GiB worst. `--batch-cases 99999999999` had held 9.4 GB after
/// 12 s and never reached its first batch, so `--seconds` was never checked.
pub const MAX_BATCH_CASES: u64 = 1 << 21;
const MAX_BATCH_WHY: &str = "a batch is generated whole before it runs (so --seconds cannot stop it) and up to four are in memory at once; 2^21 cases keep them under about 2 GiB";

/// The longest `--timeout` in seconds: `cli_values::MAX_SECONDS` (about 31 years), as every
/// other seconds option; more is a typo, and a deadline far past it overflows `Instant`.
pub const MAX_TIMEOUT_S: u64 = crate::cli_values::MAX_SECONDS as u64;
pub const MAX_TIMEOUT_WHY: &str = "seconds up to 1e9 (about 31 years), as every seconds option of ptxfuzz";

/// The most probes of one minimization: 10^7, 500 times the default. A probe runs the program
/// once, so 10^7 is hours per finding on a GPU round trip; more only stalls the campaign on
/// one finding.
const MAX_PROBES: u64 = 10_000_000;
const MAX_PROBES_WHY: &str = "each probe runs a candidate program on the target, so 10^7 probes are already hours per finding";

/// What `summary.json` holds.
#[derive(Serialize)]
pub struct Summary<'a> {
    pub target: &'a EngineInfo,
    pub seed: u64,
    pub mode: &'static str,
    /// The profile results were judged against (`--judge`).
    pub judge: &'a str,
    pub elapsed_s: f64,
    /// Over the whole campaign: `cases_per_s`, `programs_per_s`, and per execution mode
    /// `rates_by_exec` (the counts per mode are `totals.by_exec`).
    #[serde(flatten)]
    pub rates: Rates,
    /// The execution modes programs were split between and the share compiled (`split`).
    pub exec_modes: &'static [Exec],
    pub compiled_share: f64,
    /// Threads of the generator, engine and judge pool (`--jobs`).
    pub jobs: usize,
    pub interrupted: bool,
    pub config: &'a GenConfig,
    pub totals: &'a Totals,
    /// Where the engine's own time went, by stage, in microseconds, over all its calls (the
    /// findings stage's too): `modules`, `pack`, `upload`, `wait`, `download`, `unpack`
    /// (`oracles::stages`; the cuda engine only).
    #[serde(rename = "engine_stages_us", skip_serializing_if = "Option::is_none")]
    pub engine_stages: Option<&'a crate::oracles::StageTimes>,
    pub findings: Vec<&'a Record>,
    /// Finding folders whose repro.json did not read at the start and were not found (so not
    /// rewritten) in this run: folder name -> why. Absent when there are none.
    #[serde(rename = "damaged_folders", skip_serializing_if = "BTreeMap::is_empty")]
    pub damaged: &'a BTreeMap<String, String>,
}

/// The judging pool's threads without `--jobs`: every core, but on a GPU target with 8 cores
/// or more the cores the cuda engine's packing threads (`vm_batch::packer_threads`) leave. On
/// the H200's 16 cores (2026-12-04, docs/hardware/nvidia-h200-2026-12-04) 16 judging threads
/// beside 4 packing ones stretched a 20 s isa campaign's packing to 9.3 s (35.2 M cases/s);
/// with 12 it took 3.3 s (37.7 M). Below 8 cores no such measurement exists: all of them.
fn default_jobs(spec: &EngineSpec, cores: usize) -> usize {
    match spec {
        EngineSpec::Cuda { .. } if cores >= 8 => cores - crate::oracles::diff_cuda::vm_batch::packer_threads(cores),
        _ => cores,
    }
}

pub fn run(mut args: CampaignArgs) -> Result<()> {
    let cap = std::env::var(summary::MAX_SECONDS_ENV).ok();
    let (seconds, note) = summary::capped_seconds(args.seconds, cap.as_deref())?;
    args.seconds = seconds;
    if let Some(note) = note {
        eprintln!("{note}");
    }
    // A misspelt filter is the whole answer: said before the target is chosen (and before the
    // notice that no GPU was found).
    let filters = Filters::of(&args)?;
    // So is a --config that cannot be read: before a GPU is opened (seconds) for nothing.
    let config = read_config(&args)?;
    let spec: EngineSpec = match &args.target {
        Some(t) => t.parse()?,
        None => {
            let spec = crate::oracles::default_target();
            if spec == EngineSpec::Host {
                eprintln!(
                    "campaign: no GPU found (no CUDA driver or device), so this campaign tests this machine's FPU \
                     (--target host); --target interp|exec:COMMAND|cuda chooses"
                );
            }
            spec
        }
    };
    let opts = EngineOptions { timeout: Duration::from_secs(args.timeout), sm: args.sm.map(|a| a.sm), variant: args.sm.map_or(ptx::isa::Variant::Plain, |a| a.variant) };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.map_or_else(|| default_jobs(&spec, cores), usize::from);
    // The one pool every CPU stage uses (the interp engine and the judge): built before the
    // first use of rayon, so --jobs holds for all of them.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).thread_name(|i| format!("judge-{i}")).build_global();
    // In a process that used rayon already (a test running two campaigns) the pool stands;
    // only an explicit --jobs it cannot honour is an error.
    if pool.is_err() && args.jobs.is_some() && rayon::current_num_threads() != jobs {
        bail!("--jobs {jobs}: this process already runs {} judging threads", rayon::current_num_threads());
    }
    let profile = Arc::new(Profile::named(&args.judge)?);
    let client = args.server.client()?;
    // A replay target is also the campaign's source: its recorded cases are what it can answer.
    let (mut target, capture) = match &spec {
        EngineSpec::Replay { path } => {
            let c = Arc::new(Capture::load(path)?);
            (Box::new(ReplayEngine::new(c.clone(), args.sm.map(|a| a.sm))) as Box<dyn Engine>, Some(c))
        }
        _ => (open_spec(&spec, &opts).with_context(|| format!("cannot open target '{spec}'"))?, None),
    };
    let cfg = gen_config(&args, config, &filters, &spec, target.info())?;
    let gen = Generator::new(cfg.clone())?;
    let stop = crate::interrupt::stop_flag()?;
    let copts = CompareOptions { sm: target.info().sm, profile: profile.clone(), ..CompareOptions::default() };
    // Minimization stops probing a little after the campaign's end (`Limits::deadline`): a
    // tenth of --seconds, at least 5 s.
    // The rates' clock starts no later than the deadline's, so a campaign stopped by
    // --seconds reports at least that many seconds (it started after opening the findings and
    // the source, and a loaded CI machine reported 29.99 s of a 30 s campaign).
    let meter = Meter::new();
    let started = Instant::now();
    let deadline = args.seconds.map(|s| started + Duration::from_secs_f64(s));
    let grace = args.seconds.map_or(Duration::ZERO, |s| Duration::from_secs_f64((s / 10.0).max(5.0)));
    let limits = Limits { max_probes: args.max_probes, deadline: deadline.map(|d| d + grace) };
    let mut findings = Findings::open(&args.out, limits, copts.clone(), args.trace, cfg.sm)?;
    let corpus = match &args.corpus {
        Some(dir) => source::corpus_files(dir)?,
        None => Vec::new(),
    };
    let unlimited = args.seconds.is_none() && args.cases.is_none();
    let recorded: Vec<source::Item> = capture.iter().flat_map(|c| recorded_items(c, &cfg)).collect();
    if capture.is_some() && recorded.is_empty() {
        bail!("the capture holds no case of the chosen --families/--types (or only approximate forms and --exact-only); its cvt/setp/set/selp/mixed-precision lines are not replayed by campaigns yet: check them with `ptxfuzz capture-check FILE --target interp`");
    }
    let src_cfg = SourceConfig {
        recorded,
        seed: args.seed,
        cases_per_program: args.cases_per_program,
        cases_per_batch: args.batch_cases.unwrap_or_else(|| target.preferred_cases()).max(1),
        // Random programs have no recorded answers on a replay target.
        random: capture.is_none() && !(args.corpus.is_some() && unlimited),
        corpus,
        max_cases: args.cases,
        // A CPU engine that runs per job runs and judges each program where it is generated.
        finisher: fused::Finisher::new(&*target, args.trace, &copts),
    };
    let split = Split::new(target.exec_modes(), args.compiled_share)?;
    let mut log = StatsLog::open(&args.out.join("stats.jsonl"), args.stats_every)?;
    eprintln!(
        "campaign: target {}; seed {}; {} mode; execution {}; judged against {}; {}; {} form(s); {} judging thread(s); findings in {}",
        target.info(),
        args.seed,
        if args.trace { "trace" } else { "end-to-end" },
        split,
        profile.name(),
        cfg.arch(),
        match &capture {
            Some(_) => src_cfg.recorded.len(),
            None => gen.forms().count(),
        },
        rayon::current_num_threads(),
        args.out.display()
    );
    let mut server = match client {
        Some(c) => Some(Session::start(c, &args.server, &args.out, &spec.to_string(), target.info(), cfg.sm, args.seed)?),
        None => None,
    };
    if let Some(s) = &server {
        findings.report_to(s.stager());
    }
    let (rx, source) = source::spawn(gen, src_cfg, stop.clone());
    let mut queue = Queue::new(rx, split);
    let mut totals = Totals { findings_known: findings.known_count(), ..Totals::default() };
    let mut window = Meter::new();
    let mut last_progress = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let progress_every = if tty { 0.5 } else { 10.0 };
    let mut result = Ok(());
    // The batch that ran last, to be judged while the next one runs (`batch::overlapped`).
    let mut pending: Option<batch::Ran> = None;
    loop {
        if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let planned = match queue.take(&mut *target, args.trace, Duration::from_millis(200), &mut totals.time_us) {
            Ok(p) => p,
            Err(RecvTimeoutError::Timeout) => {
                // The source is slow: judge what ran rather than wait with it.
                if let Err(e) = batch::finish(&mut *target, pending.take(), &copts, &mut findings, &mut totals) {
                    result = Err(e);
                    break;
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        // This batch runs on the target while the previous one is judged.
        match batch::overlapped(&mut *target, planned, pending.take(), &copts, args.trace, &mut findings, &mut totals) {
            Ok(ran) => pending = Some(ran),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
        totals.signatures = findings.signatures();
        totals.findings_new = findings.new_count();
        if let Some(s) = server.as_mut() {
            s.between_batches(&mut *target, crate::server::counters(&totals))?;
        }
        log.tick(meter.elapsed(), &totals, false)?;
        if !args.quiet && last_progress.elapsed().as_secs_f64() >= progress_every {
            last_progress = Instant::now();
            let mut line = stats::progress_line(meter.elapsed(), &totals, &window.window(&totals));
            if let Some(s) = &server {
                line.push_str(&format!("  {}", s.progress()));
            }
            if tty {
                eprint!("\r{line}\x1b[K");
            } else {
                eprintln!("{line}");
            }
        }
    }
    if result.is_ok() {
        result = batch::finish(&mut *target, pending.take(), &copts, &mut findings, &mut totals);
    }
    let interrupted = stop.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    drop(queue);
    let report = source.join().unwrap_or_default();
    if tty && !args.quiet {
        eprintln!();
    }
    totals.signatures = findings.signatures();
    totals.findings_new = findings.new_count();
    log.tick(meter.elapsed(), &totals, true)?;
    let elapsed = meter.elapsed();
    let summary = Summary {
        target: target.info(),
        seed: args.seed,
        mode: if args.trace { "trace" } else { "end-to-end" },
        judge: profile.name(),
        elapsed_s: elapsed,
        rates: Rates::between(&Totals::default(), &totals, elapsed),
        exec_modes: target.exec_modes(),
        compiled_share: args.compiled_share,
        jobs: rayon::current_num_threads(),
        interrupted,
        config: &cfg,
        totals: &totals,
        engine_stages: target.stage_times(),
        findings: findings.records().collect(),
        damaged: findings.damaged(),
    };
    let json = serde_json::to_string_pretty(&summary).expect("summary serialises") + "\n";
    crate::repro::replace_synced(&args.out.join("summary.json"), json.as_bytes())?;
    summary::print(&summary, &args.out, &report);
    if let Some(s) = server {
        for line in s.finish(crate::server::counters(&totals), &args.out)? {
            println!("  {line}");
        }
    }
    result?;
    // A target that ran nothing (an exec engine that does not start, a device that fails every
    // launch) has tested nothing: a script running the campaign must not read that as a pass.
    if totals.cases == 0 && totals.fault_count() > 0 {
        bail!(
            "the target judged no case: all {} program(s) it was given ended in an engine fault (the summary above \
             has the last one); check the engine with `ptxfuzz engines --check {}`",
            totals.fault_count(),
            spec.shell_word()
        );
    }
    // Nor has one that supports none of the programs drawn (`--target host --types f16`).
    if totals.cases == 0 && totals.unsupported > 0 {
        bail!(
            "the target judged no case: it supports none of the {} program(s) drawn (the summary above says what \
             to change)",
            totals.unsupported
        );
    }
    Ok(())
}

/// The recorded forms of a capture that `cfg` generates (its opcodes and types; approximate
/// forms only when it has them), each with all its recorded cases.
fn recorded_items(c: &Capture, cfg: &GenConfig) -> Vec<source::Item> {
    c.forms
        .iter()
        .filter(|f| cfg.opcodes.contains(&f.instr.op) && cfg.types.contains(&f.instr.ty))
        .filter(|f| cfg.approximate || !f.instr.is_approximate())
        .filter(|f| cfg.undocumented || f.instr.is_documented())
        .map(|f| source::Item { program: f.program.clone(), cases: f.cases.clone(), origin: None, done: None })
        .collect()
}

/// The generator a campaign draws its random programs from without `--config`, before its
/// flags: approximate forms on (the bounds and the sm_90 models are half of what it checks),
/// forms the PTX ISA does not document off (`--undocumented` turns them on). `ptxfuzz gen
/// --campaign-from` starts from it too, so that it writes the campaign's programs.
pub fn default_generator() -> GenConfig {
    GenConfig { approximate: true, undocumented: false, ..GenConfig::default() }
}

/// `--families` and `--types`, read (an empty list: not given).
struct Filters {
    opcodes: Vec<Opcode>,
    types: Vec<Type>,
}

impl Filters {
    fn of(args: &CampaignArgs) -> Result<Filters> {
        Ok(Filters {
            opcodes: args.families.iter().map(|f| crate::cli_values::family(f).map_err(anyhow::Error::msg)).collect::<Result<_>>()?,
            types: args.types.iter().map(|t| crate::cli_values::register_type(t).map_err(anyhow::Error::msg)).collect::<Result<_>>()?,
        })
    }
}

/// The generator config of --config, if given.
fn read_config(args: &CampaignArgs) -> Result<Option<GenConfig>> {
    let Some(path) = &args.config else { return Ok(None) };
    let text = crate::input_file::read_text(path, crate::input_file::JSON_CAP, "a generator config")?;
    Ok(Some(serde_json::from_str(&text).with_context(|| format!("{} is not a GenConfig", path.display()))?))
}

/// The generator config: `config` (--config's, [`read_config`]) or [`default_generator`],
/// restricted by --sm, `filters`, and for the host target to what its FPU implements unless
/// the user chose.
fn gen_config(args: &CampaignArgs, config: Option<GenConfig>, filters: &Filters, spec: &EngineSpec, info: &EngineInfo) -> Result<GenConfig> {
    let mut cfg = config.unwrap_or_else(default_generator);
    // --sm sets the sm and its suffix; the GPU's own sm (info.sm) keeps a --config's suffix.
    if let Some(arch) = args.sm {
        (cfg.sm, cfg.variant) = (arch.sm, arch.variant);
    } else if let Some(sm) = info.sm {
        cfg.sm = sm;
    }
    if args.sm.is_some() || info.sm.is_some() {
        let arch = cfg.arch();
        let need = ptx::kernel::min_ptx_for_arch(arch).map_err(|e| anyhow::anyhow!("{e}"))?;
        cfg.ptx = cfg.ptx.max(need);
    }
    if args.sm.is_none() && cfg.variant != ptx::isa::Variant::Plain && matches!(spec, EngineSpec::Cuda { .. }) {
        bail!("the config's target is {}: give --sm {} too, so that the cuda target compiles its modules for it", cfg.arch(), cfg.arch().to_string().trim_start_matches("sm_"));
    }
    let host_defaults = *spec == EngineSpec::Host && args.config.is_none();
    if !filters.opcodes.is_empty() {
        cfg.opcodes = filters.opcodes.clone();
    } else if host_defaults {
        cfg.opcodes = vec![Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::Fma, Opcode::Div, Opcode::Sqrt, Opcode::Rcp];
    }
    if !filters.types.is_empty() {
        cfg.types = filters.types.clone();
    } else if host_defaults {
        cfg.types = vec![Type::F32, Type::F64];
    }
    if host_defaults {
        // The host FPU has no .ftz, .sat or approximate forms (oracles::diff_host).
        cfg.ftz_share = 0.0;
        cfg.sat_share = 0.0;
        cfg.approximate = false;
    }
    if args.exact_only {
        cfg.approximate = false;
    }
    if args.contraction {
        cfg.contraction = true;
    }
    // Without --config, only what the PTX ISA documents (a --config file says for itself).
    if args.config.is_none() || args.undocumented {
        cfg.undocumented = args.undocumented;
    }
    if cfg.opcodes.is_empty() || cfg.types.is_empty() {
        bail!("nothing to generate: --families and --types must not be empty");
    }
    Ok(cfg)
}

