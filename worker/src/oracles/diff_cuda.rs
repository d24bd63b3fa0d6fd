//! The `cuda` engine: programs on an NVIDIA GPU through cudarc (driver API, loaded at run time).
//!
//! - **No driver**: checked first (`driver::present`, cudarc's `is_culib_present`): without
//!   libcuda cudarc would panic on first use; here `open` says "no NVIDIA driver found".
//! - **One context per GPU** (`cuda:N`): the device's primary context, made current before
//!   each batch (the engine may move between threads).
//! - **Modules**: for `compiled` jobs, a batch's programs in one module per ptxas process of
//!   compile-ahead (`ahead::chunks`; one module without it), a traced batch in one module; an
//!   `.entry` per program (`ptx::kernel`, the documented in/out layout), for the device's sm
//!   (or `EngineOptions::sm`). Cached by the PTX text's hash, so re-running programs
//!   (minimization, reproducers) JITs nothing. A JIT error is an [`EngineFault::Jit`] with the
//!   JIT's log; in a module of several programs, the module is bisected until only the guilty
//!   programs fault. With ptxas at hand the modules of the campaign's next batch are assembled
//!   ahead, in parallel (`ahead`, `Engine::prepare`), and their cubins loaded instead of
//!   JIT-compiling the text. `isa` jobs run on the instruction VM (`vm_batch`), in
//!   sub-batches whose packing and unpacking overlap the kernels (`vm_pipeline`, `vm_device`).
//! - **Launches**: every compiled job of the batch is one launch over its cases (256 threads a
//!   block); the batch's inputs and outputs each live in one device buffer (reused, grown as
//!   needed), copied through pinned host buffers (`staging`). Each stage's time is kept
//!   (`Engine::stage_times`). Callers batch at least 64K cases ([`Engine::preferred_cases`]).
//!   Single forms run through `forms`, sweeps through their own kernel (`sweep_kernel`).
//! - **Faults**: a failed launch or wait resets the context (every module and buffer dropped,
//!   `cuDevicePrimaryCtxReset`) and the batch's jobs get [`EngineFault::Launch`]; the next
//!   batch runs on the fresh context. A batch longer than the timeout is a `Timeout` (context
//!   reset too); a context that cannot be recreated is `LostContext`.
//!
//! CI has no GPU: what is tested there is its no-driver path, and that ptxas assembles exactly
//! the modules it would load (`worker/tests/cuda_ptx.rs`). It ran on an H100 and an H200
//! (docs/hardware/), the second H200 run with every part of this engine but the fixes made
//! since (docs/hardware/README.md says which). `scripts/gpu-all` is the check on real hardware.

mod ahead;
mod driver;
mod forms;
mod cache;
mod staging;
mod sweep_kernel;
pub(crate) mod vm_batch;
mod vm_device;
mod vm_pipeline;

use std::sync::Arc;
use std::time::{Duration, Instant};

use ptx::approx::prefilter::Prefilter;
use ptx::form::Form;
use ptx::isa::{Arch, Instr, Target, Variant};
use ptx::kernel::{self, Mode};
use ptx::program::Program;

use super::engine::{Engine, EngineFault, EngineInfo, EngineOptions, Exec, Job, Output, SweepChunk};
use super::stages::{Stage, StageTimes};
use ptx::vm::Encoder;

/// The CUDA version cudarc is built against (its pinned `cuda-12080` feature).
pub const CUDA_VERSION: &str = "12.8";

/// Modules kept in the cache across engine calls (`cache::ModuleCache`): a campaign batch loads
/// one per chunk (`ahead::chunks`, at most one per ptxas process), so 256 hold many batches.
const MODULE_CACHE: usize = 256;

const NO_DRIVER: &str = "no NVIDIA driver found (libcuda.so cannot be loaded): run on a machine with an \
NVIDIA GPU and its driver, or pick another engine: --target host (this CPU's FPU), interp, or exec:COMMAND";

/// Whether the driver library is there (never panics).
pub fn driver_present() -> bool {
    driver::present()
}

