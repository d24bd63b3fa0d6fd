//! `ptxfuzz explain DIR...`: each finding folder's explanation (the simplest alternative
//! semantics that reproduces the hardware's result, `ptx::explain`) and the clusters they form
//! (`api::cluster::ClusterKey`), in text or JSON (docs/triage.md).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use api::cluster::{cluster_of, ClusterKey};
use api::findings::FindingReport;
use clap::Args;

const AFTER: &str = "\
Each DIR is a finding folder (holding repro.json) or a campaign's --out folder (every finding
folder in it). The catalogue of explanations, the whole-program rewrites of ptxas that can explain
a compiled program's finding, and the cluster rule are in docs/triage.md.

A finding folder that does not read (a repro.json cut short) is named on stderr and skipped, the
others explained, and the exit status is 1; an unreadable summary.json is only a warning
(explanations need the finding folders alone).

Examples:
  ptxfuzz explain out/                    (a whole campaign)
  ptxfuzz explain 'out/fma.rz.bf16~rounding~normal.subnormal.normal~sm90'
  ptxfuzz explain out/ --json | jq '.clusters[0]'";

/// Explain findings: the simplest alternative semantics that reproduces each, and the clusters.
#[derive(Args, Debug)]
#[command(after_help = AFTER)]
pub struct ExplainArgs {
    /// Finding folders or campaign --out folders.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,

    /// Print one JSON object: `findings` (folder, signature, explanation or null, `fits`: the
    /// explanation's id, then every other catalogue entry that reproduces the finding,
    /// cluster) and `clusters` (key, size, largest first).
    #[arg(long)]
    json: bool,
}

/// A finding folder `explain` could not read or explain, named with what is wrong.
struct Skipped {
    folder: String,
    why: String,
}

/// The finding folders under `dir`: itself when it holds a repro.json, else its subfolders.
/// One that does not read is skipped and named (`skipped`), not the end of the run: with 300
/// findings, 299 explanations and the one damaged folder named are worth more than a stop at
/// the first; `run` still exits non-zero so that a script notices.
fn folders(dir: &Path, skipped: &mut Vec<Skipped>) -> Result<Vec<(String, FindingReport)>> {
    let what = "give a finding folder (it holds a repro.json) or a campaign's --out folder";
    if dir.join("repro.json").is_file() {
        return Ok(match api::folder::read_folder(dir, 1) {
            Ok(report) => vec![(dir.display().to_string(), report)],
            Err(e) => {
                skipped.push(Skipped { folder: dir.display().to_string(), why: e.to_string() });
                vec![]
            }
        });
    }
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => anyhow::bail!("{} does not exist: {what}", dir.display()),
        Err(e) => anyhow::bail!("cannot read {}: {e}", dir.display()),
        // `explain out/SIG/repro.json`: the folder around it is what was meant.
        Ok(m) if !m.is_dir() && dir.file_name().is_some_and(|n| n == "repro.json") => {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            anyhow::bail!("{} is a file, and explain takes folders: give its finding folder, {}", dir.display(), parent.display())
        }
        Ok(m) if !m.is_dir() => anyhow::bail!("{} is a file, not a folder: {what}", dir.display()),
        Ok(_) => {}
    }
    let read = api::folder::read_campaign_each(dir).with_context(|| format!("cannot explain {}", dir.display()))?;
    // Explanations need the finding folders only (summary.json has hit counts): say so, go on.
    if let Some(e) = &read.summary {
        eprintln!(
            "warning: {e}; explaining the finding folders without it (a campaign with --out {} writes it anew at its end)",
            dir.display()
        );
    }
    let bad = read.bad.len();
    for e in read.bad {
        let folder = e.path().parent().map_or_else(|| dir.display().to_string(), |p| p.display().to_string());
        skipped.push(Skipped { folder, why: e.to_string() });
    }
    // A campaign that found nothing still wrote its summary.json; a folder with neither is
    // most likely the wrong folder, and "0 findings" would hide that.
    anyhow::ensure!(
        !read.reports.is_empty() || bad > 0 || dir.join("summary.json").is_file(),
        "{} holds no finding (no repro.json in it or its subfolders) and no summary.json: {what}",
        dir.display()
    );
    Ok(read.reports.into_iter().map(|(folder, r)| (folder.display().to_string(), r)).collect())
}

