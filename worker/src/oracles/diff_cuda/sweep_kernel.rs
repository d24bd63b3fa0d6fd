//! The cuda engine's `sweep_chunk`: a stretch of a unary f32 or 16-bit binary form's inputs
//! through the sweep kernel (`ptx::vm::sweep`), which fingerprints every output on the GPU and,
//! with a prefilter, sends back only the pairs that need the CPU's judgement and an audit sample.
//! The module assembles in CI and the worker's sweep runs its documented semantics on the CPU
//! (`sweep::gpu`'s tests); it ran on H200s (`scripts/gpu-bench`, docs/hardware/).

use ptx::approx::prefilter::Prefilter;
use ptx::isa::Instr;
use ptx::vm::sweep::Judging;

use super::{driver, ensure, guarded, CudaEngine};
use crate::oracles::engine::{EngineFault, SweepChunk};

impl CudaEngine {
    /// One launch of the sweep kernel over `count` inputs from `start` by `stride`: the
    /// fingerprint, the pairs the prefilter kept and the audited sample.
    pub(super) fn sweep_on_gpu(
        &mut self,
        form: &Instr,
        prefilter: Option<&Prefilter>,
        start: u64,
        stride: u64,
        count: u64,
    ) -> Result<SweepChunk, EngineFault> {
        guarded(|| self.gpu.bind()).map_err(|message| EngineFault::LostContext { message })?;
        self.modules.make_room();
        let judging = prefilter.map_or(Judging::Dense, Judging::Filtered);
        // A plain module: sweeps take plain forms (ptx::vm::sweep), which load on the family too.
        let text = ptx::vm::sweep::module(form, self.arch.sm, judging).map_err(|e| EngineFault::Unsupported { what: e.to_string() })?;
        let f = self.module(text)?.function(ptx::vm::sweep::SWEEP_ENTRY).map_err(|log| EngineFault::Jit { log })?;
        let len = usize::try_from(count).map_err(|_| EngineFault::Unsupported { what: format!("{count} inputs in one launch") })?;
        // Enough blocks to fill any current GPU several times over; the loop takes the rest.
        let blocks = (count.div_ceil(driver::BLOCK as u64)).clamp(1, 8192) as u32;
        let launched = (|| -> Result<(), String> {
            ensure(&mut self.input, 3)?.upload(&[0, 0, 0])?;
            let kept = ensure(&mut self.output, len)?.ptr();
            let acc = self.input.as_ref().expect("ensured").ptr();
            driver::launch_sweep(f, [start, stride, count, acc, kept], blocks)
        })();
        self.finish(launched)?;
        // The accumulators are in `input`, the pairs in `output`.
        let mut acc = [0u64; 3];
        let read = self.input.as_ref().expect("ensured").download(&mut acc);
        // Filtered: acc[1] kept pairs from the bottom, acc[2] audited ones from the top.
        let kept = if prefilter.is_some() { (acc[1] as usize).min(len) } else { len };
        let audited = if prefilter.is_some() { (acc[2] as usize).min(len - kept) } else { 0 };
        let (mut pairs, mut audit) = (vec![0u64; kept], vec![0u64; audited]);
        let out = self.output.as_ref().expect("ensured");
        let read = read.and_then(|()| out.download(&mut pairs)).and_then(|()| out.download_at(len - audited, &mut audit));
        read.map_err(|message| self.failed(message))?;
        Ok(SweepChunk { fingerprint: acc[0], pairs, audited: audit })
    }
}
