//! A minimal blocking HTTP/1.1 client over one keep-alive connection: enough
//! to test `serve` (and to load it, from `examples/serve_load.rs`) without
//! another HTTP stack. GET only; bodies by Content-Length or chunked.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// One answer.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Header names (lower case) and values.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A keep-alive connection; reconnects when the server closed it.
pub struct Client {
    addr: SocketAddr,
    conn: Option<(TcpStream, BufReader<TcpStream>)>,
}

impl Client {
    /// A client for the server at `addr` (connects on first use).
    pub fn new(addr: SocketAddr) -> Client {
        Client { addr, conn: None }
    }

    /// `GET path` (path includes the query string).
    pub fn get(&mut self, path: &str) -> io::Result<Response> {
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\n\r\n",
            self.addr
        );
        self.send(request.as_bytes())
    }

    /// Sends raw bytes as a request and reads one response.
    pub fn send(&mut self, request: &[u8]) -> io::Result<Response> {
        // A kept connection may have been closed by the server meanwhile:
        // retry once on a fresh one.
        for attempt in 0..2 {
            let fresh = self.conn.is_none();
            if fresh {
                let stream = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5))?;
                stream.set_nodelay(true)?;
                stream.set_read_timeout(Some(Duration::from_secs(30)))?;
                let reader = BufReader::new(stream.try_clone()?);
                self.conn = Some((stream, reader));
            }
            let (stream, reader) = self.conn.as_mut().expect("connected above");
            let result = stream
                .write_all(request)
                .and_then(|()| read_response(reader));
            match result {
                Ok((response, keep)) => {
                    if !keep {
                        self.conn = None;
                    }
                    return Ok(response);
                }
                Err(e) => {
                    self.conn = None;
                    if fresh || attempt == 1 {
                        return Err(e);
                    }
                }
            }
        }
        unreachable!("the second attempt returns")
    }
}

fn read_response(reader: &mut BufReader<TcpStream>) -> io::Result<(Response, bool)> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed",
        ));
    }
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad("bad status line"))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (name, value) = l.split_once(':').ok_or_else(|| bad("bad header"))?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v): &(String, String)| v.clone())
    };
    let mut body = Vec::new();
    if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            line.clear();
            reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim(), 16).map_err(|_| bad("bad chunk"))?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = find("content-length") {
        let len: usize = len.parse().map_err(|_| bad("bad content-length"))?;
        body.resize(len, 0);
        reader.read_exact(&mut body)?;
    } else {
        reader.read_to_end(&mut body)?;
        return Ok((
            Response {
                status,
                headers,
                body,
            },
            false,
        ));
    }
    let keep = !find("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
    Ok((
        Response {
            status,
            headers,
            body,
        },
        keep,
    ))
}
