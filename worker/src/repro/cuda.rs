//! The `repro.cu` of a finding: the generator lives in `api::repro::cuda` (the server offers
//! the same file as a download); this is the worker's entry point to it.

use anyhow::Result;

use super::Reproducer;

/// The `.cu` source for `r` (see `api::repro::cuda` for what it does).
pub fn source(r: &Reproducer) -> Result<String> {
    Ok(api::repro::cuda::source(r)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repro::tests::sample;

    #[test]
    fn source_runs_the_case_in_asm_and_through_the_ptx_module() {
        let src = source(&sample()).unwrap();
        assert!(src.contains("asm volatile(\"add.rz.f32 %0, %1, %2;\" : \"=f\"(r2) : \"f\"(r0), \"f\"(r1));"), "{src}");
        assert!(src.contains("const unsigned long long in[2] = {0x3f000000ULL, 0x33040000ULL};"), "{src}");
        assert!(src.contains(".visible .entry p0("), "{src}");
    }
}
