//! A small W3C WebDriver client for the browser test: starts Debian's `chromedriver` on a free
//! loopback port, opens one headless Chromium session and speaks the protocol's JSON over HTTP
//! (navigate, find by CSS, type, click, read text and attributes, screenshot), and the
//! numbered screenshots the tests keep ([`Shots`]).
//!
//! Written here rather than taken from a crate because the test needs a dozen commands, and
//! this keeps the dependency tree (and CI's build) small.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

/// Where Debian's `chromium` and `chromium-driver` packages put their binaries.
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The key under which W3C WebDriver returns an element reference.
const ELEMENT_KEY: &str = "element-6066-11e4-a52f-4f5d-be0d-2d1b8b5d98d6";

/// What the environment says about running the browser test.
#[derive(Debug, PartialEq, Eq)]
pub enum Availability {
    /// Both binaries are there.
    Ready { chromium: PathBuf, chromedriver: PathBuf },
    /// `PTXFUZZ_SKIP_BROWSER=1`: skipped on purpose.
    SkippedByRequest,
}

/// Finds the browser and its driver (`PTXFUZZ_CHROMIUM` / `PTXFUZZ_CHROMEDRIVER` override the
/// Debian paths). Missing binaries are an error telling what to run, never a silent skip: CI
/// installs them, so their absence is a broken setup.
pub fn availability() -> Result<Availability, String> {
    if std::env::var("PTXFUZZ_SKIP_BROWSER").as_deref() == Ok("1") {
        return Ok(Availability::SkippedByRequest);
    }
    let find = |var: &str, default: &str, name: &str| -> Result<PathBuf, String> {
        let p = PathBuf::from(std::env::var(var).unwrap_or_else(|_| default.to_string()));
        if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "{name} not found at {} (set {var} to its path): run scripts/install-browser \
                 (apt-get install chromium chromium-driver), or set PTXFUZZ_SKIP_BROWSER=1 to skip this test on purpose",
                p.display()
            ))
        }
    };
    Ok(Availability::Ready {
        chromium: find("PTXFUZZ_CHROMIUM", CHROMIUM, "chromium")?,
        chromedriver: find("PTXFUZZ_CHROMEDRIVER", CHROMEDRIVER, "chromedriver")?,
    })
}

/// The browser and its driver for a test; `None` (the test says it is skipped) with
/// `PTXFUZZ_SKIP_BROWSER=1`; panics with what to run when either is missing.
pub fn binaries_or_skip() -> Option<(PathBuf, PathBuf)> {
    match availability() {
        Ok(Availability::Ready { chromium, chromedriver }) => Some((chromium, chromedriver)),
        Ok(Availability::SkippedByRequest) => {
            println!("browser test SKIPPED: PTXFUZZ_SKIP_BROWSER=1");
            None
        }
        Err(why) => panic!("{why}"),
    }
}

/// A running chromedriver and one browser session; both end on drop, a failed test's too.
pub struct Browser {
    driver: Child,
    port: u16,
    /// `http://127.0.0.1:PORT/session/ID`
    session: String,
    http: reqwest::Client,
}

/// A reference to an element of the current page.
#[derive(Clone, Debug)]
pub struct Element(String);

