//! The campaign source's tests: streams, odds, budgets, corpus and stop.

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
        finisher: None,
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

/// One word's choices for a 32-bit value and two words' for an f64 have the odds asked
/// for: every special index (within 3% of uniform), the sign and the exponent coin fair,
/// the special chance at its threshold, and the choices independent of the value's bits.
#[test]
fn bits_choices_have_the_asked_odds_in_both_widths() {
    for width in [32, 64] {
        let mut rng = Rng::new(width as u64);
        let mut bits = Bits::new(&mut rng);
        let n = 330_000;
        let (mut idx, mut neg, mut exp, mut special, mut low_odd_when_special) = ([0u32; 33], 0, 0, 0, 0);
        for _ in 0..n {
            let c = bits.choices(16384, 33, width).unwrap();
            idx[c.index] += 1;
            neg += c.negative as u32;
            exp += c.exponent as u32;
            special += c.special as u32;
            low_odd_when_special += (c.special && c.word & 1 == 1) as u32;
        }
        let share = |x: u32| x as f64 / n as f64;
        assert!(idx.iter().all(|&c| (c as f64 / (n / 33) as f64 - 1.0).abs() < 0.03), "{width}: {idx:?}");
        assert!((share(neg) - 0.5).abs() < 0.01 && (share(exp) - 0.5).abs() < 0.01, "{width}: {neg} {exp}");
        assert!((share(special) - 0.25).abs() < 0.01, "{width}: {special}");
        assert!((low_odd_when_special as f64 / special as f64 - 0.5).abs() < 0.02, "{width}");
    }
}

/// The mixed cases follow the stream they did on 2026-11-30 from the same generated cases,
/// on the fixed-length path (up to twelve inputs) and the general one: one word per case
/// and per four inputs, 16 bits per pick.
#[test]
fn mixed_cases_draw_one_word_per_four_inputs_as_before() {
    for k in 1..=14 {
        let rows = 256;
        let generated: Vec<u64> = (0..rows * k as u64).map(|v| v * 0x9e37_79b9 + k as u64).collect();
        let m = 1000;
        let mut got = vec![7];
        mix(&mut Rng::new(k as u64), &generated, k, m, &mut got);
        // The loop of the version before (2026-11-30).
        let mut rng = Rng::new(k as u64);
        let mut want = vec![7];
        for _ in 0..m {
            let mut bits = rng.next_u64();
            for j in 0..k {
                if j % 4 == 0 && j > 0 {
                    bits = rng.next_u64();
                }
                want.push(generated[(((bits & 0xffff) as usize * rows as usize) >> 16) * k + j]);
                bits >>= 16;
            }
        }
        assert_eq!(got, want, "{k} inputs");
    }
}

