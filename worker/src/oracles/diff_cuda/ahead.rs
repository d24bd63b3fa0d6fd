//! Compile-ahead for `compiled` mode (issue 12): ptxas assembles the modules of the next batch
//! in parallel processes while the GPU runs the current one, and the engine loads the cubin
//! instead of JIT-compiling the PTX (the driver's JIT and ptxas are the same compiler; a
//! module ptxas rejects is JIT-compiled as before, so its fault carries the JIT's log).
//!
//! Why ptxas processes: on the 2-core development VM, ptxas 13.5 assembles about 290 generated
//! programs a second per core in modules of 256 (docs/benchmarks.md "ptxas throughput"), so
//! 15 processes on a 16-core GPU machine would give about 4,300 programs/s, over the issue's
//! 2,000. The driver's JIT on worker threads, the other candidate, needs a GPU to measure.
//!
//! Memory is bounded: at most `waiting` modules wait (the engine allows one per process for
//! each batch it prepares ahead, and the one running), a full queue turns a submission
//! down (the engine then JITs that module itself), and a result leaves the pool when taken.
//!
//! Two queues: what is prepared ahead ([`Ahead::submit`]) and what the engine is about to
//! wait for ([`Ahead::submit_now`]: a batch nobody prepared, the traced runs of a findings
//! stage, a prepared module whose turn has come), which every process takes first. With one
//! queue a findings stage's modules would wait behind eight batches prepared ahead.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use api::fnv1a;
use ptx::isa::Arch;

/// The longest [`Ahead::take`] waits for ptxas: a module of a thousand programs takes ptxas a
/// few seconds; two minutes means it is stuck.
const TAKE_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The fewest programs worth a ptxas process of their own: below this its start-up (tens of
/// milliseconds) outweighs what splitting saves.
pub const MIN_CHUNK: usize = 32;

/// How a batch's `n` compiled programs are split into modules: one per ptxas process (at
/// least [`MIN_CHUNK`] programs each), in order, so that `Engine::prepare` and the run that
/// loads them build the same texts. One module per batch kept 14 of the H200's 15 processes
/// idle: 328 programs/s, one process's rate (docs/hardware/nvidia-h200-2026-11-26/).
pub fn chunks(n: usize, processes: usize) -> Vec<std::ops::Range<usize>> {
    let parts = (n / MIN_CHUNK).clamp(1, processes.max(1));
    let size = n.div_ceil(parts).max(1);
    (0..n).step_by(size).map(|s| s..(s + size).min(n)).collect()
}

/// Batches a campaign hands to the ptxas pool ahead of the one running
/// (`Engine::prepare_depth`). A batch's modules (at least [`MIN_CHUNK`] programs each)
/// take a ptxas process about 200 ms: today's default programs cost about 5 ms of a core
/// each and a process 17 to 30 ms to start (development VM, docs/benchmarks.md "A GPU
/// campaign's CPU work"). A 1 M-case batch at issue 12's 100 M cases/s runs in 10 ms, so with one batch
/// ahead the GPU would wait for ptxas at every batch; eight ahead keep the processes working
/// across batches, for eight batches' cases in memory (about 30 MB each by default).
pub const AHEAD_BATCHES: usize = 8;

/// The ptxas pool of `compiled` mode and its size: one process per core but one (the
/// campaign's judge has the pool's threads too; ptxas is busy only while batches are
/// prepared), room for a module per process of every batch prepared ahead and of the one
/// running, unless `PTXFUZZ_COMPILE_AHEAD=0` or there is no ptxas (`toolkit::find`).
pub fn for_engine(arch: Arch) -> Option<(Ahead, usize)> {
    if std::env::var("PTXFUZZ_COMPILE_AHEAD").is_ok_and(|v| v == "0") {
        return None;
    }
    let ptxas = crate::toolkit::find("ptxas").ok()?;
    let n = std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).max(1);
    Some((Ahead::start(ptxas, arch, n, (AHEAD_BATCHES + 1) * n).ok()?, n))
}

/// A module's state in the pool.
enum Slot {
    /// Queued or being assembled.
    Pending,
    /// The cubin, or ptxas's log.
    Done(Result<Vec<u8>, String>),
}

struct Shared {
    /// By the PTX text's hash; the text is kept to rule out a collision.
    slots: Mutex<HashMap<u64, (String, Slot)>>,
    ready: Condvar,
    /// Keys of the modules not yet taken by a process. Locked after `slots` when both are.
    queue: Mutex<Queue>,
    /// A module queued, or the pool closing.
    queued: Condvar,
}

