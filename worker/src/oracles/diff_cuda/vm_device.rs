//! The cuda engine as the `isa` pipeline's device (`vm_pipeline::VmDevice`): the instruction
//! VM's module (JIT-compiled once per context), its device buffers, the staging buffers
//! (`staging`), launches and waits on the default stream.
//!
//! The pipeline and the pinned staging, written in a session without a GPU (2026-12-02), ran on
//! an H200 on 2026-12-04 (docs/hardware/nvidia-h200-2026-12-04): every recorded H100 case
//! reproduced through them, and the kernel wait was 0.2 s of a 60 s isa campaign.

use std::sync::Arc;
use std::time::Instant;

use ptx::vm::Encoder;

use super::vm_batch::{on_packers, VmBatch};
use super::vm_pipeline::{Pipeline, VmDevice};
use super::{driver, ensure, guarded, CudaEngine};
use crate::oracles::engine::{EngineFault, Job, Output};
use crate::oracles::stages::{Stage, StageTimes};

impl CudaEngine {
    /// The `isa` mode: the jobs `idx` through the pipeline (`vm_pipeline`). `Err`: the device
    /// failed (the context was reset); the jobs it left unanswered take the fault.
    pub(super) fn launch_vm(&mut self, jobs: &[Job], idx: &[usize], results: &mut [Option<Result<Output, EngineFault>>]) -> Result<(), EngineFault> {
        let enc = match &self.encoder {
            Some(e) => Arc::clone(e),
            None => {
                let e = Arc::new(Encoder::new(self.arch).map_err(|e| EngineFault::Unsupported { what: e.to_string() })?);
                self.encoder = Some(Arc::clone(&e));
                e
            }
        };
        // Loaded before any packing: a VM that does not load faults the jobs at once.
        self.vm_entry()?;
        let packers = self.packers.clone();
        Pipeline::default().run(self, &enc, packers.as_deref(), jobs, idx, results)
    }

    /// The VM's entry, its module JIT-compiled on first use in this context.
    fn vm_entry(&mut self) -> Result<driver::Function, EngineFault> {
        if self.vm.is_none() {
            let t0 = Instant::now();
            let text = ptx::vm::module(self.arch).map_err(|e| EngineFault::Unsupported { what: e.to_string() })?;
            let loaded = guarded(|| driver::Module::load(&text)).map_err(|log| EngineFault::Jit { log });
            self.stages.add_since(Stage::Modules, t0);
            self.vm = Some(loaded?);
        }
        self.vm.as_ref().expect("loaded").function(ptx::vm::ENTRY).map_err(|log| EngineFault::Jit { log })
    }
}

impl VmDevice for CudaEngine {
    /// Code and program table, then the inputs written straight into the staging buffer on
    /// the packing threads (`VmBatch::write_inputs`): while the previous sub-batch's kernel
    /// runs, and with no buffer of their own (a fresh one page-faults on every first touch:
    /// docs/benchmarks.md, "The isa pipeline's host side").
    fn stage(&mut self, batch: &VmBatch, jobs: &[Job]) -> Result<(), EngineFault> {
        let t0 = Instant::now();
        let (c, p) = (batch.code.len(), batch.progs.len());
        let host = self.staging.outgoing(c + p + batch.in_len);
        let (code, rest) = host.split_at_mut(c);
        let (progs, inputs) = rest.split_at_mut(p);
        code.copy_from_slice(&batch.code);
        progs.copy_from_slice(&batch.progs);
        on_packers(self.packers.as_deref(), || batch.write_inputs(jobs, inputs));
        self.stages.add_since(Stage::Pack, t0);
        Ok(())
    }

    fn launch(&mut self, batch: &VmBatch) -> Result<(), EngineFault> {
        let f = self.vm_entry()?;
        let t0 = Instant::now();
        let (c, p, i) = (batch.code.len(), batch.progs.len(), batch.in_len);
        // Enough blocks per program to fill the GPU once every program's row is counted; the
        // grid-stride loop takes the rest of a large program's cases.
        let blocks_x = (batch.max_cases() as u32).div_ceil(driver::BLOCK).clamp(1, 1024);
        let launched = (|| -> Result<(), String> {
            let host = self.staging.staged(c + p + i);
            let code = ensure(&mut self.vm_code, c)?;
            code.upload(&host[..c])?;
            let code = code.ptr();
            let progs = ensure(&mut self.vm_progs, p)?;
            progs.upload(&host[c..c + p])?;
            let progs = progs.ptr();
            let input = ensure(&mut self.input, i)?;
            input.upload(&host[c + p..])?;
            let input = input.ptr();
            let out = ensure(&mut self.output, batch.out_len)?.ptr();
            self.stages.add_since(Stage::Upload, t0);
            for (first, n) in batch.launches(driver::MAX_GRID_Y as usize) {
                let progs = progs + (8 * super::vm_batch::PROG_WORDS * first) as u64;
                driver::launch_vm(f, [code, progs, input, out], n as u32, blocks_x)?;
            }
            Ok(())
        })();
        launched.map_err(|message| self.failed(message))
    }

    fn fetch(&mut self, out_len: usize) -> Result<(), EngineFault> {
        self.fetch_staged(out_len)
    }

    fn fetched(&self) -> &[u64] {
        self.staging.fetched()
    }

    fn stages(&mut self) -> &mut StageTimes {
        &mut self.stages
    }
}
