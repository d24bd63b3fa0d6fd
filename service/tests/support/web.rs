//! Dashboard test helpers: a browser-like client (no redirects followed, cookies by hand),
//! logging in through the form, reading a page's CSRF token, seeding findings via the API.
#![allow(dead_code)]

use reqwest::header::{COOKIE, SET_COOKIE};
use reqwest::{Client, Response};

use crate::common::TestServer;

/// A client that shows redirects instead of following them.
pub fn browser() -> Client {
    Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// The `Set-Cookie` headers of a response.
pub fn set_cookies(r: &Response) -> Vec<String> {
    r.headers().get_all(SET_COOKIE).iter().map(|v| v.to_str().unwrap().to_string()).collect()
}

/// The value a `Set-Cookie` gives `name`, if any.
pub fn cookie_value(r: &Response, name: &str) -> Option<String> {
    set_cookies(r).iter().find_map(|c| {
        let first = c.split(';').next()?;
        let (n, v) = first.split_once('=')?;
        (n.trim() == name).then(|| v.to_string())
    })
}

/// Log in with `token`; returns the login response (303 on success).
pub async fn login_response(s: &TestServer, c: &Client, token: &str) -> Response {
    let r = c.get(format!("{}/login", s.url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let csrf = cookie_value(&r, "ptxfuzz_login_csrf").expect("GET /login sets the login CSRF cookie");
    c.post(format!("{}/login", s.url))
        .header(COOKIE, format!("ptxfuzz_login_csrf={csrf}"))
        .form(&[("token", token), ("csrf", csrf.as_str()), ("next", "/findings")])
        .send()
        .await
        .unwrap()
}

/// Log in; returns the session cookie header value (`ptxfuzz_session=...`).
pub async fn login(s: &TestServer, c: &Client, token: &str) -> String {
    let r = login_response(s, c, token).await;
    assert_eq!(r.status(), 303);
    format!("ptxfuzz_session={}", cookie_value(&r, "ptxfuzz_session").expect("session cookie"))
}

/// GET a page with a cookie (or none); status and body.
pub async fn page(s: &TestServer, c: &Client, path: &str, cookie: Option<&str>) -> (u16, String) {
    let mut rq = c.get(format!("{}{path}", s.url));
    if let Some(k) = cookie {
        rq = rq.header(COOKIE, k);
    }
    let r = rq.send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// The first hidden `csrf` field of a page.
pub fn csrf_of(html: &str) -> String {
    let at = html.find("name=\"csrf\" value=\"").expect("a form with a csrf field") + "name=\"csrf\" value=\"".len();
    html[at..].split('"').next().unwrap().to_string()
}
