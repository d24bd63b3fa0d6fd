//! The `isa` mode's pipeline: a batch's VM jobs in sub-batches, so that the host packs the
//! next one and unpacks the last one while the device runs the kernel of a third.
//!
//! Why: the engine packed, copied in, ran, copied out and unpacked a whole batch one step after
//! another, the GPU idle through every step but the run. On the H200 (2026-11-29) its isa
//! batches of 16,384-case programs cost 51 ns a case in the engine (19.6 M cases/s), where
//! issue 12 asks for 100 M cases/s from the whole campaign. Here each sub-batch is packed
//! (`VmBatch::plan`, on the engine's packing threads) and its inputs written straight into the
//! device's host buffer (`VmBatch::write_inputs`) while the previous one runs; then the previous one is fetched, this one launched, and
//! the previous one unpacked while this one runs. The device side is a trait ([`VmDevice`]):
//! the cuda engine (`vm_device.rs`) on a GPU, and in the tests here a device that runs the
//! packed buffers on the CPU (`VmBatch::emulate`), which proves the order and the results.

use std::time::Instant;

use ptx::vm::Encoder;

use super::super::engine::{EngineFault, Job, Output};
use super::super::stages::{Stage, StageTimes};
use super::vm_batch::{on_packers, VmBatch};

/// How a batch is cut into sub-batches. The defaults, for a campaign batch of 1,024 programs
/// of 1,024 cases (1 M cases): four sub-batches of 256 K cases.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pipeline {
    /// Cases a sub-batch holds at least: 256 K, about one case for each thread an H100 or H200
    /// keeps resident (132 SMs of 2,048 threads: 270 K), so that a launch still fills the GPU.
    pub min_cases: usize,
    /// Sub-batches a batch is cut into at most: 8; each costs a launch, a wait and two copies
    /// (tens of microseconds), and past a few the pipeline's fill and drain are small already.
    pub max_parts: usize,
}

impl Default for Pipeline {
    fn default() -> Pipeline {
        Pipeline { min_cases: 1 << 18, max_parts: 8 }
    }
}

impl Pipeline {
    /// The jobs `idx` in consecutive sub-batches of at least `min_cases` cases (the last one
    /// may hold fewer), at most about `max_parts` of them.
    pub fn parts<'i>(&self, jobs: &[Job], idx: &'i [usize]) -> Vec<&'i [usize]> {
        let total: usize = idx.iter().map(|&k| jobs[k].n_cases()).sum();
        let per = (total / self.max_parts.max(1)).max(self.min_cases).max(1);
        let mut parts = Vec::new();
        let (mut start, mut cases) = (0, 0);
        for (i, &k) in idx.iter().enumerate() {
            cases += jobs[k].n_cases();
            if cases >= per {
                parts.push(&idx[start..=i]);
                (start, cases) = (i + 1, 0);
            }
        }
        if start < idx.len() {
            parts.push(&idx[start..]);
        }
        parts
    }

    /// Run the `isa` jobs `idx` of `jobs` on `dev`, answering `results[k]` for each (a job
    /// the VM cannot run gets its fault). `Err`: the device failed; the jobs of the sub-batches
    /// it had not answered are left unanswered, for the caller to give them the fault.
    pub fn run<D: VmDevice + ?Sized>(
        &self,
        dev: &mut D,
        enc: &Encoder,
        packers: Option<&rayon::ThreadPool>,
        jobs: &[Job],
        idx: &[usize],
        results: &mut [Option<Result<Output, EngineFault>>],
    ) -> Result<(), EngineFault> {
        // The sub-batch whose kernel is running.
        let mut running: Option<VmBatch> = None;
        for part in self.parts(jobs, idx) {
            let t0 = Instant::now();
            let (batch, faults) = on_packers(packers, || VmBatch::plan(enc, jobs, part));
            dev.stages().add_since(Stage::Pack, t0);
            for (k, fault) in faults {
                results[k] = Some(Err(fault));
            }
            if batch.programs() == 0 {
                continue;
            }
            dev.stage(&batch, jobs)?;
            let done = match running.take() {
                Some(prev) => {
                    dev.fetch(prev.out_len)?;
                    Some(prev)
                }
                None => None,
            };
            dev.launch(&batch)?;
            running = Some(batch);
            if let Some(prev) = done {
                unpack(dev, packers, &prev, results);
            }
        }
        if let Some(last) = running {
            dev.fetch(last.out_len)?;
            unpack(dev, packers, &last, results);
        }
        Ok(())
    }
}