impl Browser {
    /// Starts chromedriver on a free port and a headless Chromium session through it.
    pub async fn start(chromium: &Path, chromedriver: &Path) -> Browser {
        let port = free_port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", chromedriver.display()));
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
        // Wait for the driver to answer /status (it takes a moment to bind).
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(r) = http.get(format!("{base}/status")).send().await {
                if r.status().is_success() {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not answer on port {port} within 20 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"]
            }
        }}});
        let mut browser = Browser { driver, port, session: base.clone(), http };
        let v = browser.call(reqwest::Method::POST, format!("{base}/session"), Some(caps)).await;
        let id = v["sessionId"].as_str().unwrap_or_else(|| panic!("no sessionId in {v}")).to_string();
        browser.session = format!("{base}/session/{id}");
        browser
    }

    /// One command; returns its `value`, panicking with the driver's error message otherwise.
    async fn call(&self, method: reqwest::Method, url: String, body: Option<Value>) -> Value {
        let req = self.http.request(method.clone(), &url);
        // POSTs carry a JSON body, `{}` when the command takes no parameters.
        let req = if method == reqwest::Method::POST { req.json(&body.unwrap_or_else(|| json!({}))) } else { req };
        let r = req.send().await.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
        let status = r.status();
        let v: Value = r.json().await.unwrap_or_else(|e| panic!("{method} {url}: body is not JSON: {e}"));
        assert!(status.is_success(), "{method} {url}: {status}: {}", v["value"]);
        v["value"].clone()
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        self.call(reqwest::Method::POST, format!("{}{path}", self.session), Some(body)).await
    }

    async fn get(&self, path: &str) -> Value {
        self.call(reqwest::Method::GET, format!("{}{path}", self.session), None).await
    }

    pub async fn goto(&self, url: &str) {
        self.post("/url", json!({ "url": url })).await;
    }

    pub async fn current_url(&self) -> String {
        self.get("/url").await.as_str().unwrap().to_string()
    }

    pub async fn title(&self) -> String {
        self.get("/title").await.as_str().unwrap().to_string()
    }

    /// Every element matching `css` (possibly none).
    pub async fn find_all(&self, css: &str) -> Vec<Element> {
        let v = self.post("/elements", json!({"using": "css selector", "value": css})).await;
        v.as_array().unwrap().iter().map(element_ref).collect()
    }

    /// The first element matching `css`; panics naming the selector and the page when none does.
    pub async fn find(&self, css: &str) -> Element {
        match self.find_all(css).await.into_iter().next() {
            Some(e) => e,
            None => panic!("no element matches `{css}` on {}", self.current_url().await),
        }
    }

    pub async fn exists(&self, css: &str) -> bool {
        !self.find_all(css).await.is_empty()
    }

    /// Waits (up to 10 s) until `css` matches something: after a click that navigates, the
    /// next page may not be there yet.
    pub async fn wait_for(&self, css: &str) -> Element {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(e) = self.find_all(css).await.into_iter().next() {
                return e;
            }
            assert!(Instant::now() < deadline, "`{css}` did not appear on {} within 10 s", self.current_url().await);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits (up to 10 s) until the URL satisfies `pred`; returns it.
    pub async fn wait_for_url(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let url = self.current_url().await;
            if pred(&url) {
                return url;
            }
            assert!(Instant::now() < deadline, "URL never became {what}; still {url}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits (up to 10 s) until the first element matching `css` reads `want`; returns the
    /// last text read. A form that posts and redirects back to the same URL leaves the old
    /// page's element in place for a moment: reading it then can meet a stale element, which
    /// is read again on the new page, not an error.
    pub async fn wait_for_text(&self, css: &str, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let seen = match self.find_all(css).await.into_iter().next() {
                Some(e) => self.try_text(&e).await,
                None => None,
            };
            if seen.as_deref() == Some(want) || Instant::now() >= deadline {
                return seen.unwrap_or_default();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// An element's text, or `None` when the driver refuses (a stale element).
    async fn try_text(&self, e: &Element) -> Option<String> {
        let r = self.http.get(format!("{}/element/{}/text", self.session, e.0)).send().await.ok()?;
        if !r.status().is_success() {
            return None;
        }
        let v: Value = r.json().await.ok()?;
        v["value"].as_str().map(str::to_string)
    }

    pub async fn text(&self, e: &Element) -> String {
        self.get(&format!("/element/{}/text", e.0)).await.as_str().unwrap_or_default().to_string()
    }

    pub async fn attr(&self, e: &Element, name: &str) -> Option<String> {
        self.get(&format!("/element/{}/attribute/{name}", e.0)).await.as_str().map(str::to_string)
    }

    /// The form-control value (`value` property), e.g. a select's chosen option.
    pub async fn value(&self, e: &Element) -> String {
        self.get(&format!("/element/{}/property/value", e.0)).await.as_str().unwrap_or_default().to_string()
    }

    /// The page's text as the user sees it. A page being replaced (a form that posts and
    /// redirects) can leave a stale body for a moment: it is read again, for up to 10 s.
    pub async fn page_text(&self) -> String {
        self.wait_for_page_text("").await
    }

    /// Waits (up to 10 s) until the page's text contains `needle`; returns the last text read
    /// (the caller's assertion says what was missing). A form that posts and redirects back to
    /// the same URL shows the old page first, whose body then goes stale.
    pub async fn wait_for_page_text(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = None;
        loop {
            if let Some(body) = self.find_all("body").await.into_iter().next() {
                last = self.try_text(&body).await.or(last);
            }
            match &last {
                Some(t) if t.contains(needle) => return t.clone(),
                _ if Instant::now() >= deadline => return last.unwrap_or_default(),
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    /// Elements matching `css` inside `e`.
    pub async fn find_in(&self, e: &Element, css: &str) -> Vec<Element> {
        let v = self.post(&format!("/element/{}/elements", e.0), json!({"using": "css selector", "value": css})).await;
        v.as_array().unwrap().iter().map(element_ref).collect()
    }

    pub async fn clear(&self, e: &Element) {
        self.post(&format!("/element/{}/clear", e.0), json!({})).await;
    }

    pub async fn type_into(&self, e: &Element, text: &str) {
        self.post(&format!("/element/{}/value", e.0), json!({ "text": text })).await;
    }

    /// Clears the field matching `css` and types `text` into it.
    pub async fn fill(&self, css: &str, text: &str) {
        let e = self.find(css).await;
        self.clear(&e).await;
        self.type_into(&e, text).await;
    }

    /// Clicks `e` and waits (up to 10 s) until the page it was on is gone (its root element
    /// stale): a form that posts and redirects back to the same URL gives no other sign.
    pub async fn click_and_wait_for_new_page(&self, e: &Element) {
        let old = self.find("html").await;
        self.click(e).await;
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.try_text(&old).await.is_some() {
            assert!(Instant::now() < deadline, "the page did not change within 10 s of the click");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn click(&self, e: &Element) {
        self.post(&format!("/element/{}/click", e.0), json!({})).await;
    }

    /// Picks `value` in the `<select>` matching `css` (by clicking its option, as a user would).
    pub async fn select(&self, css: &str, value: &str) {
        let option = self.find(&format!("{css} option[value=\"{value}\"]")).await;
        self.click(&option).await;
    }

    /// A PNG of the viewport, written to `path`.
    pub async fn screenshot(&self, path: &Path) {
        let b64 = self.get("/screenshot").await;
        let png = base64::engine::general_purpose::STANDARD.decode(b64.as_str().unwrap()).expect("screenshot is base64");
        assert!(png.starts_with(b"\x89PNG"), "screenshot is a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// A PNG of the whole page, not only the viewport (Chromium's DevTools screenshot beyond
    /// the viewport, through chromedriver's `goog/cdp/execute`), written to `path`.
    pub async fn full_screenshot(&self, path: &Path) {
        let size = self
            .post("/execute/sync", json!({"script": "const e = document.documentElement; return [e.scrollWidth, e.scrollHeight]", "args": []}))
            .await;
        let (w, h) = (size[0].as_f64().unwrap_or(1400.0), size[1].as_f64().unwrap_or(1000.0).min(10_000.0));
        let shot = self
            .post(
                "/goog/cdp/execute",
                json!({"cmd": "Page.captureScreenshot", "params": {
                    "format": "png", "captureBeyondViewport": true,
                    "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}
                }}),
            )
            .await;
        let png = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().expect("a PNG")).expect("screenshot is base64");
        assert!(png.starts_with(b"\x89PNG"), "screenshot is a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// The element's tag name, lower case.
    pub async fn tag(&self, e: &Element) -> String {
        self.get(&format!("/element/{}/name", e.0)).await.as_str().unwrap_or_default().to_lowercase()
    }

    /// Sets the form field matching `css`: picks `value` in a `<select>`, types it otherwise.
    pub async fn set(&self, css: &str, value: &str) {
        let e = self.find(css).await;
        if self.tag(&e).await == "select" {
            self.select(css, value).await;
        } else {
            self.clear(&e).await;
            self.type_into(&e, value).await;
        }
    }

    /// The cookies of the current page, as WebDriver describes them (`name`, `httpOnly`, ...).
    pub async fn cookies(&self) -> Vec<Value> {
        self.get("/cookie").await.as_array().cloned().unwrap_or_default()
    }

    /// Ends the session (the drop kills the driver in any case).
    pub async fn quit(&self) {
        let _ = self.http.delete(&self.session).send().await;
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ask chromedriver to quit the browser, so that a panicking test leaves no Chromium
        // behind (killing the driver alone orphans it). A blocking request: drop cannot await;
        // after `quit` the session is gone and this is answered with an error, which is fine.
        if let Some(path) = self.session.find("/session/").map(|at| &self.session[at..]) {
            if let Ok(mut tcp) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = tcp.set_read_timeout(Some(Duration::from_secs(10)));
                let _ = write!(tcp, "DELETE {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
                let _ = tcp.read_to_end(&mut Vec::new());
            }
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// A test's numbered whole-page screenshots in `$CARGO_TARGET_TMPDIR/screenshots`:
/// `NN-name.png`, or `SERIES-NN-name.png` for a named series; each path is printed.
pub struct Shots {
    pub dir: PathBuf,
    series: Option<&'static str>,
    n: usize,
}

impl Shots {
    /// Removes the series' screenshots of an earlier run first, and only those: the tests of a
    /// binary run in parallel and share the folder.
    pub fn fresh(series: Option<&'static str>) -> Shots {
        let shots = Shots { dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screenshots"), series, n: 0 };
        for e in std::fs::read_dir(&shots.dir).into_iter().flatten().flatten() {
            if shots.is_mine(&e.file_name().to_string_lossy()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
        shots
    }

    /// Whether `file` is named as this series names its screenshots.
    fn is_mine(&self, file: &str) -> bool {
        let rest = match self.series {
            Some(s) => file.strip_prefix(s).and_then(|r| r.strip_prefix('-')),
            None => Some(file),
        };
        rest.is_some_and(|r| r.len() > 3 && r.as_bytes()[..2].iter().all(u8::is_ascii_digit) && &r[2..3] == "-" && r.ends_with(".png"))
    }

    /// The path the next screenshot named `name` gets.
    pub fn next_path(&mut self, name: &str) -> PathBuf {
        self.n += 1;
        let file = match self.series {
            Some(s) => format!("{s}-{:02}-{name}.png", self.n),
            None => format!("{:02}-{name}.png", self.n),
        };
        self.dir.join(file)
    }

    pub async fn take(&mut self, b: &Browser, name: &str) {
        let path = self.next_path(name);
        b.full_screenshot(&path).await;
        println!("screenshot: {}", path.display());
    }
}

fn element_ref(v: &Value) -> Element {
    let id = v.get(ELEMENT_KEY).or_else(|| v.as_object().and_then(|o| o.values().next())).and_then(Value::as_str);
    Element(id.unwrap_or_else(|| panic!("not an element reference: {v}")).to_string())
}

/// A port nobody listens on now (the OS picks it; chromedriver binds it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
