//! What a campaign prints at the end: the figures, the findings, and what to do next.
//!
//! A newcomer's first campaign ends here, so the summary says where the findings are and
//! which command comes next (re-run one, open them in the dashboard, send them to a server),
//! and, when nothing was found, why that may be (a host FPU that agrees with the reference
//! everywhere) and what to test instead.

use std::path::Path;

use super::source::SourceReport;
use super::stats::{self, Totals};
use super::Summary;

/// Seconds a documented command may run when `PTXFUZZ_MAX_SECONDS` is set: the docs check
/// (scripts/check-docs) runs the README's 60 s campaign as written, capped by this variable.
pub const MAX_SECONDS_ENV: &str = "PTXFUZZ_MAX_SECONDS";

/// `--seconds` after the cap of `PTXFUZZ_MAX_SECONDS` (which also bounds a campaign given no
/// limit), with the note to print when the cap took effect. A value that is not a positive
/// number is an error naming the variable.
pub fn capped_seconds(seconds: Option<f64>, cap: Option<&str>) -> anyhow::Result<(Option<f64>, Option<String>)> {
    let Some(text) = cap else { return Ok((seconds, None)) };
    let cap: f64 = match text.trim().parse() {
        Ok(v) if v > 0.0 && f64::is_finite(v) => v,
        _ => anyhow::bail!("{MAX_SECONDS_ENV}={text:?} is not a positive number of seconds; unset it or set e.g. {MAX_SECONDS_ENV}=10"),
    };
    match seconds {
        Some(s) if s <= cap => Ok((Some(s), None)),
        _ => Ok((Some(cap), Some(format!("campaign: limited to {cap} s by {MAX_SECONDS_ENV}")))),
    }
}

/// The files a campaign writes in `--out` at its end ([`check_writable`]).
const WRITTEN_AT_END: [&str; 1] = ["summary.json"];

/// Refuse, before the campaign runs, an `--out` where what it writes at its end cannot be
/// written: a folder in the way of summary.json, or an `--out` that takes no new file (the
/// summary is replaced through a temporary sibling, `repro::replace_synced`). Found after the
/// run, the whole campaign's figures would be lost.
pub fn check_writable(out: &Path) -> anyhow::Result<()> {
    for name in WRITTEN_AT_END {
        let path = out.join(name);
        if let Ok(m) = std::fs::symlink_metadata(&path) {
            anyhow::ensure!(
                !m.is_dir(),
                "{} is a folder, and the campaign writes its summary there at its end: move it away (or choose another --out)",
                path.display()
            );
        }
        let probe = out.join(format!(".{name}.check-{}", std::process::id()));
        let made = std::fs::File::create(&probe);
        let _ = std::fs::remove_file(&probe);
        made.map_err(|e| {
            anyhow::anyhow!("cannot write in {} ({e}), where the campaign writes {name} at its end: make it writable (or choose another --out)", out.display())
        })?;
    }
    Ok(())
}

/// Print the summary (stdout).
pub fn print(s: &Summary, out: &Path, corpus: &SourceReport) {
    for line in lines(s, out, corpus) {
        println!("{line}");
    }
}

