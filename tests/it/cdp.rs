//! A small Chrome DevTools protocol client: starts a headless Chromium with a
//! fresh profile, attaches to its page over the browser's WebSocket (flat
//! sessions), and offers the few calls the page test needs: navigate,
//! evaluate, real mouse clicks, screenshots.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value as Json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The Chromium binary for `test`, or `None` after saying on stderr that
/// the test is skipped and why (straight to stderr: the harness captures
/// eprintln! of a passing test, and a skip should be seen).
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    match chromium_path() {
        Ok(path) => Some(path),
        Err(why) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
            None
        }
    }
}

/// The Chromium binary: `RETROGRADE_CHROMIUM`, else Debian's package.
pub fn chromium_path() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("RETROGRADE_CHROMIUM") {
        return Ok(PathBuf::from(path));
    }
    for candidate in ["/usr/bin/chromium", "/usr/bin/chromium-browser"] {
        if Path::new(candidate).exists() {
            return Ok(PathBuf::from(candidate));
        }
    }
    Err(
        "no Chromium at /usr/bin/chromium (Debian: apt-get install chromium; \
         or set RETROGRADE_CHROMIUM)"
            .into(),
    )
}

/// A running headless Chromium attached to its one page.
pub struct Chromium {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
    profile: PathBuf,
}

/// Flags for a closed network: without the background-networking ones
/// Chromium keeps trying to reach its services.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
];

impl Chromium {
    /// Starts Chromium with a fresh profile under `profile` and attaches to
    /// its page, which is `width` x `height` CSS pixels at scale 1.
    pub fn launch(
        binary: &Path,
        profile: &Path,
        width: u32,
        height: u32,
    ) -> Result<Chromium, String> {
        let _ = std::fs::remove_dir_all(profile);
        std::fs::create_dir_all(profile).map_err(|e| e.to_string())?;
        let mut child = Command::new(binary)
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--window-size={width},{height}"))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        // Chromium prints its WebSocket address on stderr; the thread keeps
        // draining stderr so the browser never blocks on it.
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    let _ = tx.send(url.trim().to_string());
                }
            }
        });
        let url = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(url) => url,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("Chromium printed no DevTools address within 60 s".into());
            }
        };
        let (ws, _) = match tungstenite::connect(url.as_str()) {
            Ok(pair) => pair,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("cannot connect to {url}: {e}"));
            }
        };
        if let MaybeTlsStream::Plain(stream) = ws.get_ref() {
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .map_err(|e| e.to_string())?;
        }
        let mut browser = Chromium {
            child,
            ws,
            session: String::new(),
            next_id: 0,
            profile: profile.to_path_buf(),
        };
        let targets = browser.call("Target.getTargets", json!({}))?;
        let page = targets["targetInfos"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["targetId"].as_str())
            .ok_or("Chromium has no page target")?
            .to_string();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({ "targetId": page, "flatten": true }),
        )?;
        browser.session = attached["sessionId"]
            .as_str()
            .ok_or("no session id")?
            .to_string();
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        )?;
        Ok(browser)
    }

    /// Sends one command (to the page once attached) and returns its result.
    pub fn call(&mut self, method: &str, params: Json) -> Result<Json, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        self.ws
            .send(Message::text(message.to_string()))
            .map_err(|e| format!("{method}: {e}"))?;
        loop {
            let reply = self.ws.read().map_err(|e| format!("{method}: {e}"))?;
            let Message::Text(text) = reply else { continue };
            let reply: Json = serde_json::from_str(text.as_str()).map_err(|e| e.to_string())?;
            // Events have no id; other answers cannot be pending.
            if reply["id"] != id {
                continue;
            }
            if let Some(error) = reply.get("error") {
                return Err(format!("{method}: {error}"));
            }
            return Ok(reply["result"].clone());
        }
    }

    /// Loads `url` and waits until `ready` (a JavaScript expression) holds.
    pub fn navigate(&mut self, url: &str, ready: &str) -> Result<(), String> {
        self.call("Page.navigate", json!({ "url": url }))?;
        self.wait_for(ready, Duration::from_secs(20)).map(drop)
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns
    /// its value as JSON.
    pub fn eval(&mut self, expression: &str) -> Result<Json, String> {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        )?;
        if let Some(details) = result.get("exceptionDetails") {
            return Err(format!("{expression}: {details}"));
        }
        Ok(result["result"]["value"].clone())
    }

    /// Polls `expression` until it is truthy; returns its value.
    pub fn wait_for(&mut self, expression: &str, timeout: Duration) -> Result<Json, String> {
        let start = Instant::now();
        loop {
            let value = self.eval(expression)?;
            let truthy = match &value {
                Json::Null => false,
                Json::Bool(b) => *b,
                Json::Number(n) => n.as_f64() != Some(0.0),
                Json::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return Ok(value);
            }
            if start.elapsed() > timeout {
                return Err(format!("timed out waiting for {expression}"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A real left click at page coordinates (CSS pixels).
    pub fn click(&mut self, x: f64, y: f64) -> Result<(), String> {
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        )?;
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )?;
        }
        Ok(())
    }

    /// Moves the pointer to page coordinates (CSS pixels), no click.
    pub fn hover(&mut self, x: f64, y: f64) -> Result<(), String> {
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y }),
        )?;
        Ok(())
    }

    /// Clicks the middle of the element `selector`.
    pub fn click_element(&mut self, selector: &str) -> Result<(), String> {
        let rect = self.eval(&format!(
            "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ))?;
        let (x, y) = (rect[0].as_f64(), rect[1].as_f64());
        self.click(x.ok_or("no x")?, y.ok_or("no y")?)
    }

    /// The page as PNG bytes.
    pub fn screenshot(&mut self) -> Result<Vec<u8>, String> {
        let shot = self.call("Page.captureScreenshot", json!({ "format": "png" }))?;
        base64_decode(shot["data"].as_str().ok_or("no screenshot data")?)
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Standard base64 (with padding) to bytes.
fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let value = |b: u8| -> Result<u32, String> {
        Ok(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("bad base64 byte {b}")),
        } as u32)
    };
    let bytes: Vec<u8> = text.bytes().filter(|&b| b != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut acc = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            acc |= value(b)? << (18 - 6 * i);
        }
        let n = chunk.len() * 6 / 8;
        out.extend_from_slice(&acc.to_be_bytes()[1..1 + n]);
    }
    Ok(out)
}

#[test]
fn base64_decodes() {
    assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(base64_decode("aGVsbG8h").unwrap(), b"hello!");
    assert_eq!(base64_decode("aGk=").unwrap(), b"hi");
    assert!(base64_decode("a*==").is_err());
}
