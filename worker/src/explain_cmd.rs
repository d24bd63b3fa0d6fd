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

/// The finding folders under `dir`: itself when it holds a repro.json, else its subfolders.
fn folders(dir: &Path) -> Result<Vec<(String, FindingReport)>> {
    if dir.join("repro.json").is_file() {
        let report = api::folder::read_folder(dir, 1)?;
        return Ok(vec![(dir.display().to_string(), report)]);
    }
    let what = "give a finding folder (it holds a repro.json) or a campaign's --out folder";
    anyhow::ensure!(dir.is_dir(), "{} is not a folder: {what}", dir.display());
    let reports = api::folder::read_campaign(dir).with_context(|| format!("cannot explain {}", dir.display()))?;
    // A campaign that found nothing still wrote its summary.json; a folder with neither is
    // most likely the wrong folder, and "0 findings" would hide that.
    anyhow::ensure!(
        !reports.is_empty() || dir.join("summary.json").is_file(),
        "{} holds no finding (no repro.json in it or its subfolders) and no summary.json: {what}",
        dir.display()
    );
    Ok(reports.into_iter().map(|r| (dir.join(&r.reproducer.signature).display().to_string(), r)).collect())
}

pub fn run(args: ExplainArgs) -> Result<()> {
    let mut rows = Vec::new();
    let mut clusters: BTreeMap<ClusterKey, usize> = BTreeMap::new();
    for dir in &args.dirs {
        for (folder, report) in folders(dir)? {
            let r = &report.reproducer;
            let (explanation, key) = cluster_of(r).with_context(|| format!("explaining {folder}"))?;
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
        serde_json::to_writer_pretty(&mut out, &serde_json::json!({ "findings": findings, "clusters": clusters }))?;
        writeln!(out)?;
        return Ok(());
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
    if rows.is_empty() {
        // Only a campaign folder whose summary.json is there gets here (`folders`).
        let dirs: Vec<String> = args.dirs.iter().map(|d| d.display().to_string()).collect();
        writeln!(out, "0 findings in {}: no finding folder beside its summary.json, nothing to explain", dirs.join(", "))?;
        return Ok(());
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(out, "\n{} over {}:", plural(sizes.len(), "cluster"), plural(rows.len(), "finding"))?;
    for (k, n) in &sizes {
        writeln!(out, "{n:6}  {k}")?;
    }
    Ok(())
}