/// GPUs the driver sees; `NoDevice` without a driver.
pub fn device_count() -> Result<u32, EngineFault> {
    if !driver::present() {
        return Err(EngineFault::NoDevice { message: NO_DRIVER.into() });
    }
    guarded(driver::device_count).map_err(|message| EngineFault::NoDevice { message })
}

/// Run a driver call, turning a cudarc panic (a symbol missing from an old driver) into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(format!("the CUDA driver lacks a function cudarc needs (CUDA {CUDA_VERSION} or later required)")))
}

/// The module the engine loads for `programs` in `mode` for `arch` (an sm number, or e.g.
/// `sm_100a`; also what the ptxas test assembles: keep the two one function).
pub fn module_for(programs: &[&Program], arch: impl Into<Arch>, mode: Mode) -> Result<String, kernel::KernelError> {
    kernel::module(programs, arch, mode)
}

/// The modules a batch of compiled `programs` runs in: one per chunk of `ahead::chunks` (at
/// most one per ptxas process, at least `ahead::MIN_CHUNK` programs each), with the range of
/// programs each holds; `run` and `prepare` build the same texts, so a prepared module is
/// found in the pool.
pub fn batch_modules(
    programs: &[&Program],
    processes: usize,
    arch: Arch,
    mode: Mode,
) -> Vec<(std::ops::Range<usize>, Result<String, kernel::KernelError>)> {
    ahead::chunks(programs.len(), processes).into_iter().map(|r| (r.clone(), module_for(&programs[r], arch, mode))).collect()
}

/// Whether a module for `arch` loads on an sm_`device` GPU (PTX ISA "Target ISA Notes"): a
/// plain `sm_XX` on every GPU from XX on, `sm_XXa` on sm_XX alone, `sm_XXf` on the GPUs of
/// its family from XX on (same tens: sm_100f on sm_100 and sm_103).
pub fn loads_on(arch: Arch, device: u32) -> bool {
    match arch.variant {
        Variant::Plain => arch.sm <= device,
        Variant::A => arch.sm == device,
        Variant::F => arch.sm <= device && arch.sm / 10 == device / 10,
    }
}

/// Why `job` cannot run on this target, if it cannot (checked before anything is compiled).
fn job_fault(job: &Job, target: Target) -> Option<EngineFault> {
    if let Err(f) = job.check() {
        return Some(f);
    }
    if let Err(e) = job.program.check_target(target) {
        return Some(EngineFault::Unsupported { what: e.to_string() });
    }
    (job.n_cases() > u32::MAX as usize).then(|| EngineFault::Invalid { message: "more than 2^32-1 cases in one job".into() })
}

/// An NVIDIA GPU.
pub struct CudaEngine {
    info: EngineInfo,
    /// Compile target: the device's sm, or `EngineOptions`' sm and suffix.
    arch: Arch,
    timeout: Duration,
    /// Dropped before `gpu` (fields drop in order): modules and buffers live in its context.
    modules: cache::ModuleCache<driver::Module>,
    input: Option<driver::Buffer>,
    output: Option<driver::Buffer>,
    /// The `isa` mode: the sm's instruction VM, JIT-compiled once on first use in the context,
    /// its encoder (kept across resets), and its bytecode and program-table buffers.
    vm: Option<driver::Module>,
    encoder: Option<Arc<Encoder>>,
    vm_code: Option<driver::Buffer>,
    vm_progs: Option<driver::Buffer>,
    /// ptxas processes assembling the next batch's `compiled` modules (`Engine::prepare`);
    /// `None` without ptxas or with `PTXFUZZ_COMPILE_AHEAD=0`: every module is JIT-compiled.
    ahead: Option<ahead::Ahead>,
    /// Its ptxas processes (0 without it): a batch's compiled programs are split into as many
    /// modules (`ahead::chunks`), so that they are assembled in parallel.
    processes: usize,
    /// Threads that pack and unpack `isa` batches (`vm_batch::packers`); `None`: the global pool.
    packers: Option<Arc<rayon::ThreadPool>>,
    /// The host buffers batches are copied through (pinned: `staging`).
    staging: staging::Staging,
    /// Where this engine's time went (`Engine::stage_times`).
    stages: StageTimes,
    gpu: driver::Gpu,
}