#[derive(Default)]
struct Queue {
    /// Waited for now: taken first.
    now: VecDeque<u64>,
    /// Prepared ahead, at most `waiting` of them.
    ahead: VecDeque<u64>,
    waiting: usize,
    closed: bool,
}

/// A pool of ptxas processes for one target.
pub struct Ahead {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    dir: PathBuf,
}

impl Ahead {
    /// `processes` ptxas processes at a time, assembling for `arch` (`sm_90`, `sm_100a`, ...)
    /// with `ptxas`, at most `waiting` modules queued for them.
    pub fn start(ptxas: PathBuf, arch: impl Into<Arch>, processes: usize, waiting: usize) -> std::io::Result<Ahead> {
        let arch = arch.into();
        let dir = std::env::temp_dir().join(format!("ptxfuzz-ahead-{}-{:x}", std::process::id(), fnv1a(format!("{:?}", std::time::Instant::now()).as_bytes())));
        std::fs::create_dir_all(&dir)?;
        let queue = Queue { waiting: waiting.max(1), ..Queue::default() };
        let shared = Arc::new(Shared { slots: Mutex::new(HashMap::new()), ready: Condvar::new(), queue: Mutex::new(queue), queued: Condvar::new() });
        let workers = (0..processes.max(1))
            .map(|i| {
                let (shared, ptxas, dir) = (shared.clone(), ptxas.clone(), dir.clone());
                std::thread::Builder::new()
                    .name(format!("ptxas-{i}"))
                    .spawn(move || work(&shared, &ptxas, arch, &dir.join(format!("w{i}"))))
                    .expect("a thread starts")
            })
            .collect();
        Ok(Ahead { shared, workers, dir })
    }

    /// Queue `text` for assembly ahead of need unless it is queued or done already; `false`
    /// when that queue is full (the caller JITs it instead).
    pub fn submit(&self, text: &str) -> bool {
        self.enqueue(text, false)
    }

    /// Queue `text` to be assembled before everything submitted ahead: the caller is about to
    /// [`Ahead::take`] it. A module already queued ahead moves to the front. Never turned
    /// down: the caller waits for what it submits this way, so the queue stays short.
    pub fn submit_now(&self, text: &str) {
        self.enqueue(text, true);
    }

    fn enqueue(&self, text: &str, now: bool) -> bool {
        let key = fnv1a(text.as_bytes());
        let mut slots = self.shared.slots.lock().expect("pool lock");
        let mut q = self.shared.queue.lock().expect("queue lock");
        if slots.contains_key(&key) {
            if let Some(at) = q.ahead.iter().position(|&k| k == key).filter(|_| now) {
                q.ahead.remove(at);
                q.now.push_back(key);
            }
            return true;
        }
        if now {
            q.now.push_back(key);
        } else if q.ahead.len() < q.waiting {
            q.ahead.push_back(key);
        } else {
            return false;
        }
        slots.insert(key, (text.to_string(), Slot::Pending));
        self.shared.queued.notify_one();
        true
    }