/// Answer the jobs of `batch` from the words the device fetched last.
fn unpack<D: VmDevice + ?Sized>(dev: &mut D, packers: Option<&rayon::ThreadPool>, batch: &VmBatch, results: &mut [Option<Result<Output, EngineFault>>]) {
    let t0 = Instant::now();
    let out = dev.fetched();
    for (k, o) in on_packers(packers, || batch.unpack(out)) {
        results[k] = Some(Ok(o));
    }
    dev.stages().add_since(Stage::Unpack, t0);
}

/// What runs packed VM batches: one launched at a time, the next one staged meanwhile.
pub trait VmDevice {
    /// Write `batch`'s code, program table and inputs (`VmBatch::write_inputs`, from `jobs`)
    /// where the device copies them from (the cuda engine's pinned host buffer): done while
    /// the previous batch's kernel runs.
    fn stage(&mut self, batch: &VmBatch, jobs: &[Job]) -> Result<(), EngineFault>;
    /// Copy the staged buffers to the device and launch the VM over them; returns once the
    /// kernel is queued, before it has run. The batch launched before was fetched.
    fn launch(&mut self, batch: &VmBatch) -> Result<(), EngineFault>;
    /// Wait for the launched kernel and copy its first `out_len` output words back.
    fn fetch(&mut self, out_len: usize) -> Result<(), EngineFault>;
    /// The words the last [`VmDevice::fetch`] copied back.
    fn fetched(&self) -> &[u64];
    /// Where the device's time goes (the pipeline adds packing and unpacking).
    fn stages(&mut self) -> &mut StageTimes;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::diff_interp::InterpEngine;
    use crate::oracles::Engine;
    use ptx::gen::{GenConfig, Generator};
    use ptx::program::Program;

    /// Runs each launched batch on the CPU (`VmBatch::emulate`), logging its calls; fails the
    /// `fail_fetch`-th fetch if asked.
    struct Emulated {
        staged: Option<usize>,
        running: Option<(usize, Vec<u64>)>,
        out: Vec<u64>,
        batches: Vec<VmBatch>,
        log: Vec<String>,
        fail_fetch: Option<usize>,
        stages: StageTimes,
    }

    fn emulated() -> Emulated {
        Emulated { staged: None, running: None, out: Vec::new(), batches: Vec::new(), log: Vec::new(), fail_fetch: None, stages: StageTimes::default() }
    }

    impl VmDevice for Emulated {
        fn stage(&mut self, batch: &VmBatch, jobs: &[Job]) -> Result<(), EngineFault> {
            let n = self.batches.len();
            let mut staged = batch.clone();
            staged.inputs = vec![0; batch.in_len];
            batch.write_inputs(jobs, &mut staged.inputs);
            self.batches.push(staged);
            self.staged = Some(n);
            self.log.push(format!("stage {n}"));
            Ok(())
        }
        fn launch(&mut self, batch: &VmBatch) -> Result<(), EngineFault> {
            let n = self.staged.take().expect("staged before launch");
            let staged = &self.batches[n];
            assert_eq!((&staged.code, &staged.progs), (&batch.code, &batch.progs), "the batch staged is the one launched");
            assert!(self.running.is_none(), "the batch launched before was fetched");
            self.running = Some((n, staged.emulate(90).unwrap()));
            self.log.push(format!("launch {n}"));
            Ok(())
        }
        fn fetch(&mut self, out_len: usize) -> Result<(), EngineFault> {
            let (n, out) = self.running.take().expect("a batch is running");
            if self.fail_fetch == Some(n) {
                return Err(EngineFault::Launch { message: format!("batch {n} failed") });
            }
            assert_eq!(out.len(), out_len);
            self.out = out;
            self.log.push(format!("fetch {n}"));
            Ok(())
        }
        fn fetched(&self) -> &[u64] {
            &self.out
        }
        fn stages(&mut self) -> &mut StageTimes {
            &mut self.stages
        }
    }