impl CudaEngine {
    /// Open GPU `gpu` (`cuda:N`).
    pub fn new(gpu: u32, opts: &EngineOptions) -> Result<CudaEngine, EngineFault> {
        let count = device_count()?;
        if gpu >= count {
            return Err(EngineFault::NoDevice {
                message: format!("no GPU {gpu}: the driver sees {count} GPU(s); use cuda:0..cuda:{}", count.max(1) - 1),
            });
        }
        let no_device = |message: String| EngineFault::NoDevice { message };
        let g = guarded(|| driver::Gpu::open(gpu)).map_err(no_device)?;
        let device_sm = g.sm().map_err(no_device)?;
        let arch = Arch { sm: opts.sm.unwrap_or(device_sm), variant: opts.variant };
        if !loads_on(arch, device_sm) || kernel::min_ptx_for_arch(arch).is_err() {
            return Err(EngineFault::NoDevice {
                message: format!(
                    "cannot compile for {arch} on this sm_{device_sm} GPU: choose a known sm up to {device_sm} \
                     (an sm_XXa target loads on sm_XX alone, sm_XXf on its family)"
                ),
            });
        }
        let mut info = EngineInfo::new(format!("cuda:{gpu}"), g.name().map_err(no_device)?);
        info.sm = Some(device_sm);
        info.driver = driver::driver_version().ok();
        info.runtime = Some(CUDA_VERSION.into());
        if arch != Arch::from(device_sm) {
            info.notes.push(format!("modules compiled for {arch}"));
        }
        let ahead = ahead::for_engine(arch);
        if let Some((_, n)) = &ahead {
            info.notes.push(format!("compile-ahead: {n} ptxas process(es)"));
        }
        let staging = staging::Staging::new(staging::Pinning::from_env());
        info.notes.push(staging.note());
        Ok(CudaEngine {
            info,
            arch,
            timeout: opts.timeout,
            modules: cache::ModuleCache::new(MODULE_CACHE),
            input: None,
            output: None,
            vm: None,
            encoder: None,
            vm_code: None,
            vm_progs: None,
            processes: ahead.as_ref().map_or(0, |(_, n)| *n),
            ahead: ahead.map(|(a, _)| a),
            packers: vm_batch::packers().map(Arc::new),
            staging,
            stages: StageTimes::default(),
            gpu: g,
        })
    }

    fn target(&self) -> Target {
        Target::of(self.arch, kernel::min_ptx_for_arch(self.arch).expect("checked in new"))
    }

    /// The loaded module for this text (JIT on a cache miss). Never evicts: each engine call
    /// makes room first (`ModuleCache::make_room`).
    fn module(&mut self, text: String) -> Result<&driver::Module, EngineFault> {
        let (ahead, stages) = (&self.ahead, &mut self.stages);
        self.modules.get_or_load(text, |text| {
            let t0 = Instant::now();
            // A cubin assembled ahead if there is one (a module ptxas rejected, or one that
            // fails to load, is JIT-compiled: its fault then carries the JIT's own log).
            let cubin = ahead.as_ref().and_then(|a| a.take(text)).and_then(Result::ok);
            let loaded = match cubin.and_then(|cubin| guarded(|| driver::Module::load_image(&cubin)).ok()) {
                Some(m) => Ok(m),
                None => guarded(|| driver::Module::load(text)).map_err(|log| EngineFault::Jit { log }),
            };
            stages.add_since(Stage::Modules, t0);
            loaded
        })
    }

    /// Entry functions for `programs` (one module; per-program modules if that fails to JIT).
    fn functions(&mut self, programs: &[&Program], mode: Mode) -> Vec<Result<driver::Function, EngineFault>> {
        let text = module_for(programs, self.arch, mode);
        self.functions_in(text, programs, mode)
    }

