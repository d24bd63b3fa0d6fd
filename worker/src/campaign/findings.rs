//! The findings of a campaign: one folder per signature under `--out`, each a minimized
//! reproducer written as soon as it is found (`repro::write_dir`: atomic, fsync'ed).
//!
//! A mismatch is first *resolved*: in end-to-end mode the case is run again in trace mode (a
//! compiled program's on the instruction VM first, [`Findings::traced`]), and when an
//! instruction's own result is wrong there, the finding is that instruction's
//! signature (the root cause, not the output it spoiled), minimized in trace mode. When trace
//! mode shows nothing wrong (a compiler effect such as contraction, which storing every
//! intermediate prevents), the end-to-end signature stays and minimization runs end to end.
//! When trace mode shows nothing wrong AND the traced run's output equals the end-to-end one,
//! the mismatch is *explained*: every instruction is right on the values it got, and the output
//! only differs from the reference's because an earlier result took another allowed value (any
//! NaN, a value within an approximate bound, an alternative reading), which the end-to-end
//! expectation does not propagate. That is no finding. A signature is called explained after
//! [`EXPLAIN_CHECKS`] such cases in a row; one case with a root cause makes it a finding.
//! Minimization keeps the signature: a candidate fails iff the target gives a mismatch with
//! exactly that signature.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::compare::{self, CompareOptions, Mismatch, Signature};
use crate::minimize::{minimize, Case, Limits};
use crate::oracles::{Engine, Exec, Job};
use crate::repro::{self, Provenance, Reproducer, ReproducerExt};

/// One finding folder.
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    /// The signature key (also the folder name).
    pub key: String,
    pub class: String,
    pub folder: PathBuf,
    /// Mismatches counted under it in this run.
    pub hits: u64,
    /// Written by this run (else found in `--out` at start).
    pub new: bool,
    /// Instructions in the reproducer.
    pub instructions: usize,
    /// Cases compared when it was met (this run's count; 0 for earlier runs).
    pub found_after_cases: u64,
    /// Minimization candidates probed.
    pub probes: usize,
    /// The reproducer uses a form ptxas accepts but the PTX ISA does not document
    /// (`campaign --undocumented`): a compiler's extension, not a promise of the spec.
    pub undocumented: bool,
    /// The execution mode it was found in (`compiled` or `isa`).
    pub exec: Exec,
}

/// Whether `p` uses a form the PTX ISA does not document (ptx::isa::table, `Source::Ptxas`).
pub fn uses_undocumented(p: &ptx::program::Program) -> bool {
    p.body().iter().any(|s| !s.instr.is_documented())
}

/// Cases of one end-to-end signature checked before it is called explained for good.
pub const EXPLAIN_CHECKS: u32 = 4;

/// Where a judged signature leads.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Route {
    Finding(String),
    /// Explained by allowed upstream results in this many cases so far.
    Explained(u32),
}

/// What [`Findings::handle`] made of a mismatch.
#[derive(Debug)]
pub enum Handled<'a> {
    /// A finding (`Some` when this call wrote its folder).
    Finding(Option<&'a Record>),
    /// Explained by allowed results upstream: not a finding.
    Explained,
}

/// How an end-to-end mismatch resolves.
#[derive(Clone, Debug)]
pub enum Resolution {
    /// An instruction is wrong on its own inputs: its trace-mode signature, and the execution
    /// mode of the traced run that showed it (the finding is minimized and recorded in it).
    Root(Signature, Exec),
    /// Right instruction by instruction, but the output differs when intermediates are not
    /// stored (a compiler effect): the end-to-end signature stands.
    EndToEnd,
    /// Right instruction by instruction, with the same output.
    Explained,
}

/// The finding store of one campaign.
pub struct Findings {
    out: PathBuf,
    records: BTreeMap<String, Record>,
    /// Judged signature -> the finding key it resolved to.
    routes: HashMap<Signature, Route>,
    limits: Limits,
    copts: CompareOptions,
    /// The campaign runs in trace mode.
    trace: bool,
    /// The sm PTX files are written for.
    sm: u32,
    /// With `--server`: each new finding is also spooled for the server, before its folder
    /// is written (so a crash in between leaves the server with more, never with less).
    stager: Option<crate::server::Stager>,
    /// Folder name -> why its repro.json does not read: found at open, not known findings, and
    /// rewritten when their signature is found again ([`Findings::handle`]).
    damaged: BTreeMap<String, String>,
}

