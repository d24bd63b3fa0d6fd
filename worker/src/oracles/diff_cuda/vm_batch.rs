//! The `isa` mode's batch layout: the jobs of a batch encoded as VM bytecode (`ptx::vm`) and
//! packed into the buffers the `ptxfuzz_vm` entry reads (`code`, `progs`, `in`, `out`; layout
//! in `ptx::vm::emit`), then the output split back into one [`Output`] per job.
//!
//! Pure data, so it is tested on the CPU: [`VmBatch::emulate`] runs the packed buffers as the
//! module's documented semantics say (each program's bytecode decoded from its offset, each case
//! read from and written to its slots) with `ptx::vm`'s CPU executor, and must give what the
//! interp engine gives. The module itself has not run on a GPU yet (docs/engines.md).

use ptx::vm::Encoder;
#[cfg(test)]
use ptx::vm::Bytecode;

use super::super::engine::{EngineFault, Job, Output};

/// Words per program in `progs`: code offset, input offset, output offset, cases.
pub const PROG_WORDS: usize = 4;

/// The packed buffers of one VM launch (or of several, [`VmBatch::launches`]).
#[derive(Debug, Default)]
pub struct VmBatch {
    pub code: Vec<u64>,
    pub progs: Vec<u64>,
    pub inputs: Vec<u64>,
    /// Output slots of all programs.
    pub out_len: usize,
    /// Per packed program: its job's index, output offset, cases and outputs per case.
    packed: Vec<(usize, usize, usize, usize)>,
}

impl VmBatch {
    /// Pack the jobs `idx` of `jobs` (outputs mode, already checked). A job whose program the
    /// VM cannot run (a form without an arm, too many registers) comes back as its fault.
    pub fn pack(enc: &Encoder, jobs: &[Job], idx: &[usize]) -> (VmBatch, Vec<(usize, EngineFault)>) {
        let mut b = VmBatch::default();
        let mut faults = Vec::new();
        for &k in idx {
            let job = &jobs[k];
            debug_assert!(!job.trace, "the VM stores outputs only");
            let code = match enc.encode(job.program) {
                Ok(c) => c,
                Err(e) => {
                    faults.push((k, EngineFault::Unsupported { what: e.to_string() }));
                    continue;
                }
            };
            let (n, m) = (job.n_cases(), job.program.outputs().len());
            b.progs.extend([b.code.len() as u64, b.inputs.len() as u64, b.out_len as u64, n as u64]);
            b.packed.push((k, b.out_len, n, m));
            b.code.extend_from_slice(code.words());
            b.inputs.extend_from_slice(job.cases);
            b.out_len += n * m;
        }
        (b, faults)
    }

    /// Programs packed.
    pub fn programs(&self) -> usize {
        self.packed.len()
    }

    /// The most cases any packed program has (sizes the grid's x dimension).
    pub fn max_cases(&self) -> usize {
        self.packed.iter().map(|p| p.2).max().unwrap_or(0)
    }

    /// `(first program, programs)` of each launch: the grid's y dimension holds at most
    /// `per_launch` programs; a launch's `progs` pointer is offset by `first * PROG_WORDS`.
    pub fn launches(&self, per_launch: usize) -> Vec<(usize, usize)> {
        let per = per_launch.max(1);
        (0..self.programs()).step_by(per).map(|s| (s, per.min(self.programs() - s))).collect()
    }

    /// Each packed job's [`Output`] from the whole output buffer.
    pub fn unpack(&self, out: &[u64]) -> Vec<(usize, Output)> {
        self.packed
            .iter()
            .map(|&(k, o, n, m)| (k, Output { values: out[o..o + n * m].to_vec(), per_case: m }))
            .collect()
    }

    /// What the `ptxfuzz_vm` module computes from these buffers, on the CPU (`ptx::vm`'s
    /// executor, the interpreter's primary results): the output buffer.
    #[cfg(test)]
    pub fn emulate(&self, sm: u32) -> Result<Vec<u64>, ptx::vm::VmError> {
        let mut out = vec![0u64; self.out_len];
        for p in self.progs.chunks_exact(PROG_WORDS) {
            let (code, input, output, cases) = (p[0] as usize, p[1] as usize, p[2] as usize, p[3] as usize);
            // The header's counts, as the module's prologue reads them.
            let h = self.code[code];
            let (k, n, m) = ((h & 0xffff) as usize, (h >> 16 & 0xffff) as usize, (h >> 32 & 0xffff) as usize);
            let d = Bytecode::from_words(sm, self.code[code..code + 1 + n + m].to_vec()).decode()?;
            for i in 0..cases {
                let r = d.run(&self.inputs[input + k * i..input + k * (i + 1)])?;
                out[output + m * i..output + m * (i + 1)].copy_from_slice(&r);
            }
        }
        Ok(out)
    }
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
    fn launches_split_the_programs_by_the_grid_limit() {
        let b = VmBatch { packed: vec![(0, 0, 1, 1); 5], ..VmBatch::default() };
        assert_eq!(b.launches(2), vec![(0, 2), (2, 2), (4, 1)]);
        assert_eq!(b.launches(65_535), vec![(0, 5)]);
        assert_eq!(VmBatch::default().launches(3), vec![]);
    }
}
