//! Where a campaign's programs and cases come from: a corpus replayed first (when given),
//! then random programs from `ptx::gen`, produced on their own thread into a bounded queue.
//!
//! Randomness is SplitMix64 seeded by `--seed`, turned into the byte streams `ptx::gen`
//! reads: random program number `i` (and its cases) from a stream of its own (`program_rng`),
//! the corpus's extra cases from one stream, so a seed always gives the same programs and
//! cases, whatever the number of threads. Random programs are generated a batch at a time on
//! the rayon pool, so the source uses every `--jobs` thread, not one.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use arbitrary::Unstructured;
use ptx::gen::{Choices, Draw, Generator};
use ptx::program::Program;
use rayon::prelude::*;

use crate::repro::{Reproducer, ReproducerExt};

/// Batches the source may run ahead of the engine (memory stays flat whatever the speeds).
pub const QUEUE: usize = 2;

/// One program and its cases (flat: `program.inputs().len()` values per case).
#[derive(Clone, Debug)]
pub struct Item {
    pub program: Program,
    pub cases: Vec<u64>,
    /// The corpus file it came from, if any.
    pub origin: Option<PathBuf>,
}

/// Programs whose cases add up to about the batch size.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub items: Vec<Item>,
}

impl Batch {
    pub fn cases(&self) -> u64 {
        self.items.iter().map(|i| (i.cases.len() / i.program.inputs().len().max(1)) as u64).sum()
    }
}

/// How the source produces.
#[derive(Clone, Debug)]
pub struct SourceConfig {
    pub seed: u64,
    /// Cases per random program.
    pub cases_per_program: usize,
    /// Cases per batch (programs are added until it is reached).
    pub cases_per_batch: usize,
    /// Programs with their cases, sent first as they are (a hardware capture's recorded
    /// cases under `--target replay:PATH`).
    pub recorded: Vec<Item>,
    /// Corpus files, replayed after the recorded items.
    pub corpus: Vec<PathBuf>,
    /// Go on with random programs after the corpus.
    pub random: bool,
    /// Stop after this many cases in all.
    pub max_cases: Option<u64>,
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough to drive a generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_f42d_4c95_7f2d)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fill `buf` with random bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        // Whole words first: a copy of constant length compiles to one store, where a
        // variable-length one was a `memmove` call per word in the campaign's profile.
        let mut words = buf.chunks_exact_mut(8);
        for chunk in &mut words {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        let rest = words.into_remainder();
        if !rest.is_empty() {
            let n = rest.len();
            rest.copy_from_slice(&self.next_u64().to_le_bytes()[..n]);
        }
    }
}

/// The files of a corpus folder, sorted by name (hidden files skipped).
pub fn corpus_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("cannot read corpus folder {}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file() && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    files.sort();
    Ok(files)
}

/// Decode one corpus file: a ptxfuzz reproducer (its case), a program in JSON (random
/// cases), or else raw bytes of the `explore` fuzz target, which `ptx::gen` decodes as the
/// fuzz target does: a program from the stream, then its case from the rest of the same
/// stream (`Generator::program`, then `Generator::case`; this is `ptx::gen::from_bytes`).
pub fn decode(gen: &Generator, bytes: &[u8]) -> Option<(Program, Vec<u64>)> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        let t = text.trim_start();
        if t.starts_with('{') {
            if let Ok(r) = serde_json::from_str::<Reproducer>(t) {
                return r.case().ok().map(|c| (c.program, c.inputs));
            }
            if let Ok(p) = Program::from_json(t) {
                let mut u = Unstructured::new(&[]);
                let case = gen.case(&mut u, &p).ok()?;
                return Some((p, case));
            }
        }
    }
    let mut u = Unstructured::new(bytes);
    let p = gen.program(&mut u).ok()?;
    let case = gen.case(&mut u, &p).ok()?;
    Some((p, case))
}

/// Fewest cases per program drawn from the generator itself before mixing.
const MIN_BASE: usize = 64;

/// A campaign's operand choices drawn straight from the [`Rng`], a few bits at a time: a
/// coin one bit, a chance or an index 16, a word 64 (`ptx::gen::Draw`). The same generator
/// decoding a byte stream through `Unstructured` spent 12 bytes and a dozen bounds checks per
/// value, about a quarter of an interp campaign's time (`perf`, docs/benchmarks.md). Random
/// cases need the generator's distributions, not its byte format (that is the corpus's, which
/// still decodes through `Unstructured`).
pub struct Bits<'a> {
    rng: &'a mut Rng,
    word: u64,
    left: u32,
}