    /// As [`CudaEngine::functions`], with the module's text (or why it has none) at hand.
    fn functions_in(
        &mut self,
        text: Result<String, kernel::KernelError>,
        programs: &[&Program],
        mode: Mode,
    ) -> Vec<Result<driver::Function, EngineFault>> {
        let invalid = |e: kernel::KernelError| EngineFault::Unsupported { what: e.to_string() };
        let whole = text.map_err(invalid).and_then(|text| {
            let m = self.module(text)?;
            (0..programs.len())
                .map(|k| m.function(&format!("p{k}")).map_err(|log| EngineFault::Jit { log }))
                .collect::<Result<Vec<_>, _>>()
        });
        match whole {
            Ok(fs) => fs.into_iter().map(Ok).collect(),
            Err(e) if programs.len() == 1 => vec![Err(e)],
            // Bisect: a JIT error in one program of a thousand costs ~20 more JITs, not 1000.
            Err(_) => {
                let (a, b) = programs.split_at(programs.len() / 2);
                let mut fs = self.functions(a, mode);
                fs.extend(self.functions(b, mode));
                fs
            }
        }
    }

    /// Hand `texts` to the ptxas pool, but those already loaded (a loaded module never takes
    /// its cubin, which would stay in the pool); the pool skips those queued or assembled.
    /// `now`: they are about to be loaded, so they go before everything prepared ahead (and
    /// one queued ahead moves up).
    fn submit_ahead<'t>(&self, texts: impl IntoIterator<Item = &'t String>, now: bool) {
        let Some(ahead) = &self.ahead else { return };
        for text in texts.into_iter().filter(|t| !self.modules.contains(t)) {
            if now {
                ahead.submit_now(text);
            } else {
                ahead.submit(text);
            }
        }
    }

    /// Drop everything in the context and recreate it.
    fn reset(&mut self) -> Option<EngineFault> {
        self.modules.clear();
        self.staging.clear();
        self.input = None;
        self.output = None;
        self.vm = None;
        self.vm_code = None;
        self.vm_progs = None;
        guarded(|| self.gpu.reset()).err().map(|message| EngineFault::LostContext { message })
    }

    fn run_batch(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        self.modules.make_room();
        let mut results: Vec<Option<Result<Output, EngineFault>>> = vec![None; jobs.len()];
        if let Err(message) = guarded(|| self.gpu.bind()) {
            let f = EngineFault::LostContext { message };
            return jobs.iter().map(|_| Err(f.clone())).collect();
        }
        let target = self.target();
        // Checks, then the entry function of every runnable job; `isa` jobs go to the
        // instruction VM, a traced one as its program with every result an output
        // (`VmBatch::plan`): on the H200 a one-kernel trace (a store after each instruction)
        // still had ptxas commute operands, so its NaN payloads were the compiled mode's.
        let mut runnable: Vec<(usize, driver::Function)> = Vec::new();
        let mut on_vm: Vec<usize> = Vec::new();
        for mode in [Mode::Outputs, Mode::Trace] {
            let mut idx = Vec::new();
            for (k, job) in jobs.iter().enumerate() {
                if job.mode() != mode || results[k].is_some() {
                    continue;
                }
                match job_fault(job, target) {
                    Some(f) => results[k] = Some(Err(f)),
                    None if job.exec == Exec::Isa => on_vm.push(k),
                    None => idx.push(k),
                }
            }
            if idx.is_empty() {
                continue;
            }
            let programs: Vec<&Program> = idx.iter().map(|&k| jobs[k].program).collect();
            // One module per chunk, as `prepare` submitted a batch's outputs to ptxas; those
            // still queued move ahead of later batches'. A batch nobody prepared still
            // assembles in parallel: its modules go to the front of the pool's queue, instead
            // of each being JIT-compiled in turn on this thread. That is `modes-check`'s
            // batch, a campaign's when its source was late (what one unprepared batch of 1,024
            // programs made of the H200's all-compiled campaign, docs/engines.md), and the
            // traced runs that resolve a batch's mismatches (`Findings::resolve_batch`, a few
            // hundred programs a call): one JIT'd module each held the H200's all-compiled
            // campaign to 566 programs/s, its modules 22.1 s of 23.4 (2026-12-04). Below two
            // modules (a minimization probe) there is nothing to gain over the JIT.
            let modules = batch_modules(&programs, self.processes, self.arch, mode);
            if modules.len() >= 2 {
                self.submit_ahead(modules.iter().filter_map(|(_, t)| t.as_ref().ok()), true);
            }
            let fs: Vec<_> = modules.into_iter().flat_map(|(r, text)| self.functions_in(text, &programs[r], mode)).collect();
            for (k, f) in idx.into_iter().zip(fs) {
                match f {
                    Ok(f) => runnable.push((k, f)),
                    Err(e) => results[k] = Some(Err(e)),
                }
            }
        }
        if !runnable.is_empty() {
            if let Err(f) = self.launch_all(jobs, &runnable, &mut results) {
                for (k, _) in &runnable {
                    results[*k] = Some(Err(f.clone()));
                }
            }
        }
        if !on_vm.is_empty() {
            if let Err(f) = self.launch_vm(jobs, &on_vm, &mut results) {
                for k in on_vm {
                    results[k].get_or_insert(Err(f.clone()));
                }
            }
        }
        // Pinning may have been refused on this batch's first allocation: say so.
        let note = self.staging.note();
        if let Some(n) = self.info.notes.iter_mut().find(|n| n.starts_with("host memory:")) {
            *n = note;
        }
        results.into_iter().map(|r| r.expect("every job answered")).collect()
    }

    /// After the uploads and launches (`launched`): wait for them, then download the first
    /// `out_len` output slots. A failure, a timeout or a failed download resets the context.
    fn collect(&mut self, launched: Result<(), String>, out_len: usize) -> Result<Vec<u64>, EngineFault> {
        self.finish(launched)?;
        let mut all = vec![0u64; out_len];
        let read = self.output.as_ref().expect("ensured").download(&mut all);
        read.map_err(|message| self.failed(message))?;
        Ok(all)
    }

    /// As [`CudaEngine::collect`] after launches that were queued, into the staging buffer
    /// (`Staging::fetched`), the wait and the download timed: how both modes take a batch's
    /// results.
    fn fetch_staged(&mut self, out_len: usize) -> Result<(), EngineFault> {
        let t0 = Instant::now();
        let waited = self.finish(Ok(()));
        self.stages.add_since(Stage::Wait, t0);
        waited?;
        let t1 = Instant::now();
        let host = self.staging.incoming(out_len);
        let read = self.output.as_ref().expect("launched").download(host);
        self.stages.add_since(Stage::Download, t1);
        read.map_err(|message| self.failed(message))
    }

    /// A failed driver call: reset the context; its fault.
    fn failed(&mut self, message: String) -> EngineFault {
        let f = EngineFault::Launch { message };
        self.reset().unwrap_or(f)
    }

    /// Wait for the launches (`launched`); a failure or a timeout resets the context.
    fn finish(&mut self, launched: Result<(), String>) -> Result<(), EngineFault> {
        let fault = match launched.map_err(Some).and_then(|()| {
            self.gpu.wait(self.timeout).map_err(|w| match w {
                driver::Wait::Timeout => None,
                driver::Wait::Failed(m) => Some(m),
            })
        }) {
            Ok(()) => None,
            Err(Some(message)) => Some(EngineFault::Launch { message }),
            Err(None) => Some(EngineFault::Timeout { seconds: self.timeout.as_secs() }),
        };
        match fault {
            Some(f) => Err(self.reset().unwrap_or(f)),
            None => Ok(()),
        }
    }

    /// Upload, launch every job, wait, download. A failure resets the context.
    fn launch_all(
        &mut self,
        jobs: &[Job],
        runnable: &[(usize, driver::Function)],
        results: &mut [Option<Result<Output, EngineFault>>],
    ) -> Result<(), EngineFault> {
        // Into the staging buffer (pinned: `staging`), sized once: a buffer grown job by job
        // is copied at each regrowth (docs/benchmarks.md, "The isa engine's CPU half").
        let t0 = Instant::now();
        let n_in: usize = runnable.iter().map(|&(k, _)| jobs[k].cases.len()).sum();
        let host = self.staging.outgoing(n_in);
        let mut offsets = Vec::with_capacity(runnable.len());
        let (mut at, mut out_len) = (0, 0);
        for &(k, _) in runnable {
            let job = &jobs[k];
            host[at..at + job.cases.len()].copy_from_slice(job.cases);
            offsets.push((at, out_len));
            at += job.cases.len();
            out_len += job.n_cases() * job.per_case();
        }
        self.stages.add_since(Stage::Pack, t0);
        let t1 = Instant::now();
        let launched = (|| -> Result<(), String> {
            let input = ensure(&mut self.input, n_in)?;
            input.upload(self.staging.staged(n_in))?;
            let in_ptr = input.ptr();
            let out_ptr = ensure(&mut self.output, out_len)?.ptr();
            self.stages.add_since(Stage::Upload, t1);
            for (&(k, f), &(i, o)) in runnable.iter().zip(&offsets) {
                let n = jobs[k].n_cases() as u32;
                driver::launch(f, in_ptr + 8 * i as u64, out_ptr + 8 * o as u64, n)?;
            }
            Ok(())
        })();
        launched.map_err(|message| self.failed(message))?;
        self.fetch_staged(out_len)?;
        let t2 = Instant::now();
        let all = self.staging.fetched();
        for (&(k, _), &(_, o)) in runnable.iter().zip(&offsets) {
            let job = &jobs[k];
            let per_case = job.per_case();
            let values = all[o..o + job.n_cases() * per_case].to_vec();
            results[k] = Some(Ok(Output { values, per_case }));
        }
        self.stages.add_since(Stage::Unpack, t2);
        Ok(())
    }
}