impl Findings {
    /// Open `out` (created if missing); folders already there are known findings.
    pub fn open(out: &Path, limits: Limits, copts: CompareOptions, trace: bool, sm: u32) -> Result<Findings> {
        anyhow::ensure!(!out.exists() || out.is_dir(), "--out {} is a file: give a folder (created if missing; one already there keeps its findings)", out.display());
        fs::create_dir_all(out).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
        // Before the campaign runs, not after: a summary that cannot be written is lost with
        // the whole run's figures.
        super::summary::check_writable(out)?;
        let mut records = BTreeMap::new();
        let mut damaged = BTreeMap::new();
        for entry in fs::read_dir(out)?.filter_map(|e| e.ok()) {
            let folder = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Hidden folders are not findings: `.spool`, and `repro::write_dir`'s temporary
            // `.KEY.tmp-PID` of a writer that was killed (its finding was not complete: the
            // campaign finds it again; `leftovers::tidy` below removes it).
            if name.starts_with('.') || !folder.join("repro.json").is_file() {
                continue;
            }
            // Writes are atomic (temporary folder, fsync, rename), so a repro.json that does
            // not read was damaged afterwards (a copy cut short, a full disk on a restore): not
            // a known finding, or the campaign would never write it again.
            let r = match Reproducer::load(&folder) {
                Ok(r) => r,
                Err(e) => {
                    // The error names the file (`... is not a ptxfuzz reproducer: EOF while ...`).
                    eprintln!(
                        "campaign: {e:#}; so {} is not counted as a known finding, and this campaign rewrites it if \
                         it finds that signature again (or restore it from a copy, or remove it)",
                        folder.display()
                    );
                    damaged.insert(name, format!("{e:#}"));
                    continue;
                }
            };
            let case = r.case().ok();
            let instructions = case.as_ref().map_or(0, |c| c.program.body().len());
            let undocumented = case.as_ref().is_some_and(|c| uses_undocumented(&c.program));
            records.insert(
                r.signature.clone(),
                Record {
                    key: r.signature.clone(),
                    class: r.class.clone(),
                    folder,
                    hits: 0,
                    new: false,
                    instructions,
                    found_after_cases: 0,
                    probes: r.probes,
                    undocumented,
                    exec: r.exec,
                },
            );
        }
        // A finding folder is whole when its repro.json read above.
        let whole = |key: &str| records.values().any(|r: &Record| r.folder == out.join(key));
        for t in super::leftovers::tidy(out, &whole) {
            eprintln!("{}", t.message());
        }
        Ok(Findings { out: out.to_path_buf(), records, routes: HashMap::new(), limits, copts, trace, sm, stager: None, damaged })
    }

    /// Finding folders whose repro.json did not read at open and were not rewritten yet
    /// (folder name -> why).
    pub fn damaged(&self) -> &BTreeMap<String, String> {
        &self.damaged
    }

