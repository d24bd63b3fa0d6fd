//! The engine interface: one trait for everything that runs programs (the reference
//! interpreter, the host FPU, a GPU through CUDA, an external command), and `open` to get one.
//!
//! An engine takes a batch of [`Job`]s (a program and its cases) and returns, per job, the raw
//! result bits ([`Output`]) or an [`EngineFault`]. Faults (JIT error, launch failure, timeout,
//! lost context, an engine refusing an instruction) are results of their own, counted and
//! shown, never mismatches: judging results is `crate::compare`'s job, not the engine's.
//!
//! # Layouts (stable: minimization, campaigns and reproducers rely on them)
//!
//! - Cases are flat: with `n_in = program.inputs().len()`, case `i`'s inputs are
//!   `cases[i*n_in .. (i+1)*n_in]`, raw register bits (packed types lane 0 low, upper bits 0).
//! - Results are flat: `per_case = outputs + (trace ? instructions : 0)` slots per case
//!   (= `ptx::kernel::Layout::of(program, mode).outputs`); case `i` owns
//!   `values[i*per_case .. (i+1)*per_case]`: first the program's outputs in order, then, in
//!   trace mode, every instruction's destination in program order. A predicate is 0 or 1.
//!
//! # Engine specs (`open`)
//!
//! `interp` | `host` | `cuda` (GPU 0) | `cuda:N` | `exec:COMMAND` (run through `sh -c`) |
//! `replay:PATH` (a hardware capture's recorded results, `diff_replay`).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use ptx::approx::prefilter::Prefilter;
use ptx::form::Form;
use ptx::isa::Instr;
use ptx::kernel::{Layout, Mode};
use ptx::program::Program;
use serde::{Deserialize, Serialize};

/// How a GPU executes a job's program (issue 12); shared with the reproducer file.
pub use api::Exec;

/// One program and its cases (see the module docs for the flat layout).
#[derive(Clone, Copy, Debug)]
pub struct Job<'a> {
    pub program: &'a Program,
    /// `n_cases * program.inputs().len()` raw input bits.
    pub cases: &'a [u64],
    /// Also return every instruction's result (after the outputs).
    pub trace: bool,
    /// How a GPU runs it ([`Exec::Compiled`] unless set).
    pub exec: Exec,
}

impl<'a> Job<'a> {
    pub fn new(program: &'a Program, cases: &'a [u64], trace: bool) -> Job<'a> {
        Job { program, cases, trace, exec: Exec::Compiled }
    }

    /// The same job in execution mode `exec`.
    pub fn with_exec(self, exec: Exec) -> Job<'a> {
        Job { exec, ..self }
    }

    /// Inputs per case.
    pub fn n_in(&self) -> usize {
        self.program.inputs().len()
    }

    /// Number of cases (a program without inputs has none: give it at least one input).
    pub fn n_cases(&self) -> usize {
        self.cases.len().checked_div(self.n_in()).unwrap_or(0)
    }

    /// Case `i`'s inputs.
    pub fn case(&self, i: usize) -> &'a [u64] {
        let n = self.n_in();
        &self.cases[i * n..(i + 1) * n]
    }

    pub fn mode(&self) -> Mode {
        if self.trace {
            Mode::Trace
        } else {
            Mode::Outputs
        }
    }

    /// Result slots per case: outputs, then (trace) one per instruction.
    pub fn per_case(&self) -> usize {
        Layout::of(self.program, self.mode()).outputs
    }

    /// The job's own shape errors (cases not a multiple of the inputs, values wider than their
    /// register), as the fault every engine returns for them.
    pub fn check(&self) -> Result<(), EngineFault> {
        let n = self.n_in();
        if n == 0 || self.cases.len() % n != 0 {
            return Err(EngineFault::Invalid {
                message: format!(
                    "{} input values is not a whole number of cases of {n} input(s)",
                    self.cases.len()
                ),
            });
        }
        // Every engine and the judge check each job, so the common case is one branch-free
        // pass in memory order (the OR of each column), and only a bad job is searched for
        // its first bad case (a column-by-column search showed in the campaign's profile).
        let excess: Vec<u64> =
            self.program.inputs().iter().map(|ty| if ty.bits() < 64 { !0u64 << ty.bits() } else { 0 }).collect();
        let clean = if excess.iter().all(|&m| m == excess[0]) {
            // Inputs of one width (most programs): one OR over the flat slice, vectorized.
            self.cases.iter().fold(0, |a, &v| a | v) & excess[0] == 0
        } else {
            // Mixed widths: the OR of each column, in registers for the usual input counts
            // (a vector in memory made every value a load-or-store chain).
            let any = match n {
                2 => or_columns::<2>(self.cases).to_vec(),
                3 => or_columns::<3>(self.cases).to_vec(),
                4 => or_columns::<4>(self.cases).to_vec(),
                _ => {
                    let mut any = vec![0u64; n];
                    for c in self.cases.chunks_exact(n) {
                        for (a, v) in any.iter_mut().zip(c) {
                            *a |= v;
                        }
                    }
                    any
                }
            };
            any.iter().zip(&excess).all(|(a, m)| a & m == 0)
        };
        if clean {
            return Ok(());
        }
        let bad = self.cases.chunks_exact(n).position(|c| c.iter().zip(&excess).any(|(v, m)| v & m != 0));
        let Some(i) = bad else { return Ok(()) };
        let case = self.case(i);
        let j = (0..n).find(|&j| case[j] & excess[j] != 0).unwrap_or(0);
        let ty = self.program.inputs()[j];
        Err(EngineFault::Invalid {
            message: format!("case {i}: input {j} (.{}) = 0x{:x} has more than {} bits", ty.name(), case[j], ty.bits()),
        })
    }
}