    /// `n` generated programs, program `i` with `1 + i % 7` cases.
    fn items(n: u64) -> Vec<(Program, Vec<u64>)> {
        let g = Generator::new(GenConfig::default()).unwrap();
        let mut rng = crate::campaign::source::Rng::new(5);
        (0..n)
            .map(|i| {
                let mut bytes = [0u8; 256];
                rng.fill(&mut bytes);
                let (p, _) = g.from_bytes(&bytes);
                let mut u = arbitrary::Unstructured::new(&bytes);
                let cases = (0..1 + i % 7).flat_map(|_| g.case(&mut u, &p).unwrap()).collect();
                (p, cases)
            })
            .collect()
    }

    #[test]
    fn sub_batches_hold_at_least_min_cases_and_number_at_most_max_parts() {
        let items = items(40);
        let jobs: Vec<Job> = items.iter().map(|(p, c)| Job::new(p, c, false)).collect();
        let idx: Vec<usize> = (0..jobs.len()).collect();
        let total: usize = jobs.iter().map(Job::n_cases).sum();
        let cut = |min_cases, max_parts| Pipeline { min_cases, max_parts }.parts(&jobs, &idx);
        let cases = |part: &[usize]| part.iter().map(|&k| jobs[k].n_cases()).sum::<usize>();
        // Large sub-batches: the whole batch is one.
        assert_eq!(cut(1 << 18, 8), vec![&idx[..]]);
        // Small ones: every part but the last reaches the floor, and the parts are the batch.
        let parts = cut(20, 8);
        assert!(parts.len() > 2 && parts.len() <= 8, "{}", parts.len());
        assert!(parts[..parts.len() - 1].iter().all(|p| cases(p) >= 20));
        assert_eq!(parts.concat(), idx);
        // The part count bounds the cuts when the floor is low.
        let parts = cut(1, 4);
        assert!(parts.len() <= 5 && parts[..parts.len() - 1].iter().all(|p| cases(p) >= total / 4), "{}", parts.len());
    }

    #[test]
    fn a_pipelined_batch_answers_as_the_interpreter_and_launches_the_next_before_unpacking() {
        let items = items(120);
        let jobs: Vec<Job> = items.iter().map(|(p, c)| Job::new(p, c, traced_if(p))).collect();
        assert!(jobs.iter().any(|j| j.trace) && jobs.iter().any(|j| !j.trace));
        let idx: Vec<usize> = (0..jobs.len()).collect();
        let mut dev = emulated();
        let mut results = vec![None; jobs.len()];
        let pipe = Pipeline { min_cases: 100, max_parts: 8 };
        let parts = pipe.parts(&jobs, &idx).len();
        assert!(parts >= 3, "{parts}");
        pipe.run(&mut dev, &Encoder::new(90).unwrap(), None, &jobs, &idx, &mut results).unwrap();
        let want = InterpEngine::new().run(&jobs);
        for (k, got) in results.into_iter().enumerate() {
            assert_eq!(got.expect("answered"), want[k], "job {k}: {}", jobs[k].program);
        }
        // Sub-batch n+1 is staged before n is fetched and launched before n is unpacked (the
        // unpacking reads the words fetched last, so it follows `fetch n` and `launch n+1`).
        let mut want_log = vec!["stage 0".to_string(), "launch 0".into()];
        for n in 1..parts {
            want_log.extend([format!("stage {n}"), format!("fetch {}", n - 1), format!("launch {n}")]);
        }
        want_log.push(format!("fetch {}", parts - 1));
        assert_eq!(dev.log, want_log);
        assert!(dev.stages.line().starts_with("pack "), "{}", dev.stages.line());
    }

    /// Programs of a body length divisible by 3 traced (a traced job packs as its program
    /// with every result an output): both kinds in one batch.
    fn traced_if(p: &Program) -> bool {
        p.body().len().is_multiple_of(3)
    }

    #[test]
    fn a_device_failure_leaves_the_unfetched_sub_batches_to_the_caller() {
        let items = items(60);
        let jobs: Vec<Job> = items.iter().map(|(p, c)| Job::new(p, c, false)).collect();
        let idx: Vec<usize> = (0..jobs.len()).collect();
        let pipe = Pipeline { min_cases: 50, max_parts: 8 };
        let parts = pipe.parts(&jobs, &idx);
        assert!(parts.len() >= 3, "{}", parts.len());
        let mut dev = emulated();
        dev.fail_fetch = Some(1);
        let mut results = vec![None; jobs.len()];
        let e = pipe.run(&mut dev, &Encoder::new(90).unwrap(), None, &jobs, &idx, &mut results).unwrap_err();
        assert!(e.to_string().contains("batch 1 failed"), "{e}");
        let want = InterpEngine::new().run(&jobs);
        for &k in parts[0] {
            assert_eq!(results[k].clone().expect("the first sub-batch was answered"), want[k]);
        }
        for &k in parts[1..].concat().iter() {
            assert!(results[k].is_none(), "job {k} of a failed or later sub-batch");
        }
    }