/// The summary's lines.
pub fn lines(s: &Summary, out: &Path, corpus: &SourceReport) -> Vec<String> {
    let t = s.totals;
    let mut v = vec![
        format!(
            "campaign {}: {:.1} s, {} mode, seed {}{}",
            s.target.name,
            s.elapsed_s,
            s.mode,
            s.seed,
            if s.interrupted { " (interrupted)" } else { "" }
        ),
        format!("  target: {}", s.target),
        format!(
            "  {} cases ({}cases/s), {} programs ({}programs/s), {} results ({:.2}% on the fast path)",
            t.cases,
            stats::si(s.rates.cases_per_s),
            t.programs,
            stats::si(s.rates.programs_per_s),
            t.results,
            100.0 * t.fast as f64 / t.results.max(1) as f64
        ),
    ];
    v.push(format!("  time: {}", t.time_us.line(s.elapsed_s)));
    if let Some(st) = s.engine_stages.filter(|st| !st.is_empty()) {
        v.push(format!("  engine split (all its calls): {}", st.line()));
    }
    if t.resolved > 0 {
        let compiled = match t.resolved_compiled {
            0 => String::new(),
            n => format!(" ({n} traced compiled: the instruction VM gave another output)"),
        };
        v.push(format!("  findings stage: {} mismatch(es) resolved by a traced run{compiled}, in {} engine call(s)", t.resolved, t.resolve_calls));
    }
    if t.by_exec.len() > 1 {
        for (exec, m) in &t.by_exec {
            let r = s.rates.by_exec.get(exec).copied().unwrap_or_default();
            v.push(format!(
                "    {exec}: {} cases ({}cases/s), {} programs ({}programs/s)",
                m.cases,
                stats::si(r.cases_per_s),
                m.programs,
                stats::si(r.programs_per_s)
            ));
        }
    }
    if corpus.corpus_files > 0 {
        v.push(format!("  corpus: {} file(s) replayed ({} undecodable)", corpus.corpus_files, corpus.corpus_undecodable));
        for (path, why) in &corpus.undecodable_examples {
            v.push(format!("    skipped {}: {why}", path.display()));
        }
        if corpus.corpus_undecodable > corpus.undecodable_examples.len() {
            v.push(format!("    ... and {} more", corpus.corpus_undecodable - corpus.undecodable_examples.len()));
        }
    }
    if t.unsupported > 0 {
        v.push(format!("  {} program(s) skipped: the target does not support them", t.unsupported));
    }
    if t.fault_count() > 0 {
        let kinds: Vec<String> = t.faults.iter().map(|(k, n)| format!("{k} {n}")).collect();
        v.push(format!("  engine faults (not findings): {}", kinds.join(", ")));
        if let Some(m) = &t.last_fault {
            v.push(format!("    last: {m}"));
        }
    }
    if t.explained > 0 {
        v.push(format!(
            "  {} end-to-end difference(s) explained by allowed results upstream (right instruction by instruction; not findings)",
            t.explained
        ));
    }
    v.push(format!(
        "  {} mismatches, {} signature(s); findings: {} new, {} known (in {})",
        t.mismatches,
        t.signatures,
        t.findings_new,
        t.findings_known,
        out.display()
    ));
    for r in &s.findings {
        if r.new || r.hits > 0 {
            v.push(format!(
                "    {} {}: {} mismatch(es), {} instruction(s){}{}",
                if r.new { "NEW  " } else { "known" },
                r.key,
                r.hits,
                r.instructions,
                if r.new { format!(", found after {} cases", r.found_after_cases) } else { String::new() },
                if r.undocumented { " [undocumented form: ptxas accepts it, the PTX ISA does not document it]" } else { "" }
            ));
        }
    }
    if !s.damaged.is_empty() {
        // Named again at the end (the warnings at the start have scrolled away): a folder that
        // does not read is no finding to any reader, and this run did not meet it to rewrite it.
        v.push(format!(
            "  {} finding folder(s) in {} did not read and were not found again (not counted as findings): restore each \
             from a copy, or remove it and let a later campaign find it anew",
            s.damaged.len(),
            out.display()
        ));
        for (name, why) in s.damaged {
            v.push(format!("    {name}: {why}"));
        }
    }
    v.extend(next_steps(s, out));
    v
}

/// What to do next, from what the campaign found and what it ran on.
/// What the host target runs (`oracles::host_fpu`), for the advice below.
const HOST_COVERS: &str = "f32/f64 add, sub, mul, fma, div, sqrt";

