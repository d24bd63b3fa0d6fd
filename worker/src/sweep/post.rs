//! `--server URL --token T` of `ptxfuzz sweep` and `ptxfuzz math-check`: the finished report,
//! as an `api::sweeps::SweepReport`, is posted to `POST /api/v1/sweeps`. The report is printed
//! (and saved with --save) before; a post that fails after a few tries writes the body to a
//! file and says how to post it again, so nothing is lost.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use api::sweeps::{Bucket, SweepReport};
use clap::Args;

use crate::server::client::{Client, Failure};

/// Where to report.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Server")]
pub struct PostArgs {
    /// Post the report to this ptxfuzz server (http:// or https://HOST[:PORT]) when done.
    #[arg(long, env = "PTXFUZZ_SERVER")]
    pub server: Option<String>,
    /// Bearer token with the worker role (`ptxfuzz-server token create --role worker`).
    #[arg(long, env = "PTXFUZZ_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

impl PostArgs {
    /// The client, or `None` without --server; an error for a token alone or a bad URL.
    /// Checked before the work starts, so a typo does not cost a whole sweep.
    pub fn client(&self) -> Result<Option<Client>> {
        match (&self.server, &self.token) {
            (None, Some(_)) => bail!("--token (or PTXFUZZ_TOKEN) needs --server URL (or PTXFUZZ_SERVER)"),
            (None, None) => Ok(None),
            (Some(url), token) => Ok(Some(Client::new(url, token.clone()).map_err(anyhow::Error::msg)?)),
        }
    }
}

/// The histogram as buckets (`sweep::bucket_label`), trailing empty ones already dropped.
pub fn buckets(histogram: &[u64]) -> Vec<Bucket> {
    histogram
        .iter()
        .enumerate()
        .map(|(b, &count)| Bucket { label: super::bucket_label(b), lo: if b < 4 { b as u64 } else { 1u64 << (b - 2) }, count })
        .collect()
}

/// Tries before giving up on a server that does not answer.
const TRIES: u32 = 3;

/// Post `report`; on failure save it and say how to re-post it.
pub fn post(client: &Client, report: &SweepReport) -> Result<()> {
    let mut wait = Duration::from_secs(1);
    let mut tries = 0;
    let failure = loop {
        tries += 1;
        match client.post_json::<_, serde_json::Value>("/sweeps", report) {
            Ok(stored) => {
                eprintln!("posted to {}/sweeps (id {})", client.api(), stored["id"]);
                return Ok(());
            }
            Err(Failure::Retryable(m)) if tries < TRIES => {
                eprintln!("posting the report failed ({m}); retrying in {} s", wait.as_secs());
                std::thread::sleep(wait);
                wait *= 2;
            }
            Err(f) => break f,
        }
    };
    let path = save_unsent(report)?;
    bail!(
        "the report was not posted to {api}/sweeps: {failure}\nit is saved in {p}; post it again with\n  \
         curl -X POST -H \"Authorization: Bearer $PTXFUZZ_TOKEN\" -H 'Content-Type: application/json' --data @{p} {api}/sweeps",
        api = client.api(),
        p = path.display()
    )
}

/// Write the unsent body to `ptxfuzz-KIND-NAME-TIME.json` in the current folder (else the
/// temporary folder).
fn save_unsent(report: &SweepReport) -> Result<PathBuf> {
    let name: String = report.name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' }).collect();
    let file = format!("ptxfuzz-{}-{name}-{}.json", report.kind, report.at.format("%Y%m%dT%H%M%S"));
    let json = serde_json::to_string_pretty(report)? + "\n";
    let here = PathBuf::from(&file);
    if std::fs::write(&here, &json).is_ok() {
        return Ok(here);
    }
    let tmp = std::env::temp_dir().join(&file);
    std::fs::write(&tmp, &json)?;
    Ok(tmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_carry_their_labels_and_lower_bounds() {
        let b = buckets(&[5, 0, 1, 0, 2, 3]);
        let v: Vec<(&str, u64, u64)> = b.iter().map(|b| (b.label.as_str(), b.lo, b.count)).collect();
        assert_eq!(v, vec![("0", 0, 5), ("1", 1, 0), ("2", 2, 1), ("3", 3, 0), ("4-7", 4, 2), ("8-15", 8, 3)]);
    }

    #[test]
    fn a_token_without_a_server_is_refused() {
        let a = PostArgs { server: None, token: Some("t".into()) };
        assert!(a.client().unwrap_err().to_string().contains("--server"));
        assert!(PostArgs::default().client().unwrap().is_none());
        assert!(PostArgs { server: Some("ftp://x".into()), token: None }.client().is_err());
    }
}
