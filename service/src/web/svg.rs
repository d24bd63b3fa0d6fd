//! Small SVG plots drawn on the server (no library, no script, no network): horizontal bars
//! with labels and counts, bars per day, and error histograms with a marker at the documented
//! bound. Every text goes through maud, which escapes `<>&"'`; every plot has a fixed viewBox,
//! and the largest bar spans the whole plot area.

use chrono::NaiveDate;
use maud::{html, Markup};

/// Width and height of every plot's viewBox.
pub const WIDTH: f64 = 600.0;
pub const HEIGHT: f64 = 300.0;
/// Most bars a horizontal chart draws; [`top`] folds the rest into one.
pub const MAX_BARS: usize = 12;

/// How bar lengths follow the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// log(1 + v): a histogram of errors spans many orders of magnitude; a bar of 1 stays visible.
    Log,
}

impl Scale {
    /// `v` against the largest value, 0..=1.
    fn fraction(self, v: u64, max: u64) -> f64 {
        if max == 0 {
            return 0.0;
        }
        match self {
            Scale::Linear => v as f64 / max as f64,
            Scale::Log => (v as f64).ln_1p() / (max as f64).ln_1p(),
        }
    }
}

/// The `n - 1` largest entries and the rest summed as `other` (at most `n` entries, order kept
/// for the kept ones).
pub fn top(mut entries: Vec<(String, u64)>, n: usize, other: &str) -> Vec<(String, u64)> {
    if entries.len() <= n {
        return entries;
    }
    entries.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let rest: u64 = entries[n - 1..].iter().map(|e| e.1).sum();
    entries.truncate(n - 1);
    entries.push((other.to_string(), rest));
    entries
}

fn num(v: f64) -> String {
    format!("{v:.1}")
}

/// Horizontal bars, one per entry (label on the left, count on the right of each bar);
/// callers pass at most [`MAX_BARS`] (see [`top`]).
pub fn hbars(title: &str, entries: &[(String, u64)]) -> Markup {
    let entries = &entries[..entries.len().min(MAX_BARS)];
    let max = entries.iter().map(|e| e.1).max().unwrap_or(0);
    let (left, right, top_m, bottom) = (150.0, 70.0, 10.0, 10.0);
    let plot_w = WIDTH - left - right;
    let row = (HEIGHT - top_m - bottom) / entries.len().max(1) as f64;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" {
            title { (title) }
            @if entries.is_empty() {
                text x=(num(WIDTH / 2.0)) y=(num(HEIGHT / 2.0)) text-anchor="middle" class="empty" { "no data" }
            }
            @for (i, (label, v)) in entries.iter().enumerate() {
                @let y = top_m + row * i as f64;
                @let w = plot_w * Scale::Linear.fraction(*v, max);
                g {
                    title { (label) ": " (v) }
                    text x=(num(left - 6.0)) y=(num(y + row / 2.0 + 4.0)) text-anchor="end" class="label" { (label) }
                    rect x=(num(left)) y=(num(y + row * 0.15)) width=(num(w)) height=(num(row * 0.7)) class="bar" {}
                    text x=(num(left + w + 4.0)) y=(num(y + row / 2.0 + 4.0)) class="count" { (v) }
                }
            }
            line x1=(num(left)) y1=(num(top_m)) x2=(num(left)) y2=(num(HEIGHT - bottom)) class="axis" {}
        }
    }
}