/// The OR of each of the `N` columns of case-major `cases`.
fn or_columns<const N: usize>(cases: &[u64]) -> [u64; N] {
    cases.chunks_exact(N).fold([0; N], |mut acc, c| {
        for (a, v) in acc.iter_mut().zip(c) {
            *a |= v;
        }
        acc
    })
}

/// Raw results of one job (see the module docs for the layout).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Output {
    pub values: Vec<u64>,
    /// Slots per case (outputs, then traced instructions).
    pub per_case: usize,
}

impl Output {
    pub fn n_cases(&self) -> usize {
        self.values.len().checked_div(self.per_case).unwrap_or(0)
    }

    /// Case `i`'s slots.
    pub fn case(&self, i: usize) -> &[u64] {
        &self.values[i * self.per_case..(i + 1) * self.per_case]
    }
}

/// Why an engine gave no result for a job. Never a finding: counted and shown apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "fault", rename_all = "kebab-case")]
pub enum EngineFault {
    /// The engine does not implement something the program uses.
    #[error("unsupported: {what}")]
    Unsupported { what: String },
    /// The engine answered the batch with an error of its own (exec protocol `"error"`).
    #[error("the engine refused the batch: {message}")]
    Refused { message: String },
    /// The JIT (or assembler) rejected the module; `log` is its error log.
    #[error("JIT failed: {log}")]
    Jit { log: String },
    /// The kernel launch or its completion failed (the context was reset afterwards).
    #[error("launch failed: {message}")]
    Launch { message: String },
    /// The batch took longer than the engine's timeout (the engine was restarted).
    #[error("timed out after {seconds} s (raise --timeout if the engine is just slow)")]
    Timeout { seconds: u64 },
    /// The device context was lost and could not be recreated.
    #[error("lost the device context: {message}")]
    LostContext { message: String },
    /// An external engine broke the protocol (bad JSON, wrong id, wrong number of values).
    #[error("protocol error: {message} (see docs/exec-protocol.md)")]
    Protocol { message: String },
    /// Reading or writing the engine's pipes, or starting it, failed.
    #[error("I/O: {message}")]
    Io { message: String },
    /// The engine's command cannot run at all: the shell said it found no such command, or
    /// could not execute it (`sh -c` exit status 127 or 126, POSIX "Command Search and
    /// Execution"), before the engine ever answered. Every later batch would end the same way,
    /// so the work stops at once ([`EngineFault::is_fatal`]).
    #[error("cannot run the engine: {message}; check the command after exec: (it runs through `sh -c`: a program on PATH, or the path of an executable file)")]
    CannotRun { message: String },
    /// No GPU (driver library missing, or no such device).
    #[error("{message}")]
    NoDevice { message: String },
    /// The job itself is malformed (a caller bug: wrong number of input values, too-wide values).
    #[error("invalid job: {message}")]
    Invalid { message: String },
    /// The capture a `replay:PATH` engine answers from cannot be read or parsed (the user's
    /// file, not a malformed job: its message names the file and the format).
    #[error("{message}")]
    Capture { message: String },
    /// The engine spec names no engine (`--target` text).
    #[error(transparent)]
    BadSpec(#[from] BadEngineSpec),
}

impl EngineFault {
    /// A short stable name for counting faults by kind (`jit`, `timeout`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            EngineFault::Unsupported { .. } => "unsupported",
            EngineFault::Refused { .. } => "refused",
            EngineFault::Jit { .. } => "jit",
            EngineFault::Launch { .. } => "launch",
            EngineFault::Timeout { .. } => "timeout",
            EngineFault::LostContext { .. } => "lost-context",
            EngineFault::Protocol { .. } => "protocol",
            EngineFault::Io { .. } => "io",
            EngineFault::CannotRun { .. } => "cannot-run",
            EngineFault::NoDevice { .. } => "no-device",
            EngineFault::Invalid { .. } => "invalid",
            EngineFault::Capture { .. } => "capture",
            EngineFault::BadSpec(_) => "bad-spec",
        }
    }

    /// Whether every later batch would end in this fault too, so that a campaign, a sweep or
    /// a check stops at the first instead of retrying the engine for every batch (an
    /// `exec:/nonexistent` campaign started `sh` about 4,000 times a second until --seconds
    /// ended; a sweep of add.rn.f16 took 7 minutes to report 65,536 such faults).
    pub fn is_fatal(&self) -> bool {
        matches!(self, EngineFault::CannotRun { .. })
    }
}