impl Drop for CudaEngine {
    /// Modules and buffers (dropped after this) are freed in the engine's context: make it
    /// current on the dropping thread first.
    fn drop(&mut self) {
        let _ = guarded(|| self.gpu.bind());
    }
}

/// The buffer, at least `len` long (reallocated when too small).
fn ensure(buf: &mut Option<driver::Buffer>, len: usize) -> Result<&mut driver::Buffer, String> {
    if buf.as_ref().is_none_or(|b| b.len < len) {
        *buf = None;
        *buf = Some(driver::Buffer::alloc(len.max(1 << 16))?);
    }
    Ok(buf.as_mut().expect("just set"))
}

impl Engine for CudaEngine {
    fn info(&self) -> &EngineInfo {
        &self.info
    }

    fn supports(&self, p: &Program) -> bool {
        p.check_target(self.target()).is_ok()
    }

    fn run(&mut self, jobs: &[Job]) -> Vec<Result<Output, EngineFault>> {
        self.run_batch(jobs)
    }

    /// Submit the modules `run` will build for these jobs' `compiled` outputs (the same jobs,
    /// by `job_fault`, split by `ahead::chunks`, so the same texts) to the ptxas pool, one
    /// per process.
    fn prepare(&mut self, jobs: &[Job]) {
        if self.ahead.is_none() {
            return;
        }
        let target = self.target();
        let programs: Vec<&Program> = jobs
            .iter()
            .filter(|j| j.mode() == Mode::Outputs && j.exec == Exec::Compiled && job_fault(j, target).is_none())
            .map(|j| j.program)
            .collect();
        let modules = batch_modules(&programs, self.processes, self.arch, Mode::Outputs);
        self.submit_ahead(modules.iter().filter_map(|(_, t)| t.as_ref().ok()), false);
    }