/// One bar per day from `first` to `last` (days absent from `counts` are 0), with a count axis
/// and the first, middle and last dates under the bars.
pub fn per_day(title: &str, first: NaiveDate, last: NaiveDate, counts: &[(NaiveDate, u64)]) -> Markup {
    let days: Vec<NaiveDate> = first.iter_days().take_while(|d| *d <= last).take(366).collect();
    let value = |d: &NaiveDate| counts.iter().filter(|c| c.0 == *d).map(|c| c.1).sum::<u64>();
    let values: Vec<u64> = days.iter().map(value).collect();
    let max = values.iter().copied().max().unwrap_or(0);
    let (left, right, top_m, bottom) = (50.0, 10.0, 10.0, 40.0);
    let plot_w = WIDTH - left - right;
    let plot_h = HEIGHT - top_m - bottom;
    let col = plot_w / days.len().max(1) as f64;
    let base = HEIGHT - bottom;
    let ticks: Vec<usize> = match days.len() {
        0 => vec![],
        1 => vec![0],
        n => vec![0, n / 2, n - 1],
    };
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" {
            title { (title) }
            @for (i, (d, v)) in days.iter().zip(&values).enumerate() {
                @let h = plot_h * Scale::Linear.fraction(*v, max);
                rect x=(num(left + col * i as f64 + col * 0.1)) y=(num(base - h)) width=(num(col * 0.8)) height=(num(h)) class="bar" {
                    title { (d) ": " (v) }
                }
            }
            line x1=(num(left)) y1=(num(base)) x2=(num(WIDTH - right)) y2=(num(base)) class="axis" {}
            line x1=(num(left)) y1=(num(top_m)) x2=(num(left)) y2=(num(base)) class="axis" {}
            text x=(num(left - 6.0)) y=(num(top_m + 8.0)) text-anchor="end" class="label" { (max) }
            text x=(num(left - 6.0)) y=(num(base)) text-anchor="end" class="label" { "0" }
            @for i in ticks {
                text x=(num(left + col * (i as f64 + 0.5))) y=(num(base + 16.0)) text-anchor="middle" class="label" { (days[i].format("%m-%d")) }
            }
            text x=(num(left + plot_w / 2.0)) y=(num(HEIGHT - 4.0)) text-anchor="middle" class="axis-label" { "day (UTC)" }
        }
    }
}

/// Where the documented bound falls on a histogram: after bucket `after` (its errors are
/// within the bound, the next bucket's are not), labelled `label`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub after: usize,
    pub label: String,
}