impl From<std::io::Error> for EngineFault {
    fn from(e: std::io::Error) -> EngineFault {
        EngineFault::Io { message: e.to_string() }
    }
}

/// What an engine is and runs on; recorded with every campaign and finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// The spec that opened it (`interp`, `host`, `cuda:0`, `exec:COMMAND`).
    pub name: String,
    /// The hardware or program: GPU name, CPU model, the command.
    pub device: String,
    /// The GPU's compute capability as sm_XX (`90` for 9.0); `None` off a GPU.
    pub sm: Option<u32>,
    /// GPU driver version (`cuDriverGetVersion`, e.g. "12.8"), or `None`.
    pub driver: Option<String>,
    /// CUDA version the engine was built against (cudarc's pinned feature), or `None`.
    pub runtime: Option<String>,
    /// Threads the engine computes on (CPU engines), or `None`.
    pub threads: Option<usize>,
    /// Anything else worth recording (free text, one item per entry).
    pub notes: Vec<String>,
}

impl EngineInfo {
    pub fn new(name: impl Into<String>, device: impl Into<String>) -> EngineInfo {
        EngineInfo {
            name: name.into(),
            device: device.into(),
            sm: None,
            driver: None,
            runtime: None,
            threads: None,
            notes: Vec::new(),
        }
    }
}

impl fmt::Display for EngineInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.device)?;
        if let Some(sm) = self.sm {
            write!(f, ", sm_{sm}")?;
        }
        if let Some(d) = &self.driver {
            write!(f, ", driver {d}")?;
        }
        if let Some(r) = &self.runtime {
            write!(f, ", CUDA {r}")?;
        }
        if let Some(t) = self.threads {
            write!(f, ", {t} threads")?;
        }
        for n in &self.notes {
            write!(f, "; {n}")?;
        }
        Ok(())
    }
}

/// An engine's jobs as plain functions ([`Engine::per_job`]): callable from any thread, one
/// job at a time, with the results [`Engine::supports`] and [`Engine::run`] give.
#[derive(Clone, Copy, Debug)]
pub struct PerJob {
    pub supports: fn(&Program) -> bool,
    pub run: fn(&Job) -> Result<Output, EngineFault>,
}

/// Something that runs programs on cases.
pub trait Engine: Send {
    fn info(&self) -> &EngineInfo;

    /// Whether the engine can run every instruction of `p` (an unsupported job gets
    /// [`EngineFault::Unsupported`] from `run`; callers filter first to waste no launches).
    fn supports(&self, p: &Program) -> bool;

    /// Run every job; one result per job, in order. A fault in one job does not spoil the
    /// others where the engine can tell them apart (a GPU launch failure may fault the batch).
    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>>;

    /// Cases per job (or per batch of jobs) at which the engine works efficiently; callers
    /// batch at least this many where they can. CPU engines: a few thousand; cuda: 64K+.
    fn preferred_cases(&self) -> usize {
        1 << 16
    }

