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

use super::fused::{Done, Finisher};
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
    /// Run and judged where it was generated ([`SourceConfig::finisher`]), or `None`: the
    /// main loop runs and judges it.
    pub done: Option<Done>,
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
    /// Run and judge every item here, in the task that made it (`campaign::fused`: on CPU
    /// engines that run per job).
    pub finisher: Option<Finisher>,
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

/// Files of a corpus folder that are views of a program whose JSON sits beside them: the PTX
/// module and CUDA source that `ptxfuzz gen` (NAME.ptx beside NAME.json) and finding folders
/// (repro.ptx, repro.cu beside repro.json) write. As fuzz bytes they would decode to some other
/// program in silence, so a corpus skips them.
const TEXT_VIEWS: [&str; 2] = ["ptx", "cu"];

/// Files a campaign writes beside its finding folders in `--out` (its figures, not programs):
/// a campaign's `--out` given as a corpus replays its reproducers, and these would decode as
/// fuzz bytes to some other program in silence.
const CAMPAIGN_FILES: [&str; 2] = ["summary.json", "stats.jsonl"];

/// Deepest subfolder a corpus is read from (a campaign's `--out` needs 1; the bound keeps a
/// folder that links back into itself from being read forever).
const CORPUS_DEPTH: usize = 8;

/// The files of a corpus folder and its subfolders, sorted by path (hidden files and folders,
/// [`TEXT_VIEWS`] and [`CAMPAIGN_FILES`] skipped). Subfolders are read so that a campaign's
/// `--out` replays the reproducers it wrote (SIGNATURE/repro.json).
pub fn corpus_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    // A missing folder is named without the OS's "No such file or directory (os error 2)".
    if !dir.exists() {
        anyhow::bail!("corpus folder {} does not exist: give a folder of corpus files (a campaign's --out replays its reproducers)", dir.display());
    }
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read corpus folder {}: give a folder of corpus files", dir.display()))?;
    collect_corpus(entries, 0, &mut files);
    files.sort();
    Ok(files)
}

fn collect_corpus(entries: fs::ReadDir, depth: usize, files: &mut Vec<PathBuf>) {
    for e in entries.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        // Hidden: `.spool`, a writer's temporary files and folders.
        if name.starts_with('.') {
            continue;
        }
        let p = e.path();
        if p.is_dir() {
            if depth < CORPUS_DEPTH {
                if let Ok(inner) = fs::read_dir(&p) {
                    collect_corpus(inner, depth + 1, files);
                }
            }
            continue;
        }
        let view = p.extension().is_some_and(|x| TEXT_VIEWS.iter().any(|v| x == *v));
        if p.is_file() && !view && !CAMPAIGN_FILES.contains(&name.as_str()) {
            files.push(p);
        }
    }
}

/// Decode one corpus file: a ptxfuzz reproducer (its case), a program in JSON (random
/// cases), or else raw bytes of the `explore` fuzz target, which `ptx::gen` decodes as the
/// fuzz target does: a program from the stream, then its case from the rest of the same
/// stream (`Generator::program`, then `Generator::case`; this is `ptx::gen::from_bytes`).
/// A JSON object that is neither a reproducer nor a program is a mistake in a file the user
/// wrote (an undeclared register, a wrong operand count), so it is an error that says which:
/// as fuzz bytes it would run some other program in silence.
pub fn decode(gen: &Generator, bytes: &[u8]) -> Result<(Program, Vec<u64>), String> {
    if let Some(json) = json_object(bytes) {
        if json.get("ptxfuzz_repro").is_some() {
            let r: Reproducer = serde_json::from_value(json).map_err(|e| format!("not a reproducer this ptxfuzz reads: {e}"))?;
            return r.case().map(|c| (c.program, c.inputs)).map_err(|e| format!("a reproducer whose case does not load: {e:#}"));
        }
        let p = Program::from_json(&json.to_string()).map_err(|e| format!("JSON, but neither a reproducer nor a program: {e}"))?;
        let case = gen.case(&mut Unstructured::new(&[]), &p).map_err(|e| format!("no case for its program: {e}"))?;
        return Ok((p, case));
    }
    let mut u = Unstructured::new(bytes);
    let p = gen.program(&mut u).map_err(|e| format!("fuzz bytes that decode to no program: {e}"))?;
    let case = gen.case(&mut u, &p).map_err(|e| format!("fuzz bytes that decode to no case: {e}"))?;
    Ok((p, case))
}

