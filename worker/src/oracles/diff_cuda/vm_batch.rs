//! The `isa` mode's batch layout: the jobs of a batch encoded as VM bytecode (`ptx::vm`) and
//! packed into the buffers the `ptxfuzz_vm` entry reads (`code`, `progs`, `in`, `out`; layout
//! in `ptx::vm::emit`), then the output split back into one [`Output`] per job.
//!
//! Pure data, so it is tested on the CPU: [`VmBatch::emulate`] runs the packed buffers as the
//! module's documented semantics say (each program's bytecode decoded from its offset, each case
//! read from and written to its slots) with `ptx::vm`'s CPU executor, and must give what the
//! interp engine gives. The module ran on H200s (sm_90), on 2026-11-29 with the conversion
//! and comparison arms of issue 16 (docs/hardware/nvidia-h200-2026-11-29/).

use ptx::vm::{slot_shift, Bytecode, Encoder};
use rayon::prelude::*;

use super::super::engine::{EngineFault, Job, Output};

pub use ptx::vm::PROG_WORDS;

/// The packed buffers of one VM launch (or of several, [`VmBatch::launches`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VmBatch {
    pub code: Vec<u64>,
    pub progs: Vec<u64>,
    /// The input slots of all programs, each program's in its own width, as little-endian
    /// bytes in 64-bit words (each program starts on a word). Empty after [`VmBatch::plan`],
    /// which leaves them to [`VmBatch::write_inputs`] (`in_len` words).
    pub inputs: Vec<u64>,
    pub in_len: usize,
    /// 64-bit words of output slots of all programs (each program starts on a word).
    pub out_len: usize,
    /// Per packed program: its job's index, output byte offset, cases, outputs per case and
    /// output slot shift.
    packed: Vec<Packed>,
    /// Per packed program: its input words and their slot shift (`write_inputs`).
    fills: Vec<(usize, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Packed {
    job: usize,
    out_at: usize,
    cases: usize,
    per_case: usize,
    shift: u32,
}

/// The slot shift of values of these types (the widest decides; predicates need 1 bit).
fn shift_of(widths: impl Iterator<Item = u32>) -> u32 {
    widths.map(slot_shift).max().unwrap_or(1)
}

/// Words of `1 << shift`-byte slots that hold `n` values.
fn slot_words(n: usize, shift: u32) -> usize {
    n.div_ceil(8 >> shift)
}

/// Write `values` into `words` (exactly [`slot_words`] long) as slots of `1 << shift` bytes,
/// little-endian.
fn put_slots(words: &mut [u64], values: &[u64], shift: u32) {
    if shift == 3 {
        return words.copy_from_slice(values);
    }
    let (per_word, bits) = (8 >> shift, 8u32 << shift);
    for (w, chunk) in words.iter_mut().zip(values.chunks(per_word)) {
        *w = chunk.iter().enumerate().fold(0u64, |w, (k, &v)| w | (v << (k as u32 * bits)));
    }
}

/// Slots `0..n` of `1 << shift` bytes from the byte stream that starts at word `at` of
/// `words`, each widened to 64 bits (one pass over the words: no division per slot).
fn get_slots(words: &[u64], at: usize, n: usize, shift: u32) -> Vec<u64> {
    let per_word = 8 >> shift;
    let words = &words[at..at + slot_words(n, shift)];
    if shift == 3 {
        return words.to_vec();
    }
    let bits = 8u32 << shift;
    let mask = (1u64 << bits) - 1;
    let mut values = Vec::with_capacity(words.len() * per_word);
    for &w in words {
        values.extend((0..per_word as u32).map(|k| (w >> (k * bits)) & mask));
    }
    values.truncate(n);
    values
}

/// Slot `i` of `1 << shift` bytes from the byte stream that starts at word `at` of `words`.
#[cfg(test)]
fn get_slot(words: &[u64], at: usize, i: usize, shift: u32) -> u64 {
    let per_word = 8 >> shift;
    let w = words[at + i / per_word];
    if shift == 3 {
        w
    } else {
        let bits = 8u32 << shift;
        (w >> ((i % per_word) as u32 * bits)) & ((1u64 << bits) - 1)
    }
}

/// The engine's own threads for packing and unpacking `isa` batches (`VmBatch`): a quarter of
/// the cores, 1 to 8. While the engine runs batch k+1, the campaign judges batch k on the global
/// pool, whose workers take their own queued judging before work injected from outside; on
/// that pool the packing would wait for the judge, and the GPU with it.
pub fn packers() -> Option<rayon::ThreadPool> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    rayon::ThreadPoolBuilder::new().num_threads(packer_threads(cores)).thread_name(|i| format!("ptxfuzz-vm-pack-{i}")).build().ok()
}