    /// Whether the outputs of a job without trace are the reference interpreter's primary
    /// results (true of `interp` only): the judge then takes them as its reference
    /// (`compare::check_with_reference`) instead of running the interpreter a second time.
    fn outputs_are_reference(&self) -> bool {
        false
    }

    /// The execution modes whose results can differ on this engine ([`Exec`]): both on a GPU,
    /// where `isa` runs the instruction VM and `compiled` one kernel per program; one elsewhere
    /// (the CPU engines execute instruction by instruction whatever the job asks, which is
    /// what `isa` names: a campaign labels their jobs, figures and findings `isa`).
    fn exec_modes(&self) -> &'static [Exec] {
        &[Exec::Isa]
    }

    /// How to run one job on the calling thread, where the engine runs each job on its own
    /// whatever thread calls (the CPU engines `interp` and `host`): a campaign then runs and
    /// judges each program in the task that generated it (`campaign::fused`). `None` (the
    /// default): jobs go through [`Engine::run`] a batch at a time.
    fn per_job(&self) -> Option<PerJob> {
        None
    }

    /// A hint: `jobs` will be run soon (the campaign's next batch, while this one runs). The
    /// cuda engine starts assembling their `compiled` modules ahead (`diff_cuda::ahead`);
    /// other engines have nothing to prepare. Never required: `run` works without it.
    fn prepare(&mut self, _jobs: &[Job]) {}

    /// How many batches ahead of the one running a campaign hands to [`Engine::prepare`]
    /// (each held in memory until it runs): 1 by default; more where preparing a batch takes
    /// longer than running one (the cuda engine's ptxas).
    fn prepare_depth(&self) -> usize {
        1
    }

    /// Where the engine's own time went over all its calls so far, by stage
    /// ([`super::StageTimes`]): the cuda engine's module loads, packing, copies and kernel
    /// waits. `None` (the default) where the engine does not split its time.
    fn stage_times(&self) -> Option<&super::StageTimes> {
        None
    }

    /// Whether [`Engine::run_forms`] runs `form` (a `cvt`, comparison or mixed-precision form).
    fn supports_form(&self, _form: &Form) -> bool {
        false
    }

    /// Run `form` (`ptx::form`) once per case: `cases` holds `form.operands().len()` words per
    /// case, each within its operand's width; one result word per case comes back, as
    /// `ptx::form_kernel` stores it (the destination's bits; `setp`: bit 0 = p, bit 1 = q).
    /// These forms are not instructions of programs yet (issue 16), so they travel apart.
    fn run_forms(&mut self, form: &Form, _cases: &[u64]) -> Result<Vec<u64>, EngineFault> {
        Err(EngineFault::Unsupported { what: format!("{}: runs no cvt/setp/set/selp/mixed-precision form yet ({form})", self.info().name) })
    }

    /// Whether [`Engine::sweep_chunk`] runs sweeps on the device itself (the cuda engine).
    fn has_sweep_kernel(&self) -> bool {
        false
    }

    /// One launch of the GPU sweep module of `form` (`ptx::vm::sweep`): inputs
    /// `start + k * stride` (mod the space), `k < count`, made, run and fingerprinted on the
    /// device; back come the fingerprint's sum and the pairs to judge (all of them, or with a
    /// pre-filter the ones it keeps). Only where [`Engine::has_sweep_kernel`].
    fn sweep_chunk(
        &mut self,
        form: &Instr,
        _prefilter: Option<&Prefilter>,
        _start: u64,
        _stride: u64,
        _count: u64,
    ) -> Result<SweepChunk, EngineFault> {
        Err(EngineFault::Unsupported { what: format!("{}: no GPU sweep kernel for {form}", self.info().name) })
    }
}

/// What one launch of the GPU sweep module returns ([`Engine::sweep_chunk`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepChunk {
    /// Sum (mod 2^64) of the fingerprint terms of every input of the launch.
    pub fingerprint: u64,
    /// `(input << 32) | output` of each pair for the CPU to judge, in no particular order:
    /// every input's (dense), or those the pre-filter kept.
    pub pairs: Vec<u64>,
    /// With a pre-filter: the pairs it passed and the audit picked, in no particular order.
    pub audited: Vec<u64>,
}

/// Which engine to open (the `--target` / `--engine` argument).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EngineSpec {
    Interp,
    Host,
    Cuda { gpu: u32 },
    Exec { command: String },
    /// A hardware capture file (`INSTR OPS -> RESULT` lines, plain or gzip).
    Replay { path: std::path::PathBuf },
}

