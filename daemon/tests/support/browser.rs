//! Test helpers for pages in headless Chromium (DevTools protocol via `headless_chrome`):
//! find the browser (a failure under `TENGEN_REQUIRE_ORACLES=1`, else a skip), launch it,
//! evaluate JavaScript, poll until the page shows something, and write screenshots under
//! `CARGO_TARGET_TMPDIR/screenshots`.
//!
//! Include with `#[path = "support/browser.rs"] mod browser;`.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};

/// How many browsers one test binary keeps open at once. The tests run side by side
/// (`RUST_TEST_THREADS`); a browser starting costs a second of CPU, and eight starting at
/// once on two cores would stall the pages other tests are timing.
pub(crate) const MAX_OPEN: usize = 3;

/// Browsers open now in this process, and the condition a test waits on for a free slot.
static OPEN: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// A running browser; its slot is given back when it is dropped.
pub(crate) struct OpenBrowser {
    browser: Browser,
}

impl Deref for OpenBrowser {
    type Target = Browser;
    fn deref(&self) -> &Browser {
        &self.browser
    }
}

impl Drop for OpenBrowser {
    fn drop(&mut self) {
        release_slot();
    }
}

fn release_slot() {
    let (open, freed) = &OPEN;
    *open.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
    freed.notify_one();
}

/// Where Debian's `chromium` package installs the browser.
pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";

/// The browser's path; `None` (the test should return, skipped) when it is not installed,
/// unless `TENGEN_REQUIRE_ORACLES=1`, where that is a failure.
pub(crate) fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from(CHROMIUM);
    if path.exists() {
        return Some(path);
    }
    assert!(
        !std::env::var("TENGEN_REQUIRE_ORACLES").is_ok_and(|v| v == "1"),
        "{CHROMIUM} is missing: apt-get install chromium"
    );
    eprintln!("skipping: {CHROMIUM} is missing (apt-get install chromium)");
    None
}