    /// Also report every new finding to a server (through its spool).
    pub fn report_to(&mut self, stager: crate::server::Stager) {
        self.stager = Some(stager);
    }

    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.records.values()
    }

    pub fn new_count(&self) -> u64 {
        self.records.values().filter(|r| r.new).count() as u64
    }

    pub fn known_count(&self) -> u64 {
        self.records.values().filter(|r| !r.new).count() as u64
    }

    /// Distinct judged signatures that lead to findings.
    pub fn signatures(&self) -> u64 {
        self.routes.values().filter(|r| matches!(r, Route::Finding(_))).count() as u64
    }

    /// Resolve ahead, in one or two engine calls ([`Findings::traced`]), the mismatches of a
    /// batch that [`Findings::handle`] will resolve: `todo` holds, in the order `handle` will
    /// see them, each job's index in `jobs` and its first mismatch of each signature. A
    /// signature gets at most as many resolutions as it still needs ([`EXPLAIN_CHECKS`] for a
    /// new one; one that turns out to be a finding makes the rest unused). One traced run per
    /// mismatch, each its own engine call, made the findings stage 89 % of an H200 campaign's
    /// time (docs/hardware/nvidia-h200-2026-11-26/).
    pub fn resolve_batch(&self, engine: &mut dyn Engine, jobs: &[Job], todo: &[(usize, &Mismatch)]) -> Resolved {
        let mut resolved = Resolved::default();
        let mut budget: HashMap<&Signature, u32> = HashMap::new();
        let mut wanted: Vec<(usize, &Mismatch, Case)> = Vec::new();
        for &(i, m) in todo {
            let job = &jobs[i];
            if self.trace || job.trace {
                continue;
            }
            let left = match self.routes.get(&m.signature) {
                Some(Route::Finding(_)) => 0,
                Some(Route::Explained(n)) => EXPLAIN_CHECKS.saturating_sub(*n),
                None => EXPLAIN_CHECKS,
            };
            let used = budget.entry(&m.signature).or_insert(0);
            if *used >= left {
                continue;
            }
            *used += 1;
            let case = Case { program: job.program.clone(), inputs: job.case(m.case).to_vec() };
            if engine.supports(&case.program) {
                wanted.push((i, m, case));
            } else {
                resolved.by.insert((i, m.signature.clone()), Resolution::EndToEnd);
            }
        }
        if wanted.is_empty() {
            return resolved;
        }
        let items: Vec<(&Case, Exec, &Mismatch)> = wanted.iter().map(|(i, m, c)| (c, jobs[*i].exec, *m)).collect();
        let (resolutions, runs) = self.traced(engine, &items);
        for ((i, m, _), r) in wanted.iter().zip(resolutions) {
            resolved.by.insert((*i, m.signature.clone()), r);
        }
        resolved.runs = runs;
        resolved
    }

    /// The resolutions of `wanted` (each a case, the mode its program ran in, its mismatch), in
    /// order, by traced runs in at most two engine calls. Where the engine has the instruction
    /// VM (`isa` among its modes), a compiled program's case is traced there first: each
    /// instruction alone, as the hardware computes it, and no JIT. Every instruction right
    /// there, with the compiled output, explains the mismatch as a compiled traced run would;
    /// an instruction wrong there is a hardware root, found (and minimized, and re-run by
    /// `repro`) in `isa`. Only a compiled output the VM does not give (a compiler effect, or a
    /// NaN payload that ptxas's commuted operands chose) gets its compiled traced run, whose
    /// verdict stands as before. On the H200 the compiled traced runs of an all-compiled
    /// campaign were 3,639 JIT'd programs in 23.4 s (docs/hardware/nvidia-h200-2026-12-04/).
    fn traced(&self, engine: &mut dyn Engine, wanted: &[(&Case, Exec, &Mismatch)]) -> (Vec<Resolution>, TracedRuns) {
        let vm = engine.exec_modes().contains(&Exec::Isa);
        let vm_first = |exec: Exec| if vm && exec == Exec::Compiled { Exec::Isa } else { exec };
        let first: Vec<(&Case, Exec, &Mismatch)> = wanted.iter().map(|&(c, e, m)| (c, vm_first(e), m)).collect();
        let mut runs = TracedRuns::default();
        let mut out = self.run_traced(engine, &first, &mut runs);
        let again: Vec<usize> =
            (0..wanted.len()).filter(|&k| first[k].1 != wanted[k].1 && matches!(out[k], Resolution::EndToEnd)).collect();
        if !again.is_empty() {
            let second: Vec<(&Case, Exec, &Mismatch)> = again.iter().map(|&k| wanted[k]).collect();
            runs.compiled += again.len() as u64;
            for (k, r) in again.into_iter().zip(self.run_traced(engine, &second, &mut runs)) {
                out[k] = r;
            }
        }
        (out, runs)
    }

    /// One engine call: each of `items` traced in its mode, and its resolution.
    fn run_traced(&self, engine: &mut dyn Engine, items: &[(&Case, Exec, &Mismatch)], runs: &mut TracedRuns) -> Vec<Resolution> {
        let jobs: Vec<Job> = items.iter().map(|(c, e, _)| Job::new(&c.program, &c.inputs, true).with_exec(*e)).collect();
        runs.calls += 1;
        jobs.iter().zip(items).zip(engine.run(&jobs)).map(|((job, (_, _, m)), out)| self.resolution(job, out.ok(), m)).collect()
    }

    /// Count `hits` mismatches of `m`'s signature. The first time a signature is met, resolve
    /// it (or take its resolution from `ahead`, [`Findings::resolve_batch`]), and if its
    /// finding is new, minimize `m`'s case and write the reproducer.
    pub fn handle(
        &mut self,
        engine: &mut dyn Engine,
        job: &Job,
        m: &Mismatch,
        hits: u64,
        cases_before: u64,
        ahead: Option<Resolution>,
    ) -> Result<Handled<'_>> {
        let explained_so_far = match self.routes.get(&m.signature) {
            Some(Route::Finding(key)) => {
                if let Some(r) = self.records.get_mut(key) {
                    r.hits += hits;
                }
                return Ok(Handled::Finding(None));
            }
            Some(Route::Explained(n)) if *n >= EXPLAIN_CHECKS => return Ok(Handled::Explained),
            Some(Route::Explained(n)) => *n,
            None => 0,
        };
        let original = Case { program: job.program.clone(), inputs: job.case(m.case).to_vec() };
        let resolution = if self.trace || job.trace {
            Resolution::Root(m.signature.clone(), job.exec)
        } else if let Some(r) = ahead {
            r
        } else {
            self.resolve(engine, &original, m, job.exec)
        };
        // Every run of the finding uses the mode it was found in: a compiler effect shows only
        // in `compiled`, a VM or hardware one in `isa` (a root the VM showed for a compiled
        // program's case included: [`Findings::traced`]).
        let (sig, trace, exec) = match resolution {
            Resolution::Root(s, exec) => (s, true, exec),
            Resolution::EndToEnd => (m.signature.clone(), false, job.exec),
            Resolution::Explained => {
                self.routes.insert(m.signature.clone(), Route::Explained(explained_so_far + 1));
                return Ok(Handled::Explained);
            }
        };
        let key = sig.key();
        self.routes.insert(m.signature.clone(), Route::Finding(key.clone()));
        if let Some(r) = self.records.get_mut(&key) {
            r.hits += hits;
            return Ok(Handled::Finding(None));
        }
        let copts = self.copts.clone();
        let min = minimize(original.clone(), &self.limits, |cands| probe(engine, cands, trace, exec, &copts, &sig));
        let case = min.case;
        // The reproducer records the outputs (not the trace) as the target gives them.
        let out = engine.run(&[Job::new(&case.program, &case.inputs, false).with_exec(exec)]).pop();
        let actual = match out {
            Some(Ok(o)) => o.case(0)[..case.program.outputs().len()].to_vec(),
            // The target gave results a moment ago; record the reference's if it now faults.
            _ => case.program.run(&case.inputs)?.iter().map(|e| e.primary_bits()).collect(),
        };
        let info = engine.info();
        let meta = Provenance {
            signature: key.clone(),
            class: sig.class.name().to_string(),
            target: info.name.clone(),
            device: info.device.clone(),
            sm: self.sm,
            found_after_cases: cases_before + m.case as u64 + 1,
            original: Some(original),
            probes: min.probes,
            steps: min.steps,
            exec,
        };
        let r = Reproducer::judged(&case, &actual, meta, &self.copts.profile)?;
        let folder = self.out.join(&key);
        let damaged = self.damaged.remove(&key);
        let new = !folder.exists() || damaged.is_some();
        if new {
            if let Some(s) = &self.stager {
                s.stage(&r, hits)?;
            }
            match damaged {
                Some(_) => {
                    rewrite_dir(&self.out, &folder, &r)?;
                    eprintln!("\ncampaign: rewrote {}, which did not read at the start", folder.join("repro.json").display());
                }
                None => repro::write_dir(&folder, &r)?,
            }
        }
        let record = Record {
            key: key.clone(),
            class: r.class.clone(),
            folder,
            hits,
            new,
            instructions: case.program.body().len(),
            found_after_cases: r.found_after_cases,
            probes: min.probes,
            undocumented: uses_undocumented(&case.program),
            exec,
        };
        self.records.insert(key.clone(), record);
        Ok(Handled::Finding(self.records.get(&key).filter(|r| r.new)))
    }

    /// Resolve `m` by tracing `case` (see [`Resolution`], [`Findings::traced`]). An engine
    /// that cannot trace the case leaves the end-to-end signature.
    fn resolve(&self, engine: &mut dyn Engine, case: &Case, m: &Mismatch, exec: Exec) -> Resolution {
        if !engine.supports(&case.program) {
            return Resolution::EndToEnd;
        }
        self.traced(engine, &[(case, exec, m)]).0.pop().unwrap_or(Resolution::EndToEnd)
    }

    /// The resolution of `m` from its case's traced run `job` and what the target gave for it.
    fn resolution(&self, job: &Job, out: Option<crate::oracles::Output>, m: &Mismatch) -> Resolution {
        let Some(out) = out else { return Resolution::EndToEnd };
        let Ok(v) = compare::check(job, &out, &self.copts) else { return Resolution::EndToEnd };
        if let Some(root) = v.mismatches.iter().min_by_key(|m| m.instr_index.unwrap_or(usize::MAX)) {
            return Resolution::Root(root.signature.clone(), job.exec);
        }
        if out.case(0)[m.slot] == m.got {
            Resolution::Explained
        } else {
            Resolution::EndToEnd
        }
    }
}