    fn stage_times(&self) -> Option<&StageTimes> {
        Some(&self.stages)
    }

    fn prepare_depth(&self) -> usize {
        if self.ahead.is_some() {
            ahead::AHEAD_BATCHES
        } else {
            1
        }
    }

    fn preferred_cases(&self) -> usize {
        1 << 20
    }

    fn exec_modes(&self) -> &'static [Exec] {
        &[Exec::Compiled, Exec::Isa]
    }

    fn supports_form(&self, form: &Form) -> bool {
        self.form_target(form).is_ok()
    }

    fn run_forms(&mut self, form: &Form, cases: &[u64]) -> Result<Vec<u64>, EngineFault> {
        self.forms_on_gpu(form, cases)
    }

    fn has_sweep_kernel(&self) -> bool {
        true
    }

    fn sweep_chunk(
        &mut self,
        form: &Instr,
        prefilter: Option<&Prefilter>,
        start: u64,
        stride: u64,
        count: u64,
    ) -> Result<SweepChunk, EngineFault> {
        self.sweep_on_gpu(form, prefilter, start, stride, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine (and CI) has no GPU driver: the engine must say so, not panic.
    #[test]
    fn without_a_driver_opening_says_no_driver_found() {
        if driver_present() {
            eprintln!("SKIPPED: a CUDA driver is installed here");
            return;
        }
        let e = CudaEngine::new(0, &EngineOptions::default()).err().expect("no engine without a driver");
        assert_eq!(e.kind(), "no-device");
        assert!(e.to_string().contains("no NVIDIA driver found"), "{e}");
        assert!(e.to_string().contains("--target host"), "{e}");
        assert_eq!(device_count().unwrap_err().kind(), "no-device");
        let e = super::super::open("cuda:1", &EngineOptions::default()).err().unwrap();
        assert!(e.to_string().contains("no NVIDIA driver found"), "{e}");
        assert_eq!(crate::oracles::default_target().to_string(), "host");
    }

    #[test]
    fn a_traced_batch_is_split_into_one_module_per_ptxas_process_like_outputs() {
        // A findings stage's traced runs (a few hundred programs) go to the ptxas pool in
        // parallel, as a batch's outputs do; without a pool, and for a minimization probe of
        // one program, one module.
        let p = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\nabs.f32 %f2, %f1;\n// outputs: %f2\n").unwrap();
        let programs = vec![&p; 280];
        for mode in [Mode::Outputs, Mode::Trace] {
            let modules = batch_modules(&programs, 15, Arch::from(90), mode);
            assert_eq!(modules.len(), 280 / ahead::MIN_CHUNK, "{mode:?}");
            let mut next = 0;
            for (r, text) in &modules {
                assert_eq!(r.start, next);
                next = r.end;
                assert_eq!(text.as_ref().unwrap(), &module_for(&programs[r.clone()], 90, mode).unwrap());
            }
            assert_eq!(next, 280);
            assert_eq!(batch_modules(&programs, 0, Arch::from(90), mode).len(), 1);
            assert_eq!(batch_modules(&programs[..1], 15, Arch::from(90), mode).len(), 1);
        }
    }

    #[test]
    fn module_for_is_the_kernel_module() {
        let p = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
        let m = module_for(&[&p, &p], 90, Mode::Trace).unwrap();
        assert_eq!(m, kernel::module(&[&p, &p], 90, Mode::Trace).unwrap());
        assert!(m.contains(".entry p1("));
    }

    #[test]
    fn a_suffixed_target_loads_on_its_own_sm_or_family_only() {
        let arch = |s: &str| Arch::parse(s).unwrap();
        assert!(loads_on(arch("90"), 90) && loads_on(arch("90"), 100) && !loads_on(arch("100"), 90));
        // sm_100a: on sm_100 alone; sm_100f: on sm_100 and sm_103, not on sm_110 or sm_120.
        assert!(loads_on(arch("100a"), 100) && !loads_on(arch("100a"), 103) && !loads_on(arch("100a"), 120));
        assert!(loads_on(arch("100f"), 100) && loads_on(arch("100f"), 103) && !loads_on(arch("100f"), 110));
        assert!(!loads_on(arch("103f"), 100) && !loads_on(arch("90a"), 100));
    }

    #[test]
    fn an_sm_100a_module_holds_its_own_forms_and_names_its_target() {
        // f32 -> .rs bf16x2 -> fma.rn.bf16x2: a program only sm_100a has.
        let text = "// inputs: %f0:f32, %f1:f32, %r2:u32, %r4:bf16x2\ncvt.rs.bf16x2.f32 %r3, %f0, %f1, %r2;\n\
                    fma.rn.bf16x2 %r5, %r3, %r4, %r4;\n// outputs: %r5\n";
        let p = Program::parse(text).unwrap();
        let m = module_for(&[&p], arch_100a(), Mode::Outputs).unwrap();
        assert!(m.contains(".target sm_100a\n") && m.contains("cvt.rs.bf16x2.f32"), "{m}");
        assert!(module_for(&[&p], 100, Mode::Outputs).is_err(), "plain sm_100 has no .rs");
    }

    fn arch_100a() -> Arch {
        Arch { sm: 100, variant: Variant::A }
    }
}