impl<'a> Bits<'a> {
    pub fn new(rng: &'a mut Rng) -> Bits<'a> {
        Bits { rng, word: 0, left: 0 }
    }

    #[inline]
    fn take(&mut self, k: u32) -> u64 {
        if self.left < k {
            self.word = self.rng.next_u64();
            self.left = 64;
        }
        let v = self.word & ((1u64 << k) - 1);
        self.word >>= k;
        self.left -= k;
        v
    }
}

/// True with probability `thr / 65536`, from 16 random bits.
#[inline]
fn chance16(bits: u64, thr: u32) -> bool {
    bits as u32 + thr >= 65536
}

/// Uniform in `0..n` from 16 random bits by multiply-shift: a bias below n / 2^16, and the
/// lists indexed are short (33 specials, a program's inputs).
#[inline]
fn index16(bits: u64, n: usize) -> usize {
    debug_assert!((1..=1 << 16).contains(&n));
    (bits as usize * n) >> 16
}

impl Draw for Bits<'_> {
    #[inline]
    fn coin(&mut self) -> arbitrary::Result<bool> {
        Ok(self.take(1) == 1)
    }
    #[inline]
    fn chance(&mut self, thr: u32) -> arbitrary::Result<bool> {
        Ok(chance16(self.take(16), thr))
    }
    #[inline]
    fn index(&mut self, n: usize) -> arbitrary::Result<usize> {
        Ok(index16(self.take(16), n))
    }
    #[inline]
    fn word(&mut self) -> arbitrary::Result<u64> {
        Ok(self.rng.next_u64())
    }
    #[inline]
    fn quarter(&mut self) -> arbitrary::Result<u8> {
        Ok(self.take(2) as u8)
    }
    /// All of a value's choices from two fresh words, whatever they turn out to be: no
    /// branch on the outcome (the one-at-a-time default mispredicted about twice per value).
    #[inline]
    fn choices(&mut self, special: u32, specials: usize) -> arbitrary::Result<Choices> {
        let (word, r) = (self.rng.next_u64(), self.rng.next_u64());
        Ok(Choices {
            negative: r & 1 == 1,
            special: chance16((r >> 1) & 0xffff, special),
            index: index16((r >> 17) & 0xffff, specials),
            word,
            exponent: (r >> 33) & 1 == 1,
        })
    }
}

/// `n` random cases for `p`, appended to `out`. A quarter (at least [`MIN_BASE`]) come from
/// the generator as they are (its choices from [`Bits`]), with their relations between inputs
/// (equal, negated, one ulp apart); the rest combine inputs of those cases column by column
/// (input `j` of a random base case for every `j`), which meets more pairs of special values
/// and costs a fraction of generating.
pub fn random_cases(gen: &Generator, rng: &mut Rng, p: &Program, n: usize, out: &mut Vec<u64>) {
    let k = p.inputs().len();
    let base = n.min(MIN_BASE.max(n / 4));
    let mut generated = Vec::with_capacity(base * k);
    let mut bits = Bits::new(rng);
    for _ in 0..base {
        // `Bits` never runs dry: this cannot fail.
        let _ = gen.case_into(&mut bits, p, &mut generated);
    }
    out.reserve(n * k);
    out.extend_from_slice(&generated);
    // The mixed cases appended by one `extend` over a range (its exact length spares the
    // capacity check of a `push` per value; zero-filling the space first and overwriting it
    // was 2% of an interp campaign: `perf`). Value `j` of each case: a fresh word at every
    // fourth input, 16 random bits per pick (the bias toward low rows is below 2^-16 * base).
    let (mut j, mut bits) = (0, 0u64);
    out.extend((0..(n - base) * k).map(|_| {
        if j % 4 == 0 {
            bits = rng.next_u64();
        }
        let row = ((bits & 0xffff) as usize * base) >> 16;
        bits >>= 16;
        let v = generated[row * k + j];
        j = if j + 1 == k { 0 } else { j + 1 };
        v
    }));
}

/// The stream of random program number `i` of a campaign seeded with `seed`: SplitMix64 from
/// a state that mixes both (the finalizer of SplitMix64 applied twice), so that the streams of
/// neighbouring programs are unrelated.
fn program_rng(seed: u64, i: u64) -> Rng {
    let mix = |x: u64| Rng(x).next_u64();
    Rng(mix(seed ^ mix(i)))
}