pub fn run(args: ExplainArgs) -> Result<()> {
    let mut rows = Vec::new();
    let mut clusters: BTreeMap<ClusterKey, usize> = BTreeMap::new();
    let mut skipped = Vec::new();
    // A folder given twice (`explain f f`, or `f` and `./f`) is explained once: counted twice
    // it doubled every cluster's count.
    let mut seen = std::collections::BTreeSet::new();
    for dir in &args.dirs {
        if !seen.insert(std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone())) {
            eprintln!("note: {} was given already; explained once", dir.display());
            continue;
        }
        for (folder, report) in folders(dir, &mut skipped)? {
            let r = &report.reproducer;
            // A repro.json that parses but whose program does not load is skipped as one that
            // does not parse (`folders`).
            let (explanation, key) = match cluster_of(r) {
                Ok(x) => x,
                Err(e) => {
                    skipped.push(Skipped { folder, why: format!("{e:#}") });
                    continue;
                }
            };
            *clusters.entry(key.clone()).or_default() += 1;
            // The other entries that fit: a minimized case often cannot tell two causes apart.
            let mut fits = match api::cluster::finding_case(r) {
                Ok(Some((instr, cases))) => ptx::explain::fitting(&instr, &cases),
                _ => vec![],
            };
            // The answer comes first: the catalogue's first fit, or what the catalogue alone
            // does not list, a whole-program rewrite (a compiled finding) or `spec-allowed` (a
            // finding judged by a GPU profile that the spec allows), the catalogue's after it.
            if let Some(e) = &explanation {
                fits.retain(|&id| id != e.id);
                fits.insert(0, e.id);
            }
            rows.push((folder, r.signature.clone(), explanation, key, fits));
        }
    }
    let mut sizes: Vec<(ClusterKey, usize)> = clusters.into_iter().collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut out = crate::output::stdout();
    if args.json {
        let findings: Vec<_> = rows
            .iter()
            .map(|(folder, signature, e, key, fits)| {
                serde_json::json!({
                    "folder": folder,
                    "signature": signature,
                    "explanation": e.as_ref().map(|e| serde_json::json!({
                        "id": e.id,
                        "family": e.family_key,
                        "description": e.description,
                        "spec": e.spec,
                        "detail": e.detail,
                    })),
                    "fits": fits,
                    "cluster": key.key(),
                })
            })
            .collect();
        let clusters: Vec<_> =
            sizes.iter().map(|(k, n)| serde_json::json!({ "key": k.key(), "size": n })).collect();
        let skipped_json: Vec<_> =
            skipped.iter().map(|s| serde_json::json!({ "folder": s.folder, "error": s.why })).collect();
        serde_json::to_writer_pretty(
            &mut out,
            &serde_json::json!({ "findings": findings, "clusters": clusters, "skipped": skipped_json }),
        )?;
        writeln!(out)?;
        return skipped_error(&skipped);
    }
    for (folder, _, e, _, fits) in &rows {
        match e {
            Some(e) if e.detail.is_empty() => writeln!(out, "{folder}\n    {}: {}", e.id, e.description)?,
            Some(e) => writeln!(out, "{folder}\n    {}: {} ({})", e.id, e.description, e.detail)?,
            None => writeln!(out, "{folder}\n    unexplained")?,
        }
        if fits.len() > 1 {
            writeln!(out, "    also fits: {}", fits[1..].join(", "))?;
        }
    }
    if rows.is_empty() && skipped.is_empty() {
        // Only a campaign folder whose summary.json is there gets here (`folders`).
        let dirs: Vec<String> = args.dirs.iter().map(|d| d.display().to_string()).collect();
        writeln!(out, "0 findings in {}: no finding folder beside its summary.json, nothing to explain", dirs.join(", "))?;
        return Ok(());
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    if !rows.is_empty() {
        writeln!(out, "\n{} over {}:", plural(sizes.len(), "cluster"), plural(rows.len(), "finding"))?;
        for (k, n) in &sizes {
            writeln!(out, "{n:6}  {k}")?;
        }
    }
    out.flush()?;
    skipped_error(&skipped)
}

/// Name each skipped folder (stderr, after the explanations) and fail when there is one.
fn skipped_error(skipped: &[Skipped]) -> Result<()> {
    if skipped.is_empty() {
        return Ok(());
    }
    for s in skipped {
        eprintln!("skipped {}: {}", s.folder, s.why);
    }
    anyhow::bail!(
        "{} finding folder(s) skipped (named above), the others explained. {}",
        skipped.len(),
        api::folder::REPAIR_ADVICE
    )
}
