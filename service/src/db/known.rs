//! Known divergences: storage, and [`matching`], which marks findings that a rule covers (they
//! are still counted; the list shows them as known). Signature and target patterns are globs
//! (`*` any run of characters, everything else literal); driver bounds are dotted versions
//! compared numerically (`550.54.14` < `550.100`).

use std::cmp::Ordering;
use std::collections::HashMap;

use api::findings::{FindingSummary, KnownDivergence, KnownDivergenceNew};
use sqlx::PgPool;

pub async fn insert(pool: &PgPool, rule: &KnownDivergenceNew, created_by: &str) -> Result<KnownDivergence, sqlx::Error> {
    let row = sqlx::query!(
        "INSERT INTO known_divergences (pattern, target_pattern, driver_min, driver_max, reason, expires_at, created_by, cluster_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id, created_at",
        rule.pattern,
        rule.target_pattern,
        rule.driver_min,
        rule.driver_max,
        rule.reason,
        rule.expires_at,
        created_by,
        rule.cluster
    )
    .fetch_one(pool)
    .await?;
    Ok(KnownDivergence { id: row.id, rule: rule.clone(), created_by: created_by.to_string(), created_at: row.created_at })
}

/// Every rule, expired ones included, newest first.
pub async fn list(pool: &PgPool) -> Result<Vec<KnownDivergence>, sqlx::Error> {
    let rows = sqlx::query!(
        "SELECT id, pattern, target_pattern, driver_min, driver_max, reason, expires_at, created_by, created_at, cluster_id
         FROM known_divergences ORDER BY id DESC"
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| KnownDivergence {
            id: r.id,
            rule: KnownDivergenceNew {
                pattern: r.pattern,
                target_pattern: r.target_pattern,
                driver_min: r.driver_min,
                driver_max: r.driver_max,
                reason: r.reason,
                expires_at: r.expires_at,
                cluster: r.cluster_id,
            },
            created_by: r.created_by,
            created_at: r.created_at,
        })
        .collect())
}

/// Delete a rule; false when there was none.
pub async fn delete(pool: &PgPool, id: i64) -> Result<bool, sqlx::Error> {
    let n = sqlx::query!("DELETE FROM known_divergences WHERE id = $1", id).execute(pool).await?.rows_affected();
    Ok(n > 0)
}

/// An active rule, as matching needs it.
struct Rule {
    id: i64,
    pattern: String,
    target_pattern: String,
    driver_min: Option<String>,
    driver_max: Option<String>,
    /// Only findings of this cluster.
    cluster_id: Option<i64>,
}

impl Rule {
    /// Whether a reproducer on `target` with `driver` (unknown: `None`) falls under the rule. An
    /// unknown driver is inside only an unbounded range.
    fn covers(&self, target: &str, driver: Option<&str>) -> bool {
        if !glob_match(&self.target_pattern, target) {
            return false;
        }
        let (lo, hi) = (self.driver_min.as_deref(), self.driver_max.as_deref());
        match driver {
            None => lo.is_none() && hi.is_none(),
            Some(d) => {
                lo.is_none_or(|lo| compare_versions(d, lo) != Ordering::Less)
                    && hi.is_none_or(|hi| compare_versions(d, hi) != Ordering::Greater)
            }
        }
    }
}