/// Random program number `i` with `n` random cases (`None` if the generator rejects its bytes).
pub fn random_item(gen: &Generator, seed: u64, i: u64, n: usize) -> Option<Item> {
    let mut rng = program_rng(seed, i);
    let mut bytes = [0u8; 256];
    rng.fill(&mut bytes);
    let program = gen.program(&mut Unstructured::new(&bytes)).ok()?;
    let mut cases = Vec::with_capacity(n * program.inputs().len());
    random_cases(gen, &mut rng, &program, n, &mut cases);
    Some(Item { program, cases, origin: None })
}

/// Start the source thread. It stops when `stop` is set, the receiver is dropped, the case
/// budget is spent or (without `random`) the corpus is done.
pub fn spawn(gen: Generator, cfg: SourceConfig, stop: Arc<AtomicBool>) -> (Receiver<Batch>, JoinHandle<SourceReport>) {
    let (tx, rx) = sync_channel(QUEUE);
    let h = std::thread::Builder::new()
        .name("ptxfuzz-source".into())
        .spawn(move || produce(&gen, &cfg, &stop, &tx))
        .expect("cannot start the source thread");
    (rx, h)
}

/// What the source did.
#[derive(Clone, Debug, Default)]
pub struct SourceReport {
    pub corpus_files: usize,
    pub corpus_undecodable: usize,
}

