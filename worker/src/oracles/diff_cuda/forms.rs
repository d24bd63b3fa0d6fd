//! The cuda engine's `run_forms`: a form outside `Instr` (`ptx::form`) as its batched kernel
//! (`ptx::form_kernel`), one module per form and target (cached like every module), launched
//! through the same `(in, out, n)` entry as the compiled programs.
//! Every form's module assembles with ptxas in CI (`ptx/tests/ptxas_cvt.rs`); on an H200
//! (2026-11-29) it recorded all 4,691 sm_90 forms (docs/hardware/nvidia-h200-2026-11-29/);
//! README, "Conversions and comparisons".

use ptx::form::Form;
use ptx::{form_kernel, kernel};

use super::{driver, ensure, guarded, CudaEngine};
use crate::oracles::engine::EngineFault;

impl CudaEngine {
    /// The `.target` of `form`'s module on this engine's sm (the form's own suffix there: an
    /// sm_100a or sm_100f module loads on an sm_100 GPU), or why it cannot run here.
    pub(super) fn form_target(&self, form: &Form) -> Result<String, EngineFault> {
        form.target_on(self.arch.sm).ok_or_else(|| EngineFault::Unsupported {
            what: format!("{form} needs {} ({}); this engine compiles for {}", form.needs().target(), form.needs().section, self.arch),
        })
    }

    /// Upload `cases`, launch the form's kernel over them, download one word per case.
    pub(super) fn forms_on_gpu(&mut self, form: &Form, cases: &[u64]) -> Result<Vec<u64>, EngineFault> {
        let target = self.form_target(form)?;
        let k = form.sources().len();
        if cases.len() % k != 0 {
            return Err(EngineFault::Invalid { message: format!("{} values is not a whole number of cases of {k} operand(s) of {form}", cases.len()) });
        }
        let n = cases.len() / k;
        if n == 0 {
            return Ok(Vec::new());
        }
        let n32 = u32::try_from(n).map_err(|_| EngineFault::Unsupported { what: format!("{n} cases in one launch") })?;
        guarded(|| self.gpu.bind()).map_err(|message| EngineFault::LostContext { message })?;
        self.modules.make_room();
        let ptx = form.needs().ptx.max(kernel::min_ptx_for_sm(self.arch.sm).expect("checked in new"));
        let f = self.module(form_kernel::module(form, &target, ptx))?.function("forms").map_err(|log| EngineFault::Jit { log })?;
        let launched = (|| -> Result<(), String> {
            ensure(&mut self.input, cases.len())?.upload(cases)?;
            let out = ensure(&mut self.output, n)?.ptr();
            let input = self.input.as_ref().expect("ensured").ptr();
            driver::launch(f, input, out, n32)
        })();
        self.collect(launched, n)
    }
}