/// Replace the damaged finding folder `folder` of `out` with `r`'s: moved aside (hidden, so no
/// reader takes it for a finding), written anew as every finding folder is (atomically), then
/// removed. A kill in between leaves no folder under the signature's name, so the next
/// campaign writes it afresh, and the damaged copy hidden beside it.
fn rewrite_dir(out: &Path, folder: &Path, r: &Reproducer) -> Result<()> {
    let name = folder.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let aside = out.join(format!(".{name}.damaged-{}", std::process::id()));
    let _ = fs::remove_dir_all(&aside);
    fs::rename(folder, &aside).map_err(|e| anyhow::anyhow!("cannot move the damaged {} aside: {e}", folder.display()))?;
    repro::write_dir(folder, r)?;
    let _ = fs::remove_dir_all(&aside);
    Ok(())
}

/// Resolutions made ahead for one batch ([`Findings::resolve_batch`]), by job index and
/// signature, and the traced runs that made them.
#[derive(Default)]
pub struct Resolved {
    by: HashMap<(usize, Signature), Resolution>,
    pub runs: TracedRuns,
}

impl Resolved {
    /// The resolution made ahead for job `i`'s mismatch of signature `sig`, if any.
    pub fn take(&mut self, i: usize, sig: &Signature) -> Option<Resolution> {
        self.by.remove(&(i, sig.clone()))
    }