/// Set `known` on each summary: the id of the first (oldest) active rule whose pattern matches
/// its signature, whose cluster (if it names one) is the finding's, and that covers one of its
/// reproducers (target and driver of the same
/// reproducer). Two queries whatever the number of items.
pub async fn matching(pool: &PgPool, items: &mut [FindingSummary]) -> Result<(), sqlx::Error> {
    for it in items.iter_mut() {
        it.known = None;
    }
    if items.is_empty() {
        return Ok(());
    }
    let rules = sqlx::query_as!(
        Rule,
        "SELECT id, pattern, target_pattern, driver_min, driver_max, cluster_id FROM known_divergences
         WHERE expires_at IS NULL OR expires_at > now() ORDER BY id"
    )
    .fetch_all(pool)
    .await?;
    if rules.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = items.iter().map(|i| i.id).collect();
    let rows = sqlx::query!(
        "SELECT DISTINCT finding_id, target, driver_version FROM reproducers WHERE finding_id = ANY($1)",
        &ids
    )
    .fetch_all(pool)
    .await?;
    let mut cases: HashMap<i64, Vec<(String, Option<String>)>> = HashMap::new();
    for r in rows {
        cases.entry(r.finding_id).or_default().push((r.target, r.driver_version));
    }
    for it in items.iter_mut() {
        let Some(cs) = cases.get(&it.id) else { continue };
        it.known = rules
            .iter()
            .find(|rule| {
                rule.cluster_id.is_none_or(|c| it.cluster_id == Some(c))
                    && glob_match(&rule.pattern, &it.signature)
                    && cs.iter().any(|(t, d)| rule.covers(t, d.as_deref()))
            })
            .map(|rule| rule.id);
    }
    Ok(())
}