/// A program's random cases are its generated cases, then those mixed from them.
#[test]
fn random_cases_are_the_generated_then_the_mixed() {
    let g = Generator::new(GenConfig::default()).unwrap();
    let p = (3..).map(|i| g.program(&mut Unstructured::new(&ptx::gen::seeded_bytes(i, 256))).unwrap()).find(|p| p.inputs().len() > 1).unwrap();
    let (k, n) = (p.inputs().len(), 3000);
    let base = MIN_BASE.max(n / 4);
    let mut got = Vec::new();
    random_cases(&g, &mut Rng::new(9), &p, n, &mut got);
    let mut rng = Rng::new(9);
    let mut want = Vec::new();
    g.cases_into(&mut Bits::new(&mut rng), &p, base, &mut want).unwrap();
    let generated = want.clone();
    mix(&mut rng, &generated, k, n - base, &mut want);
    assert_eq!(got, want);
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
    assert!(decode(&g, &[]).is_ok(), "the empty stream is a program too");
    // JSON objects are reproducers or programs, never fuzz bytes: anything else says why.
    let e = decode(&g, br#"{"inputs": []}"#).unwrap_err();
    assert!(e.starts_with("JSON, but neither a reproducer nor a program"), "{e}");
    let e = decode(&g, br#"{"ptxfuzz_repro": 99}"#).unwrap_err();
    assert!(e.starts_with("not a reproducer this ptxfuzz reads"), "{e}");
    // JSON that is not an object (`{` then garbage) is still bytes for the generator.
    assert!(decode(&g, b"{ not json").is_ok());
}

#[test]
fn a_corpus_skips_the_ptx_and_cuda_views_written_beside_program_json() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-corpus-views-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for name in ["s1_000000.json", "s1_000000.ptx", "repro.cu", "0a1b2c", ".hidden"] {
        fs::write(dir.join(name), b"x").unwrap();
    }
    let names: Vec<String> = corpus_files(&dir).unwrap().iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(names, ["0a1b2c", "s1_000000.json"]);
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
    let item = |n: u64| Item { program: p.clone(), cases: (0..n).collect(), origin: None, done: None };
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

#[test]
fn a_source_with_a_finisher_judges_every_item_it_makes_and_makes_the_same_items() {
    let copts = crate::compare::CompareOptions::default();
    let finisher = Finisher::new(&crate::oracles::diff_interp::InterpEngine::new(), false, &copts).unwrap();
    let plain = collect(cfg(5, 3000));
    let fused = collect(SourceConfig { finisher: Some(finisher), ..cfg(5, 3000) });
    let items = |v: &[Batch]| v.iter().flat_map(|b| b.items.clone()).collect::<Vec<_>>();
    let (plain, fused) = (items(&plain), items(&fused));
    assert_eq!(plain.len(), fused.len());
    assert!(plain.len() >= 30);
    for (p, f) in plain.iter().zip(&fused) {
        assert_eq!((&p.program, &p.cases), (&f.program, &f.cases));
        assert!(p.done.is_none());
        let Some(Done::Judged(Ok(v))) = &f.done else { panic!("not judged: {:?}", f.done) };
        // The interpreter judged against itself: every case, every result on the fast path.
        assert_eq!(v.cases as usize, f.cases.len() / f.program.inputs().len());
        assert!(v.is_clean() && v.fast == v.results, "{}", f.program);
    }
}

/// A program of one input has all its cases drawn and none repeated: mixing one column would
/// only repeat the quarter generated, and the specials, half the draws, would recur. Each
/// special still comes (once).
#[test]
fn a_one_input_programs_cases_are_all_drawn_and_none_repeats() {
    use ptx::format::{Format, F32};
    use ptx::gen::Specials;
    use ptx::isa::{Opcode, Type};
    let g = Generator::new(GenConfig { opcodes: vec![Opcode::Sqrt], types: vec![Type::F32], ..GenConfig::default() }).unwrap();
    let p = (0..).map(|i| g.program(&mut Unstructured::new(&ptx::gen::seeded_bytes(i, 256))).unwrap()).find(|p| p.inputs().len() == 1).unwrap();
    let n = 4096;
    let mut got = vec![7]; // appends after what is there
    random_cases(&g, &mut Rng::new(9), &p, n, &mut got);
    assert_eq!((got.len(), got[0]), (1 + n, 7));
    let distinct: std::collections::HashSet<u64> = got[1..].iter().copied().collect();
    assert_eq!(distinct.len(), n, "no case repeats another");
    let specials = F32::SPECIALS.iter().flat_map(|&s| [s, s | F32::SIGN_MASK]).filter(|s| distinct.contains(s)).count();
    assert!(specials >= 2 * F32::SPECIALS.len() - 2, "{specials} of the {} specials either sign", 2 * F32::SPECIALS.len());
    // The first draws are the generator's, as for any program, until a repeat.
    let mut first = Vec::new();
    g.cases_into(&mut Bits::new(&mut Rng::new(9)), &p, n, &mut first).unwrap();
    assert_eq!(got[1..10], first[..9]);
}

/// An input of few values (a predicate, a byte) runs out of new ones: the cases repeat then
/// (the redrawing stops after a round of mostly repeats).
#[test]
fn a_one_input_program_of_few_values_keeps_its_repeats_and_stops_drawing() {
    use ptx::program::ValType;
    let g = Generator::new(GenConfig { opcodes: vec![ptx::isa::Opcode::Cvt], ..GenConfig::default() }).unwrap();
    let p = (0..20_000)
        .map(|i| g.program(&mut Unstructured::new(&ptx::gen::seeded_bytes(i, 256))).unwrap())
        .find(|p| p.inputs().len() == 1 && matches!(p.inputs()[0], ValType::Int(t) if t.bits == 8))
        .expect("a cvt of one 8-bit integer input");
    let mut got = Vec::new();
    random_cases(&g, &mut Rng::new(3), &p, 4096, &mut got);
    assert_eq!(got.len(), 4096);
    let distinct = got.iter().collect::<std::collections::HashSet<_>>().len();
    assert!((200..=256).contains(&distinct), "{distinct} distinct bytes");
}

/// The redrawing replaces every repeat while new values come, and stops after one round once
/// they mostly do not (an input that has run out of values), whatever the case count.
#[test]
fn redrawing_replaces_repeats_and_stops_when_the_values_run_out() {
    // Plenty of values: every repeat replaced, one draw per repeat.
    let mut next = 1000u64;
    let mut values: Vec<u64> = (0..3000u64).map(|i| i % 1000).collect();
    let drawn = without_repeats(&mut values, |m, buf| {
        buf.extend(next..next + m as u64);
        next += m as u64;
    });
    assert_eq!(values.iter().collect::<std::collections::HashSet<_>>().len(), 3000);
    assert_eq!(drawn, 2000);
    // Ten values in all: a million cases keep their repeats after one round.
    let mut values: Vec<u64> = (0..1_000_000u64).map(|i| i % 10).collect();
    let drawn = without_repeats(&mut values, |m, buf| buf.extend((0..m as u64).map(|j| j % 10)));
    assert_eq!((drawn, values.iter().collect::<std::collections::HashSet<_>>().len()), (REDRAW_ROUND, 10));
}

/// The set behind the redrawing says whether a value was there, for any values.
#[test]
fn seen_inserts_each_value_once() {
    let mut s = Seen::new(100);
    // Zero among them.
    let values: Vec<u64> = (0..100u64).map(|i| (i * 0x9e37_79b9) ^ (i << 50)).collect();
    for &v in &values {
        assert!(s.insert(v), "{v:#x} is new");
    }
    assert!(values.iter().all(|&v| !s.insert(v)), "each is there");
    assert!(s.insert(u64::MAX) && !s.insert(u64::MAX));
    assert!(Seen::new(0).insert(0));
}

/// Over a campaign's first programs, a case repeats another of its program only where a
/// program of several inputs happens to draw the same values: nearly all of a campaign's cases
/// are distinct within their program (73 % before one-input programs were drawn whole).
#[test]
fn nearly_all_of_a_campaigns_cases_are_distinct_within_their_program() {
    let g = Generator::new(GenConfig { approximate: true, ..GenConfig::default() }).unwrap();
    let (mut cases, mut distinct, mut one_input) = (0, 0, (0, 0));
    for i in 0..400 {
        let Some(it) = random_item(&g, 7, i, 1024) else { continue };
        let k = it.program.inputs().len().max(1);
        let d = it.cases.chunks(k).collect::<std::collections::HashSet<_>>().len();
        cases += it.cases.len() / k;
        distinct += d;
        if k == 1 {
            one_input.0 += it.cases.len();
            one_input.1 += d;
        }
    }
    assert!(one_input.0 > cases / 5, "one-input programs are common: {} of {cases} cases", one_input.0);
    assert!(distinct * 100 > cases * 95, "{distinct} of {cases} cases distinct within their program");
    assert!(one_input.1 * 100 > one_input.0 * 95, "{} of {} one-input cases distinct", one_input.1, one_input.0);
}

#[test]
fn a_campaigns_out_folder_as_corpus_replays_the_reproducers_in_its_finding_folders() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-corpus-out-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let sig = dir.join("add.rz.f32~rounding~normal.normal~sm90");
    fs::create_dir_all(&sig).unwrap();
    fs::create_dir_all(dir.join(".spool/staged")).unwrap();
    for f in ["repro.json", "repro.ptx", "repro.cu"] {
        fs::write(sig.join(f), b"x").unwrap();
    }
    // The campaign's own files and its spool are not programs.
    for f in ["summary.json", "stats.jsonl", ".spool/000000000001.findings.json", "raw"] {
        fs::write(dir.join(f), b"x").unwrap();
    }
    let files: Vec<PathBuf> = corpus_files(&dir).unwrap().into_iter().map(|p| p.strip_prefix(&dir).unwrap().to_path_buf()).collect();
    fs::remove_dir_all(&dir).unwrap();
    assert_eq!(files, [PathBuf::from("add.rz.f32~rounding~normal.normal~sm90/repro.json"), PathBuf::from("raw")]);
}

#[test]
fn a_missing_corpus_folder_is_named_with_what_to_give_without_the_os_error() {
    let dir = std::env::temp_dir().join(format!("ptxfuzz-no-corpus-{}", std::process::id()));
    let e = format!("{:#}", corpus_files(&dir).unwrap_err());
    assert!(e.ends_with("does not exist: give a folder of corpus files (a campaign's --out replays its reproducers)"), "{e}");
    assert!(!e.contains("os error"), "{e}");
}
