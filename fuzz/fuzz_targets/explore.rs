//! Coverage-guided exploration of the interpreter: each input decodes (`ptx::gen::from_bytes`
//! with `fuzz/explore.json`) into a program and an input case, which runs in the interpreter
//! under `ptx_fuzz::check_run`'s invariants; its kernel must emit. The corpus this grows
//! (`fuzz/corpus/explore`, raw inputs) is a program source: decode each file with the same
//! config to replay it (docs/fuzzing.md).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let g = ptx_fuzz::explore_generator();
    let (p, case) = g.from_bytes(data);
    ptx_fuzz::check_run(&p, &case);
    if let Err(e) = ptx::kernel::module(&[&p], g.config().sm, ptx::kernel::Mode::Outputs) {
        panic!("no kernel for a generated program ({e}):\n{p}");
    }
});