    /// The cubin of `text` (or ptxas's log), waiting while it is assembled; `None` if it was
    /// never submitted, or if ptxas has not answered in [`TAKE_WAIT`] (a hung process must
    /// not stall the campaign: the caller JITs the module). The result leaves the pool.
    pub fn take(&self, text: &str) -> Option<Result<Vec<u8>, String>> {
        let key = fnv1a(text.as_bytes());
        let deadline = std::time::Instant::now() + TAKE_WAIT;
        let mut slots = self.shared.slots.lock().expect("pool lock");
        loop {
            match slots.get(&key) {
                Some((t, _)) if t != text => return None,
                None => return None,
                Some((_, Slot::Pending)) => {
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    slots = self.shared.ready.wait_timeout(slots, left).expect("pool lock").0;
                }
                Some((_, Slot::Done(_))) => {
                    let Some((_, Slot::Done(r))) = slots.remove(&key) else { unreachable!() };
                    return Some(r);
                }
            }
        }
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        self.shared.queue.lock().expect("queue lock").closed = true;
        self.shared.queued.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One worker: assemble what is queued, waited-for modules first, until the pool closes.
fn work(shared: &Shared, ptxas: &Path, arch: Arch, dir: &Path) {
    loop {
        let key = {
            let mut q = shared.queue.lock().expect("queue lock");
            loop {
                if q.closed {
                    return;
                }
                if let Some(k) = q.now.pop_front().or_else(|| q.ahead.pop_front()) {
                    break k;
                }
                q = shared.queued.wait(q).expect("queue lock");
            }
        };
        let Some(text) = shared.slots.lock().expect("pool lock").get(&key).map(|(t, _)| t.clone()) else { continue };
        let result = assemble(ptxas, arch, dir, &text);
        let mut slots = shared.slots.lock().expect("pool lock");
        if let Some(slot) = slots.get_mut(&key) {
            slot.1 = Slot::Done(result);
        }
        shared.ready.notify_all();
    }
}

/// `ptxas -arch=sm_XX` (`sm_100a`, ...) on `text`: the cubin, or the tool's log.
fn assemble(ptxas: &Path, arch: Arch, dir: &Path, text: &str) -> Result<Vec<u8>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (src, out) = (dir.join("m.ptx"), dir.join("m.cubin"));
    std::fs::write(&src, text).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let run = Command::new(ptxas).arg(format!("-arch={arch}")).arg(&src).arg("-o").arg(&out).output();
    let o = run.map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    if !o.status.success() {
        return Err(format!("ptxas: {}", String::from_utf8_lossy(&o.stderr).trim()));
    }
    std::fs::read(&out).map_err(|e| format!("cannot read {}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx::gen::{GenConfig, Generator};
    use ptx::kernel::Mode;

    #[test]
    fn a_batch_is_split_into_one_module_per_process_of_at_least_min_chunk_programs() {
        let sizes = |n, p| chunks(n, p).iter().map(|r| r.len()).collect::<Vec<_>>();
        assert_eq!(sizes(1000, 15), [67; 14].into_iter().chain([62]).collect::<Vec<_>>());
        assert_eq!(sizes(100, 15), [34, 34, 32]);
        assert_eq!(sizes(10, 15), [10]);
        assert_eq!(sizes(1000, 1), [1000]);
        assert!(chunks(0, 15).is_empty());
        // In order, covering every program once.
        let c = chunks(999, 7);
        assert_eq!(c.first().unwrap().start, 0);
        assert!(c.windows(2).all(|w| w[0].end == w[1].start) && c.last().unwrap().end == 999);
    }

    fn pool() -> Ahead {
        let ptxas = crate::toolkit::find("ptxas").expect("ptxas: pip install nvidia-cuda-nvcc (scripts/test does)");
        Ahead::start(ptxas, 90, 2, 4).unwrap()
    }

    fn module(seed: u64, n: usize) -> String {
        module_at(GenConfig { approximate: true, ..GenConfig::default() }, Arch::from(90), seed, n)
    }

    /// The module of `n` programs drawn from `cfg` with `seed`, for `arch`.
    fn module_at(cfg: GenConfig, arch: Arch, seed: u64, n: usize) -> String {
        let gen = Generator::new(cfg).unwrap();
        let mut rng = crate::campaign::source::Rng::new(seed);
        let programs: Vec<_> = (0..n)
            .map(|_| {
                let mut bytes = [0u8; 256];
                rng.fill(&mut bytes);
                gen.from_bytes(&bytes).0
            })
            .collect();
        let refs: Vec<_> = programs.iter().collect();
        super::super::module_for(&refs, arch, Mode::Outputs).unwrap()
    }

    #[test]
    fn modules_submitted_ahead_come_back_as_cubins_and_leave_the_pool() {
        let p = pool();
        let (a, b) = (module(1, 16), module(2, 16));
        assert!(p.submit(&a) && p.submit(&b) && p.submit(&a), "a resubmission is accepted and not queued twice");
        for text in [&b, &a] {
            let cubin = p.take(text).expect("submitted").expect("assembles");
            assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF image");
        }
        assert!(p.take(&a).is_none(), "taken once");
        assert!(p.take(&module(3, 1)).is_none(), "never submitted");
    }

    #[test]
    fn an_sm_100a_pool_assembles_the_forms_only_that_target_has() {
        let ptxas = crate::toolkit::find("ptxas").expect("ptxas: pip install nvidia-cuda-nvcc (scripts/test does)");
        let a100 = Arch { sm: 100, variant: ptx::isa::Variant::A };
        let p = Ahead::start(ptxas, a100, 1, 2).unwrap();
        let cfg = GenConfig { variant: a100.variant, ..GenConfig::for_target(100, ptx::isa::PtxVersion::new(9, 1)) };
        let text = module_at(cfg, a100, 7, 64);
        assert!(text.contains(".target sm_100a"));
        assert!(p.submit(&text));
        let cubin = p.take(&text).expect("submitted").unwrap_or_else(|log| panic!("{log}"));
        assert_eq!(&cubin[..4], b"\x7fELF");
    }

    #[test]
    fn a_module_ptxas_rejects_comes_back_with_its_log() {
        let p = pool();
        let bad = module(4, 2).replace("ret;", "ret_not_an_instruction;");
        assert!(p.submit(&bad));
        let log = p.take(&bad).unwrap().unwrap_err();
        assert!(log.starts_with("ptxas:") && log.contains("error"), "{log}");
    }

    /// Compiled mode's ptxas rate on the default programs of today's campaigns (the whole
    /// legal table, conversions and comparisons included): a batch's compiled programs (1,024
    /// when every program is compiled, about 102 at the default share of 0.1) split by
    /// [`chunks`] over a pool of one process per core, submitted at once and taken in order,
    /// as the engine does. Figures: docs/benchmarks.md ("ptxas throughput").
    /// `cargo test --release -p worker --lib -- --ignored compile_ahead_throughput --nocapture`
    #[test]
    #[ignore]
    fn compile_ahead_throughput() {
        let ptxas = crate::toolkit::find("ptxas").expect("ptxas: pip install nvidia-cuda-nvcc");
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let g = Generator::new(GenConfig { approximate: true, ..GenConfig::default() }).unwrap();
        for (n, seed) in [(102usize, 1u64), (1024, 2), (1024, 3)] {
            let items: Vec<_> = (0..n as u64).filter_map(|i| crate::campaign::source::random_item(&g, seed, i, 1)).collect();
            let programs: Vec<_> = items.iter().map(|it| &it.program).collect();
            let texts: Vec<String> =
                chunks(programs.len(), cores).into_iter().map(|r| super::super::module_for(&programs[r], 90, Mode::Outputs).unwrap()).collect();
            let pool = Ahead::start(ptxas.clone(), 90, cores, cores).unwrap();
            let t = std::time::Instant::now();
            assert!(texts.iter().all(|m| pool.submit(m)));
            for m in &texts {
                pool.take(m).expect("submitted").unwrap_or_else(|log| panic!("{log}"));
            }
            let s = t.elapsed().as_secs_f64();
            println!(
                "{} programs in {} module(s), {cores} process(es): {:.2} s, {:.0} programs/s, {:.1} ms of a core per program",
                programs.len(), texts.len(), s, programs.len() as f64 / s, s * 1e3 * cores as f64 / programs.len() as f64
            );
        }
    }

    /// How many of `texts` ptxas has finished (taken ones not counted).
    fn done(p: &Ahead, texts: &[String]) -> usize {
        let slots = p.shared.slots.lock().unwrap();
        texts.iter().filter(|t| matches!(slots.get(&fnv1a(t.as_bytes())), Some((_, Slot::Done(_))))).count()
    }

    #[test]
    fn a_module_waited_for_now_is_assembled_before_those_prepared_ahead() {
        // One process, six modules queued ahead, then one the caller waits for: it is the
        // next one assembled (after the one in progress), not the seventh.
        let ptxas = crate::toolkit::find("ptxas").expect("ptxas: pip install nvidia-cuda-nvcc (scripts/test does)");
        let p = Ahead::start(ptxas, 90, 1, 16).unwrap();
        let later: Vec<String> = (40..46).map(|s| module(s, 48)).collect();
        let urgent = module(50, 8);
        assert!(later.iter().all(|t| p.submit(t)));
        p.submit_now(&urgent);
        p.take(&urgent).expect("submitted").expect("assembles");
        assert!(done(&p, &later) <= 2, "{} of the modules prepared ahead went first", done(&p, &later));
        // One queued ahead, asked for now, moves up too.
        let last = later.last().unwrap();
        p.submit_now(last);
        p.take(last).expect("submitted").expect("assembles");
        assert!(done(&p, &later[..5]) <= 3, "{} went before the promoted one", done(&p, &later[..5]));
        for t in &later[..5] {
            p.take(t).expect("still queued").expect("assembles");
        }
    }

    #[test]
    fn a_full_queue_turns_submissions_down_instead_of_blocking() {
        let p = pool();
        let texts: Vec<String> = (10..30).map(|s| module(s, 64)).collect();
        let accepted = texts.iter().filter(|t| p.submit(t)).count();
        assert!(accepted < texts.len(), "20 modules of 64 programs cannot all wait behind 2 processes");
        assert!(accepted >= 4, "{accepted}");
        // What the caller waits for is never turned down.
        let now = module(31, 4);
        p.submit_now(&now);
        p.take(&now).expect("submitted").expect("assembles");
    }
}