fn next_steps(s: &Summary, out: &Path) -> Vec<String> {
    let t: &Totals = s.totals;
    let dir = out.display();
    let mut v = vec!["next:".to_string()];
    if let Some(first) = s.findings.iter().find(|r| r.new).or(s.findings.first()) {
        v.push(format!("  ptxfuzz repro {}    # re-run one finding and print its verdict", first.folder.display()));
        v.push(format!("  ptxfuzz explain {dir}    # what each one is, and the clusters of one cause (docs/triage.md)"));
        v.push(format!("  ptxfuzz-server serve --import {dir}    # open them in the dashboard here (a private PostgreSQL, no setup)"));
        v.push(format!("  ptxfuzz deliver --findings {dir} --server URL --token T    # or send them to a shared ptxfuzz server"));
        return v;
    }
    if t.cases == 0 {
        v.push(if !t.faults.is_empty() {
            "  no case was judged: see the engine faults above (`ptxfuzz engines --check` tells whether the target works)".into()
        } else if t.unsupported > 0 {
            // Running longer draws more of the same programs (`--target host --types f16`).
            format!(
                "  no case was judged: the target supports none of the {} program(s) drawn; choose --types/--families \
                 it runs{}, or another --target",
                t.unsupported,
                if s.target.name == "host" { format!(" (the host FPU: {HOST_COVERS})") } else { String::new() }
            )
        } else {
            "  no case was judged: the campaign ended before its first batch; run longer (--seconds N, or --cases N)".into()
        });
        return v;
    }
    if s.target.name == "host" {
        v.push(format!(
            "  no disagreement: this machine's FPU computed all {} cases exactly as the reference (the host \
             target covers {HOST_COVERS} only).",
            t.cases
        ));
        v.push("  to test a GPU, run this on a machine with one (--target cuda); to test your own emulator,".into());
        v.push("  --target 'exec:COMMAND' (docs/exec-protocol.md; `ptxfuzz engines --check exec:COMMAND` first).".into());
    } else if s.target.name.starts_with("replay:") {
        v.push(format!(
            "  no disagreement: every one of the {} recorded cases replayed is what the reference allows{}.",
            t.cases,
            if s.judge == "spec" { "" } else { " under this profile" }
        ));
        if s.judge == "spec" {
            v.push("  --judge sm_90 asks for the H100's exact bits instead of the spec's set.".into());
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_bounds_a_longer_or_unlimited_campaign_and_says_so() {
        assert_eq!(capped_seconds(Some(60.0), None).unwrap(), (Some(60.0), None));
        let (s, note) = capped_seconds(Some(60.0), Some("10")).unwrap();
        assert_eq!(s, Some(10.0));
        assert!(note.unwrap().contains(MAX_SECONDS_ENV));
        assert_eq!(capped_seconds(None, Some("5")).unwrap().0, Some(5.0));
        assert_eq!(capped_seconds(Some(3.0), Some("10")).unwrap(), (Some(3.0), None));
    }

    /// A summary of an end-to-end, spec-judged campaign of `totals` over `elapsed_s` seconds on
    /// two jobs, with nothing else set: each test names what it changes.
    fn summary_of<'a>(target: &'a crate::oracles::EngineInfo, config: &'a ptx::gen::GenConfig, totals: &'a Totals, elapsed_s: f64) -> Summary<'a> {
        Summary {
            target,
            seed: 1,
            mode: "end-to-end",
            judge: "spec",
            elapsed_s,
            rates: stats::Rates::between(&Totals::default(), totals, elapsed_s),
            exec_modes: &[],
            compiled_share: 0.0,
            jobs: 2,
            interrupted: false,
            config,
            totals,
            engine_stages: None,
            findings: Vec::new(),
            damaged: &NO_DAMAGE,
        }
    }

    static NO_DAMAGE: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();

    #[test]
    fn folders_that_did_not_read_and_were_not_rewritten_are_named_at_the_end_and_kept_in_the_json() {
        use crate::oracles::EngineInfo;
        let info = EngineInfo::new("interp", "ptxfuzz reference interpreter");
        let config = ptx::gen::GenConfig::default();
        let totals = Totals { cases: 10, programs: 1, results: 10, ..Totals::default() };
        let s = summary_of(&info, &config, &totals, 1.0);
        let text = lines(&s, Path::new("out"), &SourceReport::default()).join("\n");
        assert!(!text.contains("did not read"), "{text}");
        assert!(serde_json::to_value(&s).unwrap().get("damaged_folders").is_none());
        let damaged = std::collections::BTreeMap::from([("add.f32.rn:rounding".to_string(), "out/add.f32.rn:rounding/repro.json is not a ptxfuzz reproducer: EOF while parsing".to_string())]);
        let s = Summary { damaged: &damaged, ..s };
        let text = lines(&s, Path::new("out"), &SourceReport::default()).join("\n");
        assert!(text.contains("  1 finding folder(s) in out did not read and were not found again"), "{text}");
        assert!(text.contains("restore each from a copy, or remove it"), "{text}");
        assert!(text.contains("\n    add.f32.rn:rounding: out/add.f32.rn:rounding/repro.json is not a ptxfuzz reproducer: EOF"), "{text}");
        let json = serde_json::to_value(&s).unwrap();
        assert!(json["damaged_folders"]["add.f32.rn:rounding"].as_str().unwrap().contains("EOF while parsing"));
    }

    #[test]
    fn the_summary_gives_each_modes_cases_when_both_ran() {
        use crate::oracles::{EngineInfo, Exec};
        use stats::ModeTotals;
        let mut totals = Totals { cases: 11_000, programs: 11, results: 11_000, fast: 11_000, ..Totals::default() };
        totals.by_exec.insert(Exec::Isa, ModeTotals { cases: 10_000, programs: 10 });
        totals.by_exec.insert(Exec::Compiled, ModeTotals { cases: 1_000, programs: 1 });
        totals.time_us = stats::TimeSplit { source: 0, prepare: 100_000, engine: 1_500_000, judge: 300_000, findings: 100_000 };
        let info = EngineInfo::new("cuda:0", "NVIDIA H100");
        let config = ptx::gen::GenConfig::default();
        let s = Summary {
            exec_modes: &[Exec::Compiled, Exec::Isa],
            compiled_share: 0.1,
            jobs: 16,
            ..summary_of(&info, &config, &totals, 2.0)
        };
        let text = lines(&s, Path::new("out"), &SourceReport::default()).join("\n");
        assert!(!text.contains("engine split"), "{text}");
        assert!(text.contains("    isa: 10000 cases (5000 cases/s), 10 programs (5 programs/s)"), "{text}");
        assert!(text.contains("    compiled: 1000 cases (500 cases/s), 1 programs (0 programs/s)"), "{text}");
        // Where the 2 s went: the stage that bounds the campaign shows first-hand.
        assert!(text.contains("  time: source 0.0 s (0%), prepare 0.1 s (5%), engine 1.5 s (75%), judge 0.3 s (15%), findings 0.1 s (5%)"), "{text}");
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["rates_by_exec"]["isa"]["cases_per_s"], 5000.0);
        assert_eq!(json["totals"]["by_exec"]["compiled"]["programs"], 1);
        assert_eq!(json["totals"]["time_us"]["engine"], 1_500_000);
        assert_eq!(json["exec_modes"], serde_json::json!(["compiled", "isa"]));
        assert!(json.get("engine_stages_us").is_none());
        // An engine that splits its time (the cuda engine) has it printed and kept.
        let mut stages = crate::oracles::StageTimes::default();
        stages.time(crate::oracles::Stage::Wait, || std::thread::sleep(std::time::Duration::from_millis(1)));
        let s = Summary { engine_stages: Some(&stages), ..s };
        let text = lines(&s, Path::new("out"), &SourceReport::default()).join("\n");
        assert!(text.contains("\n  engine split (all its calls): wait 0.0"), "{text}");
        assert!(serde_json::to_value(&s).unwrap()["engine_stages_us"]["wait"].as_u64().unwrap() >= 1000);
        assert!(!text.contains("findings stage"), "{text}");
        // The findings stage's traced runs, and those of compiled programs the VM did not
        // resolve (each a program for ptxas): named only when there are some.
        let line = |resolved_compiled| {
            let totals = Totals { resolved: 12, resolve_calls: 3, resolved_compiled, ..totals.clone() };
            // Every field not named here is Copy: `s` stays whole.
            let s = Summary { totals: &totals, rates: s.rates.clone(), findings: Vec::new(), ..s };
            let text = lines(&s, Path::new("out"), &SourceReport::default()).join("\n");
            let line = text.lines().find(|l| l.contains("findings stage")).map(str::to_string);
            (line, serde_json::to_value(&s).unwrap()["totals"]["resolved_compiled"].clone())
        };
        assert_eq!(line(0), (Some("  findings stage: 12 mismatch(es) resolved by a traced run, in 3 engine call(s)".into()), 0.into()));
        assert_eq!(
            line(2),
            (Some("  findings stage: 12 mismatch(es) resolved by a traced run (2 traced compiled: the instruction VM gave another output), in 3 engine call(s)".into()), 2.into())
        );
    }

    #[test]
    fn no_case_judged_points_at_faults_or_unsupported_programs_only_when_there_were_some() {
        use crate::oracles::EngineInfo;
        let info = EngineInfo::new("interp", "ptxfuzz reference interpreter");
        let config = ptx::gen::GenConfig::default();
        let advice = |totals: &Totals| next_steps(&summary_of(&info, &config, totals, 0.0), Path::new("out")).join("\n");
        // `--seconds 0`: nothing ran, nothing failed.
        let text = advice(&Totals::default());
        assert!(text.contains("run longer") && !text.contains("faults"), "{text}");
        let mut faulted = Totals::default();
        faulted.faults.insert("cuda: no device".into(), 3);
        let text = advice(&faulted);
        assert!(text.contains("engine faults above") && text.contains("engines --check"), "{text}");
        // `--target host --types f16`: every program drawn was one the target does not run.
        let text = advice(&Totals { unsupported: 349_264, ..Totals::default() });
        assert!(text.contains("supports none of the 349264 program(s)") && !text.contains("run longer"), "{text}");
    }

    #[test]
    fn a_folder_in_the_way_of_summary_json_is_refused_before_the_campaign_runs() {
        let out = std::env::temp_dir().join(format!("ptxfuzz-summary-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        check_writable(&out).unwrap();
        std::fs::write(out.join("summary.json"), "{}").unwrap();
        check_writable(&out).unwrap();
        std::fs::remove_file(out.join("summary.json")).unwrap();
        std::fs::create_dir(out.join("summary.json")).unwrap();
        let e = check_writable(&out).unwrap_err().to_string();
        // Nothing left behind by the check itself.
        let left: Vec<_> = std::fs::read_dir(&out).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
        let _ = std::fs::remove_dir_all(&out);
        assert!(e.contains("summary.json is a folder") && e.contains("move it away"), "{e}");
        assert_eq!(left, ["summary.json"]);
    }

    #[test]
    fn a_bad_cap_is_an_error_naming_the_variable() {
        for bad in ["", "ten", "-1", "0", "inf"] {
            let e = capped_seconds(Some(1.0), Some(bad)).unwrap_err().to_string();
            assert!(e.contains(MAX_SECONDS_ENV), "{e}");
        }
    }
}