/// Whether `text` matches `pattern`, where `*` is any run of characters (empty included) and
/// every other character is literal. Linear in both lengths: the text before the first `*` and
/// after the last are anchored at its ends, and each piece between two stars is found at its
/// leftmost place after the previous one (leftmost is never worse for a `*`-only glob, since
/// the stars on either side can absorb any text), with `str::find`, which is linear (Two-Way).
/// Backtracking over the last star, as this did before, took seconds on one long reproducer
/// target against a long rule, on the async threads of every read.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or("");
    let Some(rest) = text.strip_prefix(first) else { return false };
    let mut middle: Vec<&str> = pieces.collect();
    let Some(last) = middle.pop() else { return rest.is_empty() };
    if rest.len() < last.len() || !rest.ends_with(last) {
        return false;
    }
    let mut window = &rest[..rest.len() - last.len()];
    for piece in middle {
        match window.find(piece) {
            Some(at) => window = &window[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `v` is a dotted version: numbers separated by single dots (`550`, `550.54.14`).
pub fn is_version(v: &str) -> bool {
    !v.is_empty() && v.split('.').all(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
}

/// Compare dotted versions component by component, numerically (any length of digits: leading
/// zeros dropped, then the longer number is the larger); a missing component counts as 0, so
/// `550` == `550.0`. Non-numeric components compare as text (callers validate first).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.split('.'), b.split('.'));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return Ordering::Equal,
            (p, q) => {
                let (p, q) = (p.unwrap_or("0"), q.unwrap_or("0"));
                let (p, q) = (p.trim_start_matches('0'), q.trim_start_matches('0'));
                let o = p.len().cmp(&q.len()).then_with(|| p.cmp(q));
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_star_matches_any_run_and_the_rest_is_literal() {
        assert!(glob_match("*", ""));
        assert!(glob_match("*", "add.rz.f32~rounding"));
        assert!(glob_match("add.*~rounding~*", "add.rz.ftz.f32~rounding~normal.subnormal~sm90"));
        assert!(glob_match("add*f32*", "add.rz.f32~x"));
        assert!(!glob_match("add.*~ftz~*", "add.rz.f32~rounding~normal"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exact2"));
        assert!(!glob_match("exact", "exac"));
        // '.', '?' and '[' are literal, not regex or shell classes.
        assert!(!glob_match("a.c", "abc"));
        assert!(!glob_match("a?c", "abc"));
        assert!(glob_match("a?c", "a?c"));
        assert!(glob_match("[x]*", "[x]y"));
        assert!(glob_match("**a**", "bab"));
        assert!(glob_match("a*b*c", "aXbYbZc"));
        assert!(!glob_match("a*b*c", "aXbYbZ"));
        assert!(glob_match("*sm90", "mul~nan~sm90"));
        assert!(!glob_match("*sm90", "mul~nan~sm900"));
        // The prefix and the suffix may not overlap in the text.
        assert!(!glob_match("ab*ba", "aba"));
        assert!(glob_match("ab*ba", "abba"));
        assert!(glob_match("a*", "a") && !glob_match("a*", "") && glob_match("*a", "a"));
        assert!(glob_match("", "") && !glob_match("", "x"));
        // Multi-byte characters are literal too.
        assert!(glob_match("µ*→", "µx→") && !glob_match("µ*→", "µx"));
    }

    /// Every pattern over {a, b, *} up to 5 long against every text over {a, b} up to 6 long,
    /// held to a plain recursive definition of the glob.
    #[test]
    fn glob_agrees_with_the_recursive_definition_on_every_small_case() {
        fn reference(p: &[u8], t: &[u8]) -> bool {
            match p.split_first() {
                None => t.is_empty(),
                Some((b'*', rest)) => (0..=t.len()).any(|i| reference(rest, &t[i..])),
                Some((c, rest)) => t.first() == Some(c) && reference(rest, &t[1..]),
            }
        }
        fn all(alphabet: &[u8], max: usize) -> Vec<Vec<u8>> {
            let mut out = vec![vec![]];
            let mut frontier = vec![vec![]];
            for _ in 0..max {
                frontier = frontier.iter().flat_map(|w: &Vec<u8>| alphabet.iter().map(move |&c| [w.as_slice(), &[c]].concat())).collect();
                out.extend(frontier.iter().cloned());
            }
            out
        }
        for p in all(b"ab*", 5) {
            for t in all(b"ab", 6) {
                let (ps, ts) = (std::str::from_utf8(&p).unwrap(), std::str::from_utf8(&t).unwrap());
                assert_eq!(glob_match(ps, ts), reference(&p, &t), "pattern {ps:?} text {ts:?}");
            }
        }
    }

    /// The case that took seconds: a 3 MB text against a rule of many letters and a final `b`.
    /// Not a timing assertion: this finishes at once when linear, and in minutes when quadratic.
    #[test]
    fn glob_of_a_long_text_against_a_long_pattern_is_linear() {
        let text = "a".repeat(3_000_000);
        let pattern = format!("*{}b", "a".repeat(998));
        assert!(!glob_match(&pattern, &text));
        assert!(glob_match(&format!("*{}", "a".repeat(998)), &text));
    }

    #[test]
    fn versions_compare_numerically_not_as_text() {
        assert_eq!(compare_versions("550.54.14", "550.100"), Ordering::Less);
        assert_eq!(compare_versions("9.0", "10.0"), Ordering::Less);
        assert_eq!(compare_versions("550", "550.0.0"), Ordering::Equal);
        assert_eq!(compare_versions("550.01", "550.1"), Ordering::Equal);
        assert_eq!(compare_versions("560.1", "550.99"), Ordering::Greater);
        assert_eq!(compare_versions("99999999999999999999999", "1"), Ordering::Greater);
        assert!(is_version("550.54.14") && is_version("7"));
        assert!(!is_version("") && !is_version("550.") && !is_version(".5") && !is_version("5..4") && !is_version("r550"));
    }

    #[test]
    fn driver_range_is_inclusive_and_an_unknown_driver_only_fits_an_open_range() {
        let rule = |lo: Option<&str>, hi: Option<&str>| Rule {
            id: 1,
            pattern: "*".into(),
            target_pattern: "cuda:*".into(),
            driver_min: lo.map(Into::into),
            driver_max: hi.map(Into::into),
            cluster_id: None,
        };
        let r = rule(Some("550.54"), Some("560"));
        assert!(r.covers("cuda:0", Some("550.54")));
        assert!(r.covers("cuda:0", Some("560.0")));
        assert!(r.covers("cuda:0", Some("555.1.2")));
        assert!(!r.covers("cuda:0", Some("550.53.99")));
        assert!(!r.covers("cuda:0", Some("560.0.1")));
        assert!(!r.covers("host", Some("555")));
        assert!(!r.covers("cuda:0", None));
        assert!(rule(None, None).covers("cuda:1", None));
        assert!(rule(None, Some("500")).covers("cuda:1", Some("1")));
    }
}