/// A `--target` that names no engine: a user's typo, not a malformed job (`EngineFault::Invalid`
/// is a caller bug), so its message is the spec, why, and the spellings that work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("engine '{spec}': {why}; use interp, host, cuda, cuda:N, exec:COMMAND or replay:PATH (`ptxfuzz engines` lists what this machine has)")]
pub struct BadEngineSpec {
    spec: String,
    why: String,
}

impl FromStr for EngineSpec {
    type Err = BadEngineSpec;

    fn from_str(s: &str) -> Result<EngineSpec, BadEngineSpec> {
        let bad = |why: &str| BadEngineSpec { spec: s.to_string(), why: why.to_string() };
        match s {
            "interp" => Ok(EngineSpec::Interp),
            "host" => Ok(EngineSpec::Host),
            "cuda" => Ok(EngineSpec::Cuda { gpu: 0 }),
            _ => {
                if let Some(n) = s.strip_prefix("cuda:") {
                    n.parse().map(|gpu| EngineSpec::Cuda { gpu }).map_err(|_| bad("N must be a GPU number"))
                } else if let Some(c) = s.strip_prefix("exec:") {
                    if c.trim().is_empty() {
                        Err(bad("the command is empty"))
                    } else {
                        Ok(EngineSpec::Exec { command: c.to_string() })
                    }
                } else if let Some(p) = s.strip_prefix("replay:") {
                    if p.trim().is_empty() {
                        Err(bad("the capture path is empty"))
                    } else {
                        Ok(EngineSpec::Replay { path: p.into() })
                    }
                } else {
                    Err(bad("unknown engine"))
                }
            }
        }
    }
}

impl EngineSpec {
    /// The spec as one shell word, for a command line the user pastes: `exec:my-emulator
    /// --serve` in single quotes (a `'` in it as `'\''`), a spec of plain characters as is.
    pub fn shell_word(&self) -> String {
        let s = self.to_string();
        let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
        if !s.is_empty() && s.chars().all(plain) {
            s
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Interp => f.write_str("interp"),
            EngineSpec::Host => f.write_str("host"),
            EngineSpec::Cuda { gpu } => write!(f, "cuda:{gpu}"),
            EngineSpec::Exec { command } => write!(f, "exec:{command}"),
            EngineSpec::Replay { path } => write!(f, "replay:{}", path.display()),
        }
    }
}