/// The packing threads [`packers`] starts on a host of `cores` cores.
pub fn packer_threads(cores: usize) -> usize {
    (cores / 4).clamp(1, 8)
}

/// `work` on the engine's packing threads, or on the global pool without them.
pub fn on_packers<T: Send>(packers: Option<&rayon::ThreadPool>, work: impl FnOnce() -> T + Send) -> T {
    match packers {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// One job encoded, on any thread ([`VmBatch::pack`]).
struct Encoded {
    code: Bytecode,
    cases: usize,
    per_case: usize,
    in_shift: u32,
    out_shift: u32,
}

impl VmBatch {
    /// [`VmBatch::plan`] with the inputs written into a buffer of the batch's own (`inputs`):
    /// what [`VmBatch::emulate`] reads.
    #[cfg(test)]
    pub fn pack(enc: &Encoder, jobs: &[Job], idx: &[usize]) -> (VmBatch, Vec<(usize, EngineFault)>) {
        let (mut b, faults) = VmBatch::plan(enc, jobs, idx);
        let mut inputs = vec![0; b.in_len];
        b.write_inputs(jobs, &mut inputs);
        b.inputs = inputs;
        (b, faults)
    }

    /// Plan the jobs `idx` of `jobs` (already checked), in order: code, program table and
    /// layout, every job encoded on every core; the inputs are then written where the device
    /// copies them from ([`VmBatch::write_inputs`]: the cuda engine's staging buffer), not into
    /// a fresh buffer. A job whose program the VM cannot run (a form without an arm, too many
    /// registers) comes back as its fault; a traced one runs as its program with every result
    /// an output ([`encode`]). Slots are as narrow as the program's values (`ptx::vm::emit`):
    /// a program of 16-bit values moves 2 bytes per input and output, not 8.
    pub fn plan(enc: &Encoder, jobs: &[Job], idx: &[usize]) -> (VmBatch, Vec<(usize, EngineFault)>) {
        // Packing by growing and concatenating buffers on one thread, and unpacking slot by
        // slot, held a campaign batch (1 M cases) to 30 M cases/s on the development VM: near
        // the H200 engine's 17 to 23 M and far below issue 12's 100 M (docs/benchmarks.md,
        // "The isa engine's CPU half"). So: jobs encoded on every core, the input buffer
        // sized once, each job's inputs written into its own part of it on every core.
        let encoded: Vec<(usize, Result<Encoded, EngineFault>)> = idx.par_iter().map(|&k| (k, encode(enc, &jobs[k]))).collect();
        let mut b = VmBatch::default();
        let mut faults = Vec::new();
        for (k, e) in encoded {
            let e = match e {
                Ok(e) => e,
                Err(f) => {
                    faults.push((k, f));
                    continue;
                }
            };
            let words = slot_words(jobs[k].cases.len(), e.in_shift);
            b.progs.extend([
                b.code.len() as u64,
                8 * b.in_len as u64,
                8 * b.out_len as u64,
                e.cases as u64,
                e.in_shift as u64,
                e.out_shift as u64,
            ]);
            b.packed.push(Packed { job: k, out_at: b.out_len, cases: e.cases, per_case: e.per_case, shift: e.out_shift });
            b.code.extend_from_slice(e.code.words());
            b.fills.push((words, e.in_shift));
            b.in_len += words;
            b.out_len += slot_words(e.cases * e.per_case, e.out_shift);
        }
        (b, faults)
    }

    /// Write the planned jobs' inputs (of `jobs`, as given to [`VmBatch::plan`]) into `dst`,
    /// exactly [`VmBatch::in_len`] words, each job's part on its own core.
    pub fn write_inputs(&self, jobs: &[Job], dst: &mut [u64]) {
        assert_eq!(dst.len(), self.in_len, "the planned input length");
        let mut parts = Vec::with_capacity(self.fills.len());
        let mut rest = dst;
        for (p, &(words, shift)) in self.packed.iter().zip(&self.fills) {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(words);
            parts.push((part, jobs[p.job].cases, shift));
            rest = tail;
        }
        parts.into_par_iter().for_each(|(part, values, shift)| put_slots(part, values, shift));
    }

    /// Programs packed.
    pub fn programs(&self) -> usize {
        self.packed.len()
    }

    /// The most cases any packed program has (sizes the grid's x dimension).
    pub fn max_cases(&self) -> usize {
        self.packed.iter().map(|p| p.cases).max().unwrap_or(0)
    }

    /// `(first program, programs)` of each launch: the grid's y dimension holds at most
    /// `per_launch` programs; a launch's `progs` pointer is offset by `first * PROG_WORDS`.
    pub fn launches(&self, per_launch: usize) -> Vec<(usize, usize)> {
        let per = per_launch.max(1);
        (0..self.programs()).step_by(per).map(|s| (s, per.min(self.programs() - s))).collect()
    }

    /// Each packed job's [`Output`] from the whole output buffer (slots widened to 64 bits),
    /// each job on its own core.
    pub fn unpack(&self, out: &[u64]) -> Vec<(usize, Output)> {
        self.packed
            .par_iter()
            .map(|p| (p.job, Output { values: get_slots(out, p.out_at, p.cases * p.per_case, p.shift), per_case: p.per_case }))
            .collect()
    }

    /// What the `ptxfuzz_vm` module computes from these buffers, on the CPU (`ptx::vm`'s
    /// executor, the interpreter's primary results): the output buffer.
    #[cfg(test)]
    pub fn emulate(&self, sm: u32) -> Result<Vec<u64>, ptx::vm::VmError> {
        let mut out = vec![0u64; self.out_len];
        for p in self.progs.chunks_exact(PROG_WORDS) {
            let (code, input, output, cases) = (p[0] as usize, p[1] as usize, p[2] as usize, p[3] as usize);
            let (in_shift, out_shift) = (p[4] as u32, p[5] as u32);
            assert!(input % 8 == 0 && output % 8 == 0, "programs start on a word");
            // The header's counts, as the module's prologue reads them.
            let h = self.code[code];
            let (k, n, m) = ((h & 0xffff) as usize, (h >> 16 & 0xffff) as usize, (h >> 32 & 0xffff) as usize);
            let d = Bytecode::from_words(sm, self.code[code..code + 1 + n + m].to_vec()).decode()?;
            for i in 0..cases {
                let ins: Vec<u64> = (0..k).map(|j| get_slot(&self.inputs, input / 8, k * i + j, in_shift)).collect();
                for (o, v) in d.run(&ins)?.into_iter().enumerate() {
                    // The store writes the slot's low bytes into its place in the word.
                    let (slot, bits) = (m * i + o, 8u32 << out_shift);
                    let per_word = 8 >> out_shift;
                    let w = &mut out[output / 8 + slot / per_word];
                    let at = (slot % per_word) as u32 * bits;
                    let mask = if bits == 64 { u64::MAX } else { ((1u64 << bits) - 1) << at };
                    *w = (*w & !mask) | ((v << at) & mask);
                }
            }
        }
        Ok(out)
    }
}

/// `job` as the VM runs it: a traced job as its program with every result an output
/// (`Program::traced`: the VM stores outputs only, and each instruction still runs alone), its
/// bytecode and its inputs in slots as narrow as its values.
fn encode(enc: &Encoder, job: &Job) -> Result<Encoded, EngineFault> {
    let traced;
    let p = if job.trace {
        traced = job.program.traced();
        &traced
    } else {
        job.program
    };
    let code = enc.encode(p).map_err(|e| EngineFault::Unsupported { what: e.to_string() })?;
    let in_shift = shift_of(p.inputs().iter().map(|&t| t.bits()));
    // A register's width: 1 for a predicate, an integer's register (16 for 8 bits).
    let out_shift = shift_of(p.outputs().iter().map(|&r| p.reg_type(r).bits()));
    Ok(Encoded { code, cases: job.n_cases(), per_case: p.outputs().len(), in_shift, out_shift })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::diff_interp::InterpEngine;
    use crate::oracles::Engine;
    use ptx::gen::{GenConfig, Generator};
    use ptx::program::Program;

    #[test]
    fn packed_batches_run_as_the_interpreter_runs_their_jobs() {
        let g = Generator::new(GenConfig::default()).unwrap();
        let mut rng = crate::campaign::source::Rng::new(11);
        let mut items: Vec<(Program, Vec<u64>)> = Vec::new();
        for i in 0..300u64 {
            let mut bytes = [0u8; 256];
            rng.fill(&mut bytes);
            let (p, _) = g.from_bytes(&bytes);
            let mut cases = Vec::new();
            let mut u = arbitrary::Unstructured::new(&bytes);
            for _ in 0..(1 + i % 9) {
                cases.extend(g.case(&mut u, &p).unwrap());
            }
            items.push((p, cases));
        }
        let jobs: Vec<Job> = items.iter().map(|(p, c)| Job::new(p, c, false)).collect();
        let enc = Encoder::new(90).unwrap();
        let idx: Vec<usize> = (0..jobs.len()).collect();
        let (batch, faults) = VmBatch::pack(&enc, &jobs, &idx);
        assert!(faults.is_empty(), "{faults:?}");
        assert_eq!(batch.programs(), 300);
        assert_eq!(batch.max_cases(), 9);
        let out = batch.emulate(90).unwrap();
        let want = InterpEngine::new().run(&jobs);
        for (k, got) in batch.unpack(&out) {
            assert_eq!(Ok(got), want[k], "job {k}: {}", jobs[k].program);
        }
    }

    #[test]
    fn a_traced_job_packs_as_its_program_with_every_result_an_output() {
        // What a traced `isa` job is on a GPU: outputs, then every instruction's result, each
        // instruction alone (issue 12 "isa"; the H200 showed a one-kernel trace is not that).
        let p = Program::parse("// inputs: %f0:f32, %f1:f32\nadd.rz.f32 %f2, %f0, %f1;\nmul.rn.f32 %f3, %f2, %f2;\nneg.f32 %f4, %f3;\n// outputs: %f4\n").unwrap();
        let cases = [0x3f00_0000u64, 0x3304_0000, 0x4000_0000, 0x3f80_0000];
        let jobs = [Job::new(&p, &cases, true)];
        let (batch, faults) = VmBatch::pack(&Encoder::new(90).unwrap(), &jobs, &[0]);
        assert!(faults.is_empty(), "{faults:?}");
        let got = batch.unpack(&batch.emulate(90).unwrap());
        let want = InterpEngine::new().run(&jobs);
        assert_eq!(got[0].1.per_case, 4, "one output and three instructions");
        assert_eq!(Ok(got[0].1.clone()), want[0]);
    }

    #[test]
    fn a_form_without_an_arm_is_the_job_fault_and_the_rest_still_pack() {
        // sm_80 has no f32x2 arithmetic (PTX 8.6, sm_100): its VM has no arm for it.
        let p = Program::parse("// inputs: %rd0:f32x2\nadd.rn.f32x2 %rd1, %rd0, %rd0;\n// outputs: %rd1\n").unwrap();
        let q = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
        let (a, b) = ([1u64], [0x3f80_0000u64, 0]);
        let jobs = [Job::new(&p, &a, false), Job::new(&q, &b, false)];
        let (batch, faults) = VmBatch::pack(&Encoder::new(80).unwrap(), &jobs, &[0, 1]);
        assert_eq!(faults.len(), 1);
        assert_eq!(faults[0].0, 0);
        assert!(faults[0].1.to_string().contains("no arm in the sm_80 VM"), "{}", faults[0].1);
        let out = batch.emulate(80).unwrap();
        assert_eq!(batch.unpack(&out), vec![(1, Output { values: vec![0xbf80_0000, 0x8000_0000], per_case: 1 })]);
    }

    #[test]
    fn slots_are_as_narrow_as_the_programs_values() {
        // f16 in and out: 2-byte slots, 4 per word; f32 with a predicate output: 4-byte
        // slots; f64: 8. Each program starts on a word.
        let h = Program::parse("// inputs: %h0:f16, %h1:f16\nadd.rn.f16 %h2, %h0, %h1;\n// outputs: %h2\n").unwrap();
        let f = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\ntestp.notanumber.f32 %p2, %f0;\n// outputs: %f1, %p2\n").unwrap();
        let d = Program::parse("// inputs: %fd0:f64\nneg.f64 %fd1, %fd0;\n// outputs: %fd1\n").unwrap();
        let hc = [0x3c00u64, 0x4000, 0x3c00, 0x3c00, 0x7e00, 0x3c00];
        let fc = [0x3f80_0000u64, 0x7fc0_0000, 0];
        let dc = [0x3ff0_0000_0000_0000u64];
        let jobs = [Job::new(&h, &hc, false), Job::new(&f, &fc, false), Job::new(&d, &dc, false)];
        let (batch, faults) = VmBatch::pack(&Encoder::new(90).unwrap(), &jobs, &[0, 1, 2]);
        assert!(faults.is_empty());
        // Inputs: 6 half values in 2 words, 3 f32 in 2, 1 f64 in 1 (8-byte slots: 5 + 3 + 1 words).
        assert_eq!(batch.inputs.len(), 2 + 2 + 1);
        assert_eq!(batch.inputs[0], 0x3c00_3c00_4000_3c00);
        assert_eq!(&batch.progs[..PROG_WORDS], &[0, 0, 0, 3, 1, 1]);
        assert_eq!(&batch.progs[PROG_WORDS + 1..2 * PROG_WORDS], &[16, 8, 3, 2, 2]);
        assert_eq!(&batch.progs[2 * PROG_WORDS + 1..], &[32, 32, 1, 3, 3]);
        // Outputs: 3 halves in 1 word, 6 f32/predicate slots in 3, 1 f64 in 1.
        assert_eq!(batch.out_len, 1 + 3 + 1);
        let out = batch.emulate(90).unwrap();
        let want = InterpEngine::new().run(&jobs);
        for (k, got) in batch.unpack(&out) {
            assert_eq!(Ok(got), want[k], "job {k}");
        }
    }

    #[test]
    fn slots_read_in_one_pass_are_the_slots_read_one_by_one_and_round_trip() {
        let words: Vec<u64> = (1..=9u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        for shift in 1..=3u32 {
            let per_word = 8usize >> shift;
            for at in 0..3 {
                for n in 0..=(words.len() - at) * per_word {
                    let want: Vec<u64> = (0..n).map(|i| get_slot(&words, at, i, shift)).collect();
                    let got = get_slots(&words, at, n, shift);
                    assert_eq!(got, want, "shift {shift}, word {at}, {n} slots");
                    // Written back, they are the words they came from (the tail slot zeroed).
                    let mut back = vec![u64::MAX; slot_words(n, shift)];
                    put_slots(&mut back, &got, shift);
                    assert_eq!(back.len(), n.div_ceil(per_word));
                    assert_eq!(get_slots(&back, 0, n, shift), got);
                    if n % per_word == 0 {
                        assert_eq!(back, words[at..at + n / per_word]);
                    }
                }
            }
        }
    }

    #[test]
    fn a_batch_packed_on_the_engines_own_threads_is_the_batch_packed_on_the_global_pool() {
        let g = Generator::new(GenConfig::default()).unwrap();
        let items: Vec<_> = (0..200).filter_map(|i| crate::campaign::source::random_item(&g, 3, i, 1 + (i as usize % 70))).collect();
        let jobs: Vec<Job> = items.iter().enumerate().map(|(i, it)| Job::new(&it.program, &it.cases, i % 5 == 0)).collect();
        let (enc, idx): (Encoder, Vec<usize>) = (Encoder::new(90).unwrap(), (0..jobs.len()).collect());
        let pool = packers().expect("a pool of 1 to 8 threads");
        assert!((1..=8).contains(&pool.current_num_threads()));
        let (here, faults) = VmBatch::pack(&enc, &jobs, &idx);
        let (there, _) = on_packers(Some(&pool), || VmBatch::pack(&enc, &jobs, &idx));
        assert!(faults.is_empty(), "{faults:?}");
        assert_eq!(here, there);
        let out = here.emulate(90).unwrap();
        let unpacked = on_packers(Some(&pool), || here.unpack(&out));
        assert_eq!(unpacked, here.unpack(&out));
        let want = InterpEngine::new().run(&jobs);
        for (k, got) in unpacked {
            assert_eq!(Ok(got), want[k], "job {k}: {}", jobs[k].program);
        }
    }

    /// The CPU half of an `isa` engine call (encode and pack a campaign batch of 1,024 default
    /// programs of 1,024 cases, then unpack its outputs) on the global pool, one thread with
    /// `RAYON_NUM_THREADS=1`: issue 12's 100 M cases/s on a GPU needs it well above that.
    /// Figures: docs/benchmarks.md ("The isa engine's CPU half"). `cargo test --release -p
    /// worker --lib -- --ignored vm_batch_cpu_half_throughput --nocapture`
    #[test]
    #[ignore]
    fn vm_batch_cpu_half_throughput() {
        let g = Generator::new(GenConfig::default()).unwrap();
        let items: Vec<_> = (0..1024).filter_map(|i| crate::campaign::source::random_item(&g, 7, i, 1024)).collect();
        let jobs: Vec<Job> = items.iter().map(|it| Job::new(&it.program, &it.cases, false)).collect();
        let cases: usize = jobs.iter().map(|j| j.n_cases()).sum();
        let enc = Encoder::new(90).unwrap();
        let idx: Vec<usize> = (0..jobs.len()).collect();
        let (mut pack, mut unpack) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let (batch, faults) = VmBatch::pack(&enc, &jobs, &idx);
            pack = pack.min(t.elapsed().as_secs_f64());
            assert!(faults.is_empty());
            let out = vec![0x5555_5555_5555_5555u64; batch.out_len];
            let t = std::time::Instant::now();
            let outputs = batch.unpack(&out);
            unpack = unpack.min(t.elapsed().as_secs_f64());
            assert_eq!(outputs.len(), jobs.len());
        }
        let rate = |s: f64| cases as f64 / s / 1e6;
        println!("{cases} cases, {} programs: pack {:.1} ms ({:.0} M cases/s), unpack {:.1} ms ({:.0} M cases/s), both {:.0} M cases/s",
            jobs.len(), pack * 1e3, rate(pack), unpack * 1e3, rate(unpack), rate(pack + unpack));
    }

    #[test]
    fn launches_split_the_programs_by_the_grid_limit() {
        let one = Packed { job: 0, out_at: 0, cases: 1, per_case: 1, shift: 3 };
        let b = VmBatch { packed: vec![one; 5], ..VmBatch::default() };
        assert_eq!(b.launches(2), vec![(0, 2), (2, 2), (4, 1)]);
        assert_eq!(b.launches(65_535), vec![(0, 5)]);
        assert_eq!(VmBatch::default().launches(3), vec![]);
    }
}
