//! Throughput of program generation and kernel emission on one core (the issue asks for at
//! least 1 M programs/s and 100 k programs/s). Ignored by default: run it with
//! `cargo test --release -p ptx --test throughput -- --ignored --nocapture`.

use std::time::Instant;

use arbitrary::Unstructured;
use ptx::gen::{seeded_bytes as bytes, GenConfig, Generator};
use ptx::kernel::{self, Mode};
use ptx::program::Program;

#[test]
#[ignore = "throughput figures; run with --ignored --nocapture in release"]
fn generation_and_emission_throughput() {
    let g = Generator::new(GenConfig { approximate: true, ..GenConfig::default() }).unwrap();
    const N: usize = 1_000_000;
    let data = bytes(1, 128 * 1024 + 256);
    // Warm up, then time generation of N programs from sliding windows of the stream; each is
    // dropped at once, as in a fuzzing loop.
    let program = |i: usize| {
        let off = (i * 131) % (data.len() - 256);
        g.program(&mut Unstructured::new(&data[off..off + 256])).unwrap()
    };
    let count = |n: usize| (0..n).map(|i| program(i).body().len()).sum::<usize>();
    count(10_000);
    let t = Instant::now();
    let instrs = count(N);
    let gen_s = t.elapsed().as_secs_f64();
    println!(
        "generation: {:.2} M programs/s ({:.2} instructions/program, {:.0} ns/program)",
        N as f64 / gen_s / 1e6,
        instrs as f64 / N as f64,
        gen_s / N as f64 * 1e9
    );

    let emit = |ps: &[Program]| -> usize {
        let mut text = String::with_capacity(1 << 20);
        let mut bytes = 0;
        for chunk in ps.chunks(100) {
            text.clear();
            kernel::write_module(&mut text, chunk, 90, Mode::Outputs).unwrap();
            bytes += text.len();
        }
        bytes
    };
    let n = 300_000;
    let ps: Vec<Program> = (0..n).map(program).collect();
    emit(&ps[..10_000]);
    let t = Instant::now();
    let bytes = emit(&ps[..n]);
    let emit_s = t.elapsed().as_secs_f64();
    println!(
        "kernel emission: {:.0} k programs/s ({:.0} bytes of PTX/program, 100 programs/module)",
        n as f64 / emit_s / 1e3,
        bytes as f64 / n as f64
    );
    assert!(bytes > 0);
}