    /// How many were made.
    pub fn len(&self) -> usize {
        self.by.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by.is_empty()
    }
}

/// The traced runs of a findings stage's resolutions ([`Findings::traced`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TracedRuns {
    /// Engine calls.
    pub calls: u64,
    /// Those of compiled programs traced compiled after the instruction VM did not give their
    /// output (each one a program for ptxas or the JIT).
    pub compiled: u64,
}

/// The minimization oracle: run the candidates on the target (one case each, all in one
/// call) and say which still give a mismatch with signature `sig`.
fn probe(
    engine: &mut dyn Engine,
    cands: &[Case],
    trace: bool,
    exec: Exec,
    copts: &CompareOptions,
    sig: &Signature,
) -> Vec<bool> {
    let mut verdict = vec![false; cands.len()];
    let idx: Vec<usize> = (0..cands.len()).filter(|&i| engine.supports(&cands[i].program)).collect();
    let jobs: Vec<Job> = idx.iter().map(|&i| Job::new(&cands[i].program, &cands[i].inputs, trace).with_exec(exec)).collect();
    if jobs.is_empty() {
        return verdict;
    }
    for ((&i, job), out) in idx.iter().zip(&jobs).zip(engine.run(&jobs)) {
        verdict[i] = out
            .ok()
            .and_then(|o| compare::check(job, &o, copts).ok())
            .is_some_and(|v| v.signatures.contains_key(sig));
    }
    verdict
}