/// Vertical bars per bucket (log scale: error counts span many orders of magnitude), labels
/// under the bars, and a dashed vertical line at `marker`.
pub fn histogram(title: &str, buckets: &[(String, u64)], marker: Option<&Marker>) -> Markup {
    let buckets = &buckets[..buckets.len().min(80)];
    let max = buckets.iter().map(|b| b.1).max().unwrap_or(0);
    let (left, right, top_m, bottom) = (50.0, 10.0, 24.0, 50.0);
    let plot_w = WIDTH - left - right;
    let plot_h = HEIGHT - top_m - bottom;
    let col = plot_w / buckets.len().max(1) as f64;
    let base = HEIGHT - bottom;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" {
            title { (title) }
            @for (i, (label, v)) in buckets.iter().enumerate() {
                @let h = plot_h * Scale::Log.fraction(*v, max);
                @let x = left + col * i as f64;
                g {
                    title { (label) " ulp: " (v) }
                    rect x=(num(x + col * 0.1)) y=(num(base - h)) width=(num(col * 0.8)) height=(num(h)) class="bar" {}
                    text x=(num(x + col / 2.0)) y=(num(base + 14.0)) text-anchor="middle" class="label" { (label) }
                }
            }
            line x1=(num(left)) y1=(num(base)) x2=(num(WIDTH - right)) y2=(num(base)) class="axis" {}
            line x1=(num(left)) y1=(num(top_m)) x2=(num(left)) y2=(num(base)) class="axis" {}
            text x=(num(left - 6.0)) y=(num(top_m + 8.0)) text-anchor="end" class="label" { (max) }
            text x=(num(left - 6.0)) y=(num(base)) text-anchor="end" class="label" { "0" }
            text x=(num(left + plot_w / 2.0)) y=(num(HEIGHT - 6.0)) text-anchor="middle" class="axis-label" { "error (ulps, log-scale counts)" }
            @if let Some(m) = marker {
                @let x = left + col * (m.after.min(buckets.len()) as f64 + 1.0);
                line x1=(num(x)) y1=(num(top_m - 4.0)) x2=(num(x)) y2=(num(base)) class="bound" stroke-dasharray="4 3" {}
                text x=(num(x)) y=(num(top_m - 8.0)) text-anchor="middle" class="bound-label" { (m.label) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tags of `s` nest properly (a minimal XML check: no `<` inside text or attributes
    /// except as tags, every opened element closed in order).
    fn balanced(s: &str) -> bool {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = s;
        while let Some(i) = rest.find('<') {
            let Some(j) = rest[i..].find('>') else { return false };
            let tag = &rest[i + 1..i + j];
            if tag.contains('<') {
                return false;
            }
            if let Some(name) = tag.strip_prefix('/') {
                if stack.pop().as_deref() != Some(name) {
                    return false;
                }
            } else if !tag.ends_with('/') {
                stack.push(tag.split_whitespace().next().unwrap_or("").to_string());
            }
            rest = &rest[i + j + 1..];
        }
        stack.is_empty()
    }

    fn attr_values(s: &str, elem: &str, attr: &str) -> Vec<f64> {
        s.split(&format!("<{elem} "))
            .skip(1)
            .filter_map(|e| {
                let at = e.find(&format!(" {attr}=\"")).map(|k| k + attr.len() + 3).or_else(|| {
                    e.starts_with(&format!("{attr}=\"")).then_some(attr.len() + 2)
                })?;
                e[at..].split('"').next()?.parse().ok()
            })
            .collect()
    }

    #[test]
    fn labels_are_escaped_and_tags_balance() {
        let evil = "<b>x</b> & \"q\" 'a'";
        for svg in [
            hbars(evil, &[(evil.to_string(), 3), ("b".into(), 1)]).into_string(),
            histogram(evil, &[(evil.to_string(), 5)], Some(&Marker { after: 0, label: evil.into() })).into_string(),
            per_day(evil, NaiveDate::from_ymd_opt(2025, 1, 1).unwrap(), NaiveDate::from_ymd_opt(2025, 1, 3).unwrap(), &[]).into_string(),
        ] {
            assert!(balanced(&svg), "{svg}");
            assert!(!svg.contains("<b>"), "{svg}");
            assert!(svg.contains("&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot;"), "{svg}");
            assert!(svg.starts_with("<svg") && svg.contains("viewBox=\"0 0 600 300\""), "{svg}");
        }
    }

    #[test]
    fn the_largest_horizontal_bar_spans_the_plot_width() {
        let svg = hbars("t", &[("a".into(), 10), ("b".into(), 5), ("c".into(), 0)]).into_string();
        let widths = attr_values(&svg, "rect", "width");
        assert_eq!(widths.len(), 3);
        assert_eq!(widths[0], WIDTH - 150.0 - 70.0);
        assert_eq!(widths[1], widths[0] / 2.0);
        assert_eq!(widths[2], 0.0);
    }

    #[test]
    fn per_day_fills_missing_days_and_the_top_day_is_full_height() {
        let d = |day| NaiveDate::from_ymd_opt(2025, 3, day).unwrap();
        let svg = per_day("t", d(1), d(10), &[(d(2), 4), (d(5), 8)]).into_string();
        assert!(balanced(&svg));
        let heights = attr_values(&svg, "rect", "height");
        assert_eq!(heights.len(), 10, "one bar per day");
        assert_eq!(heights[4], HEIGHT - 10.0 - 40.0);
        assert_eq!(heights[1], heights[4] / 2.0);
        assert_eq!(heights.iter().filter(|h| **h == 0.0).count(), 8);
        assert!(svg.contains("03-01") && svg.contains("03-10"));
    }

    #[test]
    fn histogram_scales_logarithmically_and_draws_the_bound() {
        let b: Vec<(String, u64)> = vec![("0".into(), 1000), ("1".into(), 1), ("2".into(), 0)];
        let svg = histogram("t", &b, Some(&Marker { after: 1, label: "bound 1 ulp".into() })).into_string();
        assert!(balanced(&svg), "{svg}");
        let heights = attr_values(&svg, "rect", "height");
        let full = HEIGHT - 24.0 - 50.0;
        assert_eq!(heights[0], full);
        assert!(heights[1] > 0.0 && heights[1] < full / 5.0, "{heights:?}");
        assert_eq!(heights[2], 0.0);
        assert!(svg.contains("class=\"bound\"") && svg.contains("bound 1 ulp"));
        let no_marker = histogram("t", &b, None).into_string();
        assert!(!no_marker.contains("class=\"bound\""));
    }

    #[test]
    fn top_folds_the_smallest_into_other() {
        let e: Vec<(String, u64)> = (0..5).map(|i| (format!("k{i}"), i)).collect();
        let t = top(e.clone(), 3, "other");
        assert_eq!(t, vec![("k4".into(), 4), ("k3".into(), 3), ("other".into(), 3)]);
        assert_eq!(top(e.clone(), 5, "other"), e);
    }

    #[test]
    fn empty_charts_say_so() {
        let svg = hbars("t", &[]).into_string();
        assert!(balanced(&svg) && svg.contains("no data"));
        assert!(balanced(&histogram("t", &[], None).into_string()));
    }
}
