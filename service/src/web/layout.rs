//! The frame of every page: head, navigation, who is logged in, and the content.

use maud::{html, Markup, DOCTYPE};

use super::session::Session;

/// Which navigation entry is current.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nav {
    Overview,
    Clusters,
    Findings,
    Regressions,
    Sweeps,
    None,
}

/// A whole page.
pub fn page(title: &str, nav: Nav, session: Option<&Session>, content: Markup) -> Markup {
    let item = |n: Nav, href: &str, label: &str| {
        html! { a href=(href) class=[(nav == n).then_some("current")] { (label) } }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · ptxfuzz" }
                link rel="stylesheet" href="/static/style.css";
            }
            body {
                header {
                    nav {
                        strong { "ptxfuzz" }
                        (item(Nav::Overview, "/", "Overview"))
                        (item(Nav::Clusters, "/clusters", "Clusters"))
                        (item(Nav::Findings, "/findings", "Findings"))
                        (item(Nav::Regressions, "/regressions", "Regressions"))
                        (item(Nav::Sweeps, "/sweeps", "Sweeps & math"))
                    }
                    div class="who" {
                        @if let Some(s) = session {
                            span { (s.name) " (" (s.role) ")" }
                            form method="post" action="/logout" class="inline" {
                                input type="hidden" name="csrf" value=(s.csrf);
                                button type="submit" { "Log out" }
                            }
                        } @else {
                            a href="/login" { "Log in" }
                        }
                    }
                }
                main { h1 { (title) } (content) }
            }
        }
    }
}