    /// What the host side of a GPU does with the pipeline (the cuda engine's `VmDevice`
    /// without the driver): staging writes the inputs into a reused buffer, fetching writes
    /// the output words into another (as a DMA would), the kernel takes no time.
    struct HostOnly {
        staged: Vec<u64>,
        out: Vec<u64>,
        stages: StageTimes,
    }

    impl VmDevice for HostOnly {
        fn stage(&mut self, batch: &VmBatch, jobs: &[Job]) -> Result<(), EngineFault> {
            let t0 = Instant::now();
            self.staged.resize(batch.in_len.max(self.staged.len()), 0);
            batch.write_inputs(jobs, &mut self.staged[..batch.in_len]);
            self.stages.add_since(Stage::Pack, t0);
            Ok(())
        }
        fn launch(&mut self, _: &VmBatch) -> Result<(), EngineFault> {
            Ok(())
        }
        fn fetch(&mut self, out_len: usize) -> Result<(), EngineFault> {
            let t0 = Instant::now();
            self.out.clear();
            self.out.resize(out_len, 0x5555_5555_5555_5555);
            self.stages.add_since(Stage::Download, t0);
            Ok(())
        }
        fn fetched(&self) -> &[u64] {
            &self.out
        }
        fn stages(&mut self) -> &mut StageTimes {
            &mut self.stages
        }
    }

    /// Benchmark: the host side of an isa batch through the pipeline at its default sizes (a
    /// campaign batch of 1,024 default programs of 1,024 cases: 4 sub-batches), the kernel
    /// taking no time: the most cases/s this host can feed a GPU. Runs on the global pool
    /// (`RAYON_NUM_THREADS=1` for one thread). Figures: docs/benchmarks.md ("The isa engine's
    /// CPU half"). `cargo test --release -p worker --lib -- --ignored
    /// isa_pipeline_host_side_throughput --nocapture`
    #[test]
    #[ignore]
    fn isa_pipeline_host_side_throughput() {
        let g = Generator::new(GenConfig::default()).unwrap();
        let items: Vec<_> = (0..1024).filter_map(|i| crate::campaign::source::random_item(&g, 7, i, 1024)).collect();
        let jobs: Vec<Job> = items.iter().map(|it| Job::new(&it.program, &it.cases, false)).collect();
        let cases: usize = jobs.iter().map(|j| j.n_cases()).sum();
        let idx: Vec<usize> = (0..jobs.len()).collect();
        let enc = Encoder::new(90).unwrap();
        let pipe = Pipeline::default();
        let mut best = (f64::MAX, StageTimes::default());
        // One device for every round, as the engine keeps its buffers across batches.
        let mut dev = HostOnly { staged: Vec::new(), out: Vec::new(), stages: StageTimes::default() };
        for _ in 0..6 {
            dev.stages = StageTimes::default();
            let mut results = vec![None; jobs.len()];
            let t = Instant::now();
            pipe.run(&mut dev, &enc, None, &jobs, &idx, &mut results).unwrap();
            let s = t.elapsed().as_secs_f64();
            assert!(results.iter().all(|r| matches!(r, Some(Ok(_)))));
            if s < best.0 {
                best = (s, dev.stages.clone());
            }
        }
        let ms = |stage| format!("{} {:.1} ms", Stage::name(stage), best.1.us(stage) as f64 / 1e3);
        println!(
            "{cases} cases, {} programs, {} sub-batches: {:.1} ms ({:.0} M cases/s host side); {} (inputs written into the staging buffer), {}, {}",
            jobs.len(),
            pipe.parts(&jobs, &idx).len(),
            best.0 * 1e3,
            cases as f64 / best.0 / 1e6,
            ms(Stage::Pack),
            ms(Stage::Download),
            ms(Stage::Unpack)
        );
    }
}