/// Starts headless Chromium (no sandbox: tests run as root in CI), once fewer than
/// [`MAX_OPEN`] are open in this process.
pub(crate) fn launch(path: PathBuf) -> OpenBrowser {
    {
        let (open, freed) = &OPEN;
        let mut n = open.lock().unwrap_or_else(|p| p.into_inner());
        while *n >= MAX_OPEN {
            n = freed.wait(n).unwrap_or_else(|p| p.into_inner());
        }
        *n += 1;
    }
    let args: Vec<&OsStr> = [
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(OsStr::new)
    .collect();
    let options = LaunchOptions::default_builder()
        .path(Some(path))
        .headless(true)
        .sandbox(false)
        .window_size(Some((1280, 900)))
        .idle_browser_timeout(Duration::from_secs(120))
        .args(args)
        .build()
        .expect("launch options");
    match Browser::new(options) {
        Ok(browser) => OpenBrowser { browser },
        Err(e) => {
            release_slot(); // before failing the test
            panic!("start chromium: {e}")
        }
    }
}

/// The value of `js` evaluated in the page (`null` for undefined).
pub(crate) fn eval(tab: &Tab, js: &str) -> serde_json::Value {
    tab.evaluate(js, false)
        .expect("evaluate")
        .value
        .unwrap_or(serde_json::Value::Null)
}

/// Polls `js` until it returns `want`; panics with what the page showed after `limit`.
pub(crate) fn wait_until(
    tab: &Tab,
    js: &str,
    want: serde_json::Value,
    limit: Duration,
    what: &str,
) {
    let start = Instant::now();
    loop {
        let got = eval(tab, js);
        if got == want {
            return;
        }
        assert!(
            start.elapsed() < limit,
            "{what}: after {limit:?} the page shows {got}, want {want}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Writes a PNG of the whole page to `CARGO_TARGET_TMPDIR/screenshots/{name}` (the
/// caller's crate's target dir) and returns its path.
pub(crate) fn screenshot(tab: &Tab, tmpdir: &str, name: &str) -> PathBuf {
    let dir = Path::new(tmpdir).join("screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    let png = tab
        .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
        .expect("screenshot");
    assert!(
        png.len() > 10_000,
        "a screenshot of a drawn page is not tiny"
    );
    let path = dir.join(name);
    std::fs::write(&path, png).expect("write screenshot");
    eprintln!("screenshot: {}", path.display());
    path
}

/// Fills in the hall's login form shown in `tab` and sends it, as a person would.
pub(crate) fn log_in(tab: &Tab, name: &str, password: &str) {
    for (field, value) in [("name", name), ("password", password)] {
        tab.find_element(&format!("input[name={field}]"))
            .expect("login field")
            .click()
            .expect("click");
        tab.type_str(value).expect("type");
    }
    tab.find_element("button[type=submit]")
        .expect("log in button")
        .click()
        .expect("log in");
    tab.wait_until_navigated().expect("the page after login");
}

/// JavaScript: the first element matching `selector` whose text (trimmed) is `text`, or null.
pub(crate) fn element_js(selector: &str, text: &str) -> String {
    format!(
        "[...document.querySelectorAll({})].find(e => e.textContent.trim() === {})",
        serde_json::Value::from(selector),
        serde_json::Value::from(text)
    )
}

/// The middle of the element `element` (a JavaScript expression) on the screen, scrolled
/// into view first; `None` when there is no such element or it is not shown.
pub(crate) fn middle(tab: &Tab, element: &str) -> Option<(f64, f64)> {
    let js = format!(
        "(() => {{ const e = {element}; if (!e) return null; e.scrollIntoView({{block: 'center'}}); \
         const r = e.getBoundingClientRect(); if (!r.width || !r.height) return null; \
         return JSON.stringify([r.x + r.width / 2, r.y + r.height / 2]); }})()"
    );
    let at: serde_json::Value = serde_json::from_str(eval(tab, &js).as_str()?).ok()?;
    Some((at[0].as_f64()?, at[1].as_f64()?))
}

/// Clicks the element `element` (a JavaScript expression) with the mouse: a real input
/// event at its place on the screen, as a person's click. Like a person, it waits for the
/// element to be shown (a page redraws from its next poll); panics when it is not shown
/// within 15 s.
pub(crate) fn click(tab: &Tab, element: &str, what: &str) {
    let start = Instant::now();
    let (x, y) = loop {
        match middle(tab, element) {
            Some(at) => break at,
            None if start.elapsed() < Duration::from_secs(15) => {
                std::thread::sleep(Duration::from_millis(50))
            }
            None => panic!("{what}: not on the page"),
        }
    };
    tab.click_point(headless_chrome::browser::tab::point::Point { x, y })
        .expect("click");
}

/// Clicks the first element matching `selector` whose text is `text` (see [`click`]).
pub(crate) fn click_text(tab: &Tab, selector: &str, text: &str) {
    click(
        tab,
        &element_js(selector, text),
        &format!("{selector} \"{text}\""),
    );
}

/// Moves the mouse onto the element `element` (a JavaScript expression) and leaves it there.
pub(crate) fn hover(tab: &Tab, element: &str, what: &str) {
    let (x, y) = middle(tab, element).unwrap_or_else(|| panic!("{what}: not on the page"));
    tab.move_mouse_to_point(headless_chrome::browser::tab::point::Point { x, y })
        .expect("move the mouse");
}

/// Clicks `element` (see [`click`]) until the console's question (`<dialog id="ask">`) is
/// open: clicks again, up to three times, when none comes within 3 s, as a person does
/// when a click did not take (under load a click could land while the page was redrawing
/// the card or the panel under it). Only for buttons that ask first: a click while the
/// question is open does nothing.
pub(crate) fn open_question(tab: &Tab, element: &str, what: &str) {
    for _ in 0..3 {
        click(tab, element, what);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) {
            if eval(tab, "document.getElementById('ask').open") == serde_json::Value::Bool(true) {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

/// [`open_question`], then [`answer_console_dialog`]: the question's text.
pub(crate) fn ask_via(tab: &Tab, element: &str, what: &str, ok: bool) -> String {
    open_question(tab, element, what);
    answer_console_dialog(tab, ok)
}

/// The hall console's confirmation (`<dialog id="ask">`): waits until it is open, returns
/// its text, and clicks its OK button (`ok`) or Cancel with the mouse; waits until it is
/// closed.
pub(crate) fn answer_console_dialog(tab: &Tab, ok: bool) -> String {
    let limit = Duration::from_secs(15);
    wait_until(
        tab,
        "document.getElementById('ask').open",
        true.into(),
        limit,
        "the confirmation opens",
    );
    let text = eval(tab, "document.getElementById('askText').textContent");
    let button = if ok { "askOk" } else { "askCancel" };
    click(
        tab,
        &format!("document.getElementById('{button}')"),
        "the confirmation's button",
    );
    wait_until(
        tab,
        "document.getElementById('ask').open",
        false.into(),
        limit,
        "the confirmation closes",
    );
    text.as_str().unwrap_or_default().to_string()
}
