//! A small WebDriver client for the board's browser tests: Debian's chromedriver drives a
//! headless Chromium with a fresh profile, spoken to over HTTP with ureq. Where either
//! program is missing or cannot start, the test fails with a line saying what to install
//! (tests/all.sh installs both): a browser test never passes without a browser.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// The key WebDriver names an element by.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A browser session; dropping it ends the session, the driver and the profile.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    profile: PathBuf,
}

impl Browser {
    /// Starts chromedriver on a free loopback port and opens a headless session 1440x1000.
    pub fn start() -> Browser {
        for (path, package) in [(CHROMEDRIVER, "chromium-driver"), (CHROMIUM, "chromium")] {
            assert!(
                Path::new(path).is_file(),
                "{path} is missing: install Debian's {package} (tests/all.sh does: apt-get install chromium chromium-driver)"
            );
        }
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .new_agent();
        let profile = std::env::temp_dir().join(format!(
            "mosaic-queue-browser-{}-{port}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).unwrap();
        let mut browser = Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            agent,
            profile,
        };
        browser.until_ready();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1440,1000",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .chain([format!("--user-data-dir={}", browser.profile.display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}
        }}});
        let answer = browser.call("POST", "/session", Some(caps));
        browser.session = answer["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("chromedriver opened no session: {answer}"))
            .to_owned();
        browser
    }

    fn until_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = self
                .agent
                .get(format!("{}/status", self.base))
                .call()
                .ok()
                .and_then(|mut r| r.body_mut().read_to_string().ok())
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                return;
            }
            assert!(Instant::now() < deadline, "chromedriver never became ready");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// One WebDriver command; its `value`. An error answer fails the test.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let sent = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.unwrap_or_else(|| json!({})).to_string()),
        };
        let mut answer = sent.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = answer.status().as_u16();
        let text = answer
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .unwrap();
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(status < 400, "{method} {path} answered {status}: {text}");
        v["value"].clone()
    }

    fn session(&self, path: &str) -> String {
        format!("/session/{}{path}", self.session)
    }

    pub fn goto(&self, url: &str) {
        self.call("POST", &self.session("/url"), Some(json!({ "url": url })));
    }

    pub fn current_url(&self) -> String {
        self.call("GET", &self.session("/url"), None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Every element `css` selects, by WebDriver id.
    pub fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.call(
            "POST",
            &self.session("/elements"),
            Some(json!({"using": "css selector", "value": css})),
        );
        found
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn attr(&self, element: &str, name: &str) -> Option<String> {
        self.call(
            "GET",
            &self.session(&format!("/element/{element}/attribute/{name}")),
            None,
        )
        .as_str()
        .map(str::to_owned)
    }

    /// The element's text as rendered.
    pub fn text(&self, element: &str) -> String {
        self.call(
            "GET",
            &self.session(&format!("/element/{element}/text")),
            None,
        )
        .as_str()
        .unwrap_or_default()
        .to_owned()
    }

    pub fn click(&self, element: &str) {
        self.call(
            "POST",
            &self.session(&format!("/element/{element}/click")),
            Some(json!({})),
        );
    }

    /// Runs `js` in the page (a function body; `return` gives its value).
    pub fn script(&self, js: &str) -> Value {
        self.call(
            "POST",
            &self.session("/execute/sync"),
            Some(json!({"script": js, "args": []})),
        )
    }

    /// Waits until `check` holds (a deadline only fails the test, it decides nothing).
    #[track_caller]
    pub fn until(&self, what: &str, check: impl Fn(&Browser) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !check(self) {
            assert!(Instant::now() < deadline, "the browser never showed {what}");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Saves a PNG of the window to `path`.
    pub fn screenshot(&self, path: &Path) {
        let b64 = self.call("GET", &self.session("/screenshot"), None);
        let png = decode_base64(b64.as_str().expect("a screenshot"));
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let url = format!("{}/session/{}", self.base, self.session);
            let _ = self.agent.delete(&url).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// A loopback port free now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Standard base64 (the screenshot's encoding), padding allowed.
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| *c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= value(*c) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes_as_written() {
        assert_eq!(super::decode_base64("aGVsbG8="), b"hello");
        assert_eq!(super::decode_base64("aGk="), b"hi");
        assert_eq!(super::decode_base64("YWJj"), b"abc");
    }
}