/// `bytes` as a JSON object, which the `explore` fuzz target's raw bytes are not in practice
/// (their first byte `{` and all the rest valid JSON).
fn json_object(bytes: &[u8]) -> Option<serde_json::Value> {
    let text = std::str::from_utf8(bytes).ok()?.trim_start();
    if !text.starts_with('{') {
        return None;
    }
    serde_json::from_str::<serde_json::Value>(text).ok().filter(serde_json::Value::is_object)
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
    /// All of a value's choices at once, whatever they turn out to be: no branch on the
    /// outcome (the one-at-a-time default mispredicted about twice per value). A value of 32
    /// bits or fewer reads only the word's low 32 bits and top three, so the choices take the
    /// 29 between them (the sign, the exponent coin, 16 bits of special chance, 11 of index:
    /// each of the 33 specials then has 62 or 63 chances in 2,048, where 16 bits made it 1,985
    /// or 1,986 in 65,536) and one word makes the value; an f64 takes two.
    #[inline]
    fn choices(&mut self, special: u32, specials: usize, width: u32) -> arbitrary::Result<Choices> {
        let word = self.rng.next_u64();
        let r = if width <= 32 { word >> 32 } else { self.rng.next_u64() };
        let index = if width <= 32 { ((r >> 18) & 0x7ff) as usize * specials >> 11 } else { index16((r >> 17) & 0xffff, specials) };
        Ok(Choices { negative: r & 1 == 1, special: chance16((r >> 2) & 0xffff, special), index, word, exponent: (r >> 1) & 1 == 1 })
    }
}

/// `n` random cases for `p`, appended to `out`. A quarter (at least [`MIN_BASE`]) come from
/// the generator (`Generator::cases_into`, its choices from [`Bits`]), with their relations
/// between inputs (equal, negated, one ulp apart); the rest combine inputs of those cases
/// column by column (input `j` of a random base case for every `j`), which meets more pairs of
/// special values and costs a fraction of generating. A program of one input (a third of the
/// default programs) is drawn whole and without repeats ([`one_input`]).
pub fn random_cases(gen: &Generator, rng: &mut Rng, p: &Program, n: usize, out: &mut Vec<u64>) {
    let k = p.inputs().len();
    if k == 1 {
        return one_input(gen, rng, p, n, out);
    }
    let base = n.min(MIN_BASE.max(n / 4));
    let mut generated = Vec::with_capacity(base * k);
    // `Bits` never runs dry: this cannot fail.
    let _ = gen.cases_into(&mut Bits::new(rng), p, base, &mut generated);
    out.reserve(n * k);
    out.extend_from_slice(&generated);
    mix(rng, &generated, k, n - base, out);
}

/// `n` cases of a one-input program `p`, appended to `out`: all drawn by the generator, then
/// each value that repeats an earlier one replaced by a draw of an ordinary value (no special
/// odds) that repeats none: a program of one input gives the same case the same result, so a
/// repeat tests nothing. Mixing one column would only repeat the generated quarter: 81 % of
/// such a program's cases were copies (27 % of a campaign's, docs/campaigns.md). Each special
/// value the draws meet (half of them are specials, among 33 values a sign) then comes once.
/// Redrawing goes in rounds of at most [`REDRAW_ROUND`] values and stops after a round whose
/// draws were mostly repeats, or after `n` draws in all: an input of few values (a predicate,
/// a byte, an f16 of a million cases) keeps its repeats and the cost stays bounded.
fn one_input(gen: &Generator, rng: &mut Rng, p: &Program, n: usize, out: &mut Vec<u64>) {
    let start = out.len();
    let _ = gen.cases_into(&mut Bits::new(rng), p, n, out);
    without_repeats(&mut out[start..], |m, fresh| {
        let _ = ptx::gen::operand::cases_into(&mut Bits::new(rng), p.inputs(), m, 0, 0, fresh);
    });
}

/// Replace each value of `values` that repeats an earlier one by a new one of those
/// `draw(m, buf)` appends to `buf` (`m` at a time), as [`one_input`] says; the values drawn.
fn without_repeats(values: &mut [u64], mut draw: impl FnMut(usize, &mut Vec<u64>)) -> usize {
    let mut seen = Seen::new(values.len());
    let repeats: Vec<usize> = (0..values.len()).filter(|&i| !seen.insert(values[i])).collect();
    let (mut repeats, mut budget, mut fresh) = (repeats.into_iter(), values.len(), Vec::new());
    while repeats.len() > 0 && budget > 0 {
        let m = repeats.len().min(budget).min(REDRAW_ROUND);
        budget -= m;
        fresh.clear();
        draw(m, &mut fresh);
        let mut new = 0;
        for &v in &fresh {
            if seen.insert(v) {
                values[repeats.next().expect("no more new values than repeats left")] = v;
                new += 1;
            }
        }
        if 2 * new < m {
            break;
        }
    }
    values.len() - budget
}

/// Most values [`one_input`] draws again at once: a default program's repeats (about 400 of
/// 1,024) in one round, and a program of a million cases whose input has run out of values
/// learns it in one round, not a million draws.
const REDRAW_ROUND: usize = 4096;

/// A set of 64-bit values for [`one_input`]: open addressing at most half full, zero marking
/// an empty slot (the value 0 kept apart), a multiplicative hash (the standard `HashSet`
/// hashes with SipHash, made to resist chosen keys, which these are not).
struct Seen {
    slots: Vec<u64>,
    zero: bool,
    shift: u32,
}

impl Seen {
    fn new(n: usize) -> Seen {
        let size = (2 * n).next_power_of_two().max(2);
        Seen { slots: vec![0; size], zero: false, shift: 64 - size.trailing_zeros() }
    }