fn produce(gen: &Generator, cfg: &SourceConfig, stop: &AtomicBool, tx: &SyncSender<Batch>) -> SourceReport {
    let mut rng = Rng::new(cfg.seed);
    let mut report = SourceReport::default();
    let mut budget = cfg.max_cases.unwrap_or(u64::MAX);
    let mut batch = Batch::default();
    let mut batch_cases = 0usize;
    let per_program = cfg.cases_per_program.max(1);
    let send = |batch: &mut Batch, batch_cases: &mut usize| -> bool {
        *batch_cases = 0;
        stop.load(Ordering::Relaxed) || tx.send(std::mem::take(batch)).is_err()
    };
    let mut files = cfg.corpus.iter();
    let mut recorded = cfg.recorded.iter();
    // Random programs are numbered; program `i` draws from its own stream (`program_rng`).
    let mut next_program = 0u64;
    loop {
        if stop.load(Ordering::Relaxed) || budget == 0 {
            break;
        }
        let items = if let Some(r) = recorded.next() {
            let k = r.program.inputs().len().max(1);
            let n = (r.cases.len() / k).min(budget.min(usize::MAX as u64) as usize);
            vec![Item { program: r.program.clone(), cases: r.cases[..n * k].to_vec(), origin: r.origin.clone() }]
        } else if let Some(path) = files.next() {
            report.corpus_files += 1;
            let Some((program, case)) = fs::read(path).ok().and_then(|b| decode(gen, &b)) else {
                report.corpus_undecodable += 1;
                continue;
            };
            // The corpus case first, then random cases for the same program.
            let mut cases = case;
            let more = per_program.saturating_sub(1).min(budget.saturating_sub(1) as usize);
            random_cases(gen, &mut rng, &program, more, &mut cases);
            vec![Item { program, cases, origin: Some(path.clone()) }]
        } else if cfg.random {
            // The rest of the batch at once, generated on the rayon pool (the `--jobs`
            // threads, shared with the engines and the judge): one source thread was the
            // campaign's limit once judging ran on every core. Each program's stream depends
            // on its number only, so the programs do not depend on the thread count.
            let mut plan = Vec::new();
            let mut left = budget;
            let want = cfg.cases_per_batch.saturating_sub(batch_cases).div_ceil(per_program).max(1);
            while plan.len() < want && left > 0 {
                let n = (per_program as u64).min(left) as usize;
                left -= n as u64;
                plan.push((next_program, n));
                next_program += 1;
            }
            plan.into_par_iter().filter_map(|(i, n)| random_item(gen, cfg.seed, i, n)).collect()
        } else {
            break;
        };
        for item in items {
            let n = item.cases.len() / item.program.inputs().len().max(1);
            budget = budget.saturating_sub(n as u64);
            batch_cases += n;
            batch.items.push(item);
            if batch_cases >= cfg.cases_per_batch && send(&mut batch, &mut batch_cases) {
                return report;
            }
        }
    }
    if !batch.items.is_empty() {
        let _ = send(&mut batch, &mut batch_cases);
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptx::gen::GenConfig;

    fn gen() -> Generator {
        Generator::new(GenConfig::default()).unwrap()
    }

    fn collect(cfg: SourceConfig) -> Vec<Batch> {
        let (rx, h) = spawn(gen(), cfg, Arc::new(AtomicBool::new(false)));
        let v: Vec<Batch> = rx.iter().collect();
        h.join().unwrap();
        v
    }

    fn cfg(seed: u64, max_cases: u64) -> SourceConfig {
        SourceConfig {
            seed,
            cases_per_program: 100,
            cases_per_batch: 1000,
            recorded: vec![],
            corpus: vec![],
            random: true,
            max_cases: Some(max_cases),
        }
    }

    /// `Bits` must give the generator's distributions: about half the generated values
    /// special (the default odds), related inputs (negated copies) common, and the mixed
    /// cases made only of generated inputs, each from its own column.
    #[test]
    fn random_cases_keep_the_generators_specials_and_relations() {
        use ptx::format::{Format, F32};
        use ptx::gen::Specials;
        use ptx::isa::{Opcode, Type};
        let g = Generator::new(GenConfig { opcodes: vec![Opcode::Add], types: vec![Type::F32], ..GenConfig::default() }).unwrap();
        let p = (0..).map(|i| g.program(&mut Unstructured::new(&ptx::gen::seeded_bytes(i, 256))).unwrap()).find(|p| p.inputs().len() == 2).unwrap();
        let (n, base) = (4096, 1024);
        let mut out = vec![7]; // appends after what is there
        random_cases(&g, &mut Rng::new(5), &p, n, &mut out);
        assert_eq!((out.len(), out[0]), (1 + 2 * n, 7));
        let cases: Vec<&[u64]> = out[1..].chunks(2).collect();
        let (generated, mixed) = cases.split_at(base);
        let special = generated.iter().flat_map(|c| c.iter()).filter(|&&v| F32::SPECIALS.contains(&(v & !F32::SIGN_MASK))).count();
        let share = special as f64 / (2 * base) as f64;
        assert!((0.4..0.65).contains(&share), "special share {share}");
        let negated = generated.iter().filter(|c| c[0] ^ c[1] == 0x8000_0000).count();
        assert!(negated * 100 > base, "{negated} negated pairs in {base} cases");
        for c in mixed {
            assert!(generated.iter().any(|b| b[0] == c[0]) && generated.iter().any(|b| b[1] == c[1]), "{c:x?}");
        }
        // Column mixing meets pairs that no generated case has.
        assert!(mixed.iter().filter(|c| !generated.contains(c)).count() > mixed.len() / 2);
    }

    /// The mixed cases follow the stream they always did (a seed given in a finding or a
    /// report reproduces its cases across versions): one word per case and per four inputs,
    /// 16 bits per pick, for programs of 1 to 9 inputs.
    #[test]
    fn mixed_cases_draw_one_word_per_four_inputs_as_before() {
        let g = Generator::new(GenConfig::default()).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0.. {
            let Ok(p) = g.program(&mut Unstructured::new(&ptx::gen::seeded_bytes(i, 256))) else { continue };
            let k = p.inputs().len();
            if !seen.insert(k) {
                continue;
            }
            let n = 3000;
            let base = n.min(MIN_BASE.max(n / 4));
            let mut got = Vec::new();
            random_cases(&g, &mut Rng::new(i), &p, n, &mut got);
            // The loop of the version before (2026-11-30), on the same generated cases.
            let mut rng = Rng::new(i);
            let mut generated = Vec::new();
            let mut bits = Bits::new(&mut rng);
            for _ in 0..base {
                let _ = g.case_into(&mut bits, &p, &mut generated);
            }
            let mut want = generated.clone();
            for _ in base..n {
                let mut bits = rng.next_u64();
                for j in 0..k {
                    if j % 4 == 0 && j > 0 {
                        bits = rng.next_u64();
                    }
                    want.push(generated[(((bits & 0xffff) as usize * base) >> 16) * k + j]);
                    bits >>= 16;
                }
            }
            assert_eq!(got, want, "{k} inputs");
            if seen.len() >= 5 || i > 20_000 {
                break;
            }
        }
        assert!(seen.len() >= 4, "input counts met: {seen:?}");
    }

    #[test]
    fn same_seed_same_programs_and_cases() {
        let a = collect(cfg(7, 2500));
        let b = collect(cfg(7, 2500));
        let c = collect(cfg(8, 2500));
        let flat = |v: &[Batch]| v.iter().flat_map(|b| b.items.iter().map(|i| (i.program.to_string(), i.cases.clone()))).collect::<Vec<_>>();
        assert_eq!(flat(&a), flat(&b));
        assert_ne!(flat(&a), flat(&c));
    }

    #[test]
    fn programs_do_not_depend_on_the_thread_count() {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (tx, rx) = sync_channel(1000);
            pool.install(|| produce(&gen(), &cfg(3, 4321), &AtomicBool::new(false), &tx));
            drop(tx);
            rx.iter().flat_map(|b| b.items).map(|i| (i.program.to_string(), i.cases)).collect::<Vec<_>>()
        };
        let one = run(1);
        assert!(one.len() > 40, "{} programs", one.len());
        assert_eq!(one, run(3));
        // Neighbouring programs are unrelated draws, not shifted copies of one stream.
        assert_ne!(one[0].0, one[1].0);
    }

    #[test]
    fn case_budget_is_exact_and_batches_are_bounded() {
        let v = collect(cfg(1, 2550));
        assert_eq!(v.iter().map(Batch::cases).sum::<u64>(), 2550);
        assert!(v.iter().all(|b| b.cases() <= 1000 + 100));
        for item in v.iter().flat_map(|b| &b.items) {
            let k = item.program.inputs().len();
            assert_eq!(item.cases.len() % k, 0);
            for case in item.cases.chunks(k) {
                item.program.run(case).unwrap();
            }
        }
    }

    #[test]
    fn corpus_files_decode_as_reproducer_program_json_or_fuzz_bytes() {
        let g = gen();
        let raw = [7u8; 40];
        let (p, case) = decode(&g, &raw).unwrap();
        let mut u = Unstructured::new(&raw);
        assert_eq!(p, g.program(&mut u).unwrap());
        assert_eq!(case, g.case(&mut u, &p).unwrap());
        let json = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap().to_json();
        let (q, case) = decode(&g, json.as_bytes()).unwrap();
        assert_eq!(q.to_json(), json);
        assert_eq!(case.len(), 1);
        assert!(decode(&g, &[]).is_some(), "the empty stream is a program too");
    }

    #[test]
    fn corpus_only_stops_after_the_corpus() {
        let dir = std::env::temp_dir().join(format!("ptxfuzz-corpus-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        for i in 0..3u8 {
            fs::write(dir.join(format!("c{i}")), [i; 30]).unwrap();
        }
        let files = corpus_files(&dir).unwrap();
        assert_eq!(files.len(), 3);
        let v = collect(SourceConfig { corpus: files, random: false, max_cases: None, ..cfg(1, 0) });
        let items: Vec<&Item> = v.iter().flat_map(|b| &b.items).collect();
        assert_eq!(items.len(), 3);
        assert!(items.iter().all(|i| i.origin.is_some() && i.cases.len() / i.program.inputs().len() == 100));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn recorded_items_come_first_unchanged_and_the_case_budget_cuts_them() {
        let p = Program::parse("// inputs: %f0:f32\nneg.f32 %f1, %f0;\n// outputs: %f1\n").unwrap();
        let item = |n: u64| Item { program: p.clone(), cases: (0..n).collect(), origin: None };
        let cfg = SourceConfig { recorded: vec![item(5), item(7)], random: false, max_cases: Some(9), ..cfg(1, 0) };
        let v = collect(cfg);
        let items: Vec<&Item> = v.iter().flat_map(|b| &b.items).collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].cases, (0..5).collect::<Vec<u64>>());
        assert_eq!(items[1].cases, (0..4).collect::<Vec<u64>>(), "9 cases in all");
    }

    #[test]
    fn stop_flag_ends_the_source() {
        let stop = Arc::new(AtomicBool::new(false));
        let (rx, h) = spawn(gen(), SourceConfig { max_cases: None, ..cfg(1, 0) }, stop.clone());
        let _ = rx.recv().unwrap();
        stop.store(true, Ordering::Relaxed);
        drop(rx);
        h.join().unwrap();
    }
}

#[cfg(test)]
mod bench {
    use super::*;
    use ptx::gen::GenConfig;

    /// `cargo test --release -p worker source_throughput -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn source_throughput() {
        for cfg in [GenConfig::default(), GenConfig { opcodes: vec![ptx::isa::Opcode::Add], types: vec![ptx::isa::Type::F32], ..GenConfig::default() }] {
            let g = Generator::new(cfg).unwrap();
            let mut rng = Rng::new(1);
            let mut out = Vec::new();
            let t = std::time::Instant::now();
            let mut n = 0;
            let mut progs = 0;
            while t.elapsed().as_secs_f64() < 2.0 {
                let mut bytes = [0u8; 256];
                rng.fill(&mut bytes);
                let p = g.program(&mut Unstructured::new(&bytes)).unwrap();
                out.clear();
                random_cases(&g, &mut rng, &p, 1024, &mut out);
                n += 1024;
                progs += 1;
            }
            let s = t.elapsed().as_secs_f64();
            eprintln!("{:.2} M cases/s, {:.0} programs/s", n as f64 / s / 1e6, progs as f64 / s);
        }
    }
}