/// Options shared by the engines that need them.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// Longest a batch may take (exec: per reply; cuda: per launch) before it is a
    /// [`EngineFault::Timeout`] and the engine is restarted.
    pub timeout: Duration,
    /// cuda: compile for this sm instead of the device's own (must not exceed it).
    pub sm: Option<u32>,
    /// cuda: that sm's suffix (`--sm 100a`): the modules are `.target sm_100a` (or `f`), which
    /// add the forms only such targets have and load on that sm (its family for `f`) alone.
    pub variant: ptx::isa::Variant,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions { timeout: Duration::from_secs(60), sm: None, variant: ptx::isa::Variant::Plain }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_check_names_the_first_case_and_input_wider_than_its_register() {
        let p = Program::parse("// inputs: %f0:f32, %h1:f16, %d2:f64\nadd.rn.f32 %f3, %f0, %f0;\n// outputs: %f3\n").unwrap();
        let ok = [0xffff_ffff, 0xffff, u64::MAX, 1, 2, 3];
        assert_eq!(Job::new(&p, &ok, false).check(), Ok(()));
        let bad = [1, 2, 3, 0x3f80_0000, 0x1_0000, 5];
        let e = Job::new(&p, &bad, false).check().unwrap_err();
        assert_eq!(e.kind(), "invalid");
        assert!(e.to_string().contains("case 1: input 1 (.f16) = 0x10000 has more than 16 bits"), "{e}");
        let e = Job::new(&p, &bad[..5], false).check().unwrap_err();
        assert!(e.to_string().contains("not a whole number of cases"), "{e}");
        // Inputs of one width take the flat path.
        let h = Program::parse("// inputs: %h0:f16, %h1:f16\nadd.rn.f16 %h2, %h0, %h1;\n// outputs: %h2\n").unwrap();
        assert_eq!(Job::new(&h, &[0xffff, 1, 2, 0x7c00], false).check(), Ok(()));
        let e = Job::new(&h, &[0xffff, 1, 2, 0x7c00, 0x3c00, 0x1_3c00], false).check().unwrap_err();
        assert!(e.to_string().contains("case 2: input 1 (.f16) = 0x13c00 has more than 16 bits"), "{e}");
        // Mixed widths with two inputs (a register-held path) and with five (the general one).
        let two = Program::parse("// inputs: %f0:f32, %h1:f16
add.rn.f32 %f2, %f0, %f0;
// outputs: %f2
").unwrap();
        assert_eq!(Job::new(&two, &[0xffff_ffff, 0xffff, 0, 0], false).check(), Ok(()));
        let e = Job::new(&two, &[0x1_0000, 0xffff, 0, 0x1_0000], false).check().unwrap_err();
        assert!(e.to_string().contains("case 1: input 1 (.f16) = 0x10000"), "{e}");
        let five = Program::parse("// inputs: %f0:f32, %f1:f32, %f2:f32, %f3:f32, %h4:f16
add.rn.f32 %f5, %f0, %f1;
// outputs: %f5
").unwrap();
        assert_eq!(Job::new(&five, &[0xffff_ffff, 1, 2, 3, 0xffff], false).check(), Ok(()));
        let e = Job::new(&five, &[0xffff_ffff, 1, 2, 3, 0xffff, 0, 0, 0, 0, 0x2_0000], false).check().unwrap_err();
        assert!(e.to_string().contains("case 1: input 4 (.f16) = 0x20000"), "{e}");
    }

    #[test]
    fn a_spec_as_a_shell_word_is_quoted_only_where_the_shell_would_split_it() {
        let word = |s: &str| s.parse::<EngineSpec>().unwrap().shell_word();
        assert_eq!(word("interp"), "interp");
        assert_eq!(word("exec:/opt/emu/bin/emu"), "exec:/opt/emu/bin/emu");
        assert_eq!(word("exec:my-emu --fast"), "'exec:my-emu --fast'");
        assert_eq!(word("exec:emu 'a b'"), r"'exec:emu '\''a b'\'''");
        // What sh reads back from the quoted word is the spec itself.
        let back = std::process::Command::new("sh").arg("-c").arg(format!("printf %s {}", word("exec:emu 'a b' $HOME"))).output().unwrap();
        assert_eq!(String::from_utf8(back.stdout).unwrap(), "exec:emu 'a b' $HOME");
    }

    #[test]
    fn specs_parse_and_print_back() {
        for s in ["interp", "host", "cuda:0", "cuda:3", "exec:my-emu --fast"] {
            assert_eq!(s.parse::<EngineSpec>().unwrap().to_string(), s);
        }
        assert_eq!("cuda".parse::<EngineSpec>().unwrap(), EngineSpec::Cuda { gpu: 0 });
        for s in ["gpu", "cuda:x", "exec:", "exec:  "] {
            let e = s.parse::<EngineSpec>().unwrap_err();
            assert!(e.to_string().contains("exec:COMMAND"), "{e}");
            assert!(!e.to_string().contains("invalid job"), "a typo is not a malformed job: {e}");
        }
    }

    #[test]
    fn job_layout_follows_the_kernel_layout() {
        let p = Program::parse(
            "// inputs: %f0:f32, %f1:f32\nadd.rn.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\n// outputs: %f3\n",
        )
        .unwrap();
        let cases = [1, 2, 3, 4, 5, 6];
        let j = Job::new(&p, &cases, false);
        assert_eq!((j.n_in(), j.n_cases(), j.per_case()), (2, 3, 1));
        assert_eq!(j.case(1), &[3, 4]);
        assert_eq!(Job::new(&p, &cases, true).per_case(), 3);
        assert!(j.check().is_ok());
        let odd = [1, 2, 3];
        assert_eq!(Job::new(&p, &odd, false).check().unwrap_err().kind(), "invalid");
        let wide = [1, 1 << 32];
        assert!(Job::new(&p, &wide, false).check().unwrap_err().to_string().contains("case 0: input 1"));
    }

    #[test]
    fn faults_serialize_with_their_kind() {
        let f = EngineFault::Jit { log: "ptxas: error".into() };
        let j = serde_json::to_string(&f).unwrap();
        assert_eq!(j, r#"{"fault":"jit","log":"ptxas: error"}"#);
        assert_eq!(serde_json::from_str::<EngineFault>(&j).unwrap(), f);
    }
}