    /// Insert `v`; false if it was there. At most `n` values go in (the caller's cases).
    fn insert(&mut self, v: u64) -> bool {
        if v == 0 {
            return !std::mem::replace(&mut self.zero, true);
        }
        let mask = self.slots.len() - 1;
        let mut i = (v.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = v;
                    return true;
                }
                x if x == v => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }
}

/// `m` cases mixed from the `generated` ones (`k` inputs each), appended to `out`. Value `j` of
/// each case: a fresh word at every fourth input, 16 random bits per pick (the bias toward low
/// rows is below 2^-16 * rows). One stream whatever the path: programs of up to twelve inputs
/// (nearly all) build each case in registers and append it at once (a capacity check and a
/// branch per value were most of the mixing's time, `perf`); longer ones take the general
/// loop, one `extend` over the values.
fn mix(rng: &mut Rng, generated: &[u64], k: usize, m: usize, out: &mut Vec<u64>) {
    fn fixed<const K: usize>(rng: &mut Rng, generated: &[u64], m: usize, out: &mut Vec<u64>) {
        let rows = generated.len() / K;
        for _ in 0..m {
            let mut bits = 0;
            let case: [u64; K] = std::array::from_fn(|j| {
                if j % 4 == 0 {
                    bits = rng.next_u64();
                }
                let row = ((bits & 0xffff) as usize * rows) >> 16;
                bits >>= 16;
                generated[row * K + j]
            });
            out.extend_from_slice(&case);
        }
    }
    let f = match k {
        1 => fixed::<1>,
        2 => fixed::<2>,
        3 => fixed::<3>,
        4 => fixed::<4>,
        5 => fixed::<5>,
        6 => fixed::<6>,
        7 => fixed::<7>,
        8 => fixed::<8>,
        9 => fixed::<9>,
        10 => fixed::<10>,
        11 => fixed::<11>,
        12 => fixed::<12>,
        _ => {
            let rows = generated.len() / k.max(1);
            let (mut j, mut bits) = (0, 0u64);
            out.extend((0..m * k).map(|_| {
                if j % 4 == 0 {
                    bits = rng.next_u64();
                }
                let row = ((bits & 0xffff) as usize * rows) >> 16;
                bits >>= 16;
                let v = generated[row * k + j];
                j = if j + 1 == k { 0 } else { j + 1 };
                v
            }));
            return;
        }
    };
    f(rng, generated, m, out)
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
    Some(Item { program, cases, origin: None, done: None })
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
    /// The first [`UNDECODABLE_SHOWN`] undecodable corpus files and why, for the summary.
    pub undecodable_examples: Vec<(PathBuf, String)>,
}

/// Undecodable corpus files named in the summary (all are counted).
pub const UNDECODABLE_SHOWN: usize = 5;

/// `item`, run and judged by the config's finisher if it has one.
fn finished(cfg: &SourceConfig, mut item: Item) -> Item {
    if let Some(f) = &cfg.finisher {
        item.done = Some(f.finish(&item.program, &item.cases));
    }
    item
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
            vec![finished(cfg, Item { program: r.program.clone(), cases: r.cases[..n * k].to_vec(), origin: r.origin.clone(), done: None })]
        } else if let Some(path) = files.next() {
            report.corpus_files += 1;
            let decoded = crate::input_file::read_bytes(path, crate::input_file::CORPUS_CAP, "a corpus file")
                .map_err(|e| e.to_string())
                .and_then(|b| decode(gen, &b));
            let (program, case) = match decoded {
                Ok(d) => d,
                Err(why) => {
                    report.corpus_undecodable += 1;
                    if report.undecodable_examples.len() < UNDECODABLE_SHOWN {
                        report.undecodable_examples.push((path.clone(), why));
                    }
                    continue;
                }
            };
            // The corpus case first, then random cases for the same program.
            let mut cases = case;
            let more = per_program.saturating_sub(1).min(budget.saturating_sub(1) as usize);
            random_cases(gen, &mut rng, &program, more, &mut cases);
            vec![finished(cfg, Item { program, cases, origin: Some(path.clone()), done: None })]
        } else if cfg.random {
            // The rest of the batch at once, generated on the rayon pool (the `--jobs`
            // threads, shared with the engines and the judge): one source thread was the
            // campaign's limit once judging ran on every core. Each program's stream depends
            // on its number only, so the programs do not depend on the thread count. With a
            // finisher, each is run and judged in the same task, on the core that drew it.
            let mut plan = Vec::new();
            let mut left = budget;
            let want = cfg.cases_per_batch.saturating_sub(batch_cases).div_ceil(per_program).max(1);
            while plan.len() < want && left > 0 {
                let n = (per_program as u64).min(left) as usize;
                left -= n as u64;
                plan.push((next_program, n));
                next_program += 1;
            }
            plan.into_par_iter().filter_map(|(i, n)| random_item(gen, cfg.seed, i, n).map(|item| finished(cfg, item))).collect()
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
#[path = "source_tests.rs"]
mod tests;

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
