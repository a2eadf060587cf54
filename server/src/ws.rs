//! The WebSocket side of the port (RFC 6455), for the JavaScript client: the HTTP upgrade,
//! then a reader that yields the payload bytes of the client's binary messages, so the
//! same request parser serves both transports. Each request is one message; responses
//! are written as one binary message per frame by `conn::Out`.

use crate::State;
use sha1::{Digest, Sha1};
use std::io::{self, Read, Write};
use std::net::TcpStream;

const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const MAX_HANDSHAKE: usize = 16 << 10;

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for ch in bytes.chunks(3) {
        let b = [ch[0], *ch.get(1).unwrap_or(&0), *ch.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= ch.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

pub fn accept_key(key: &str) -> String {
    let mut h = Sha1::new();
    h.update(key.trim().as_bytes());
    h.update(GUID.as_bytes());
    base64(&h.finalize())
}

/// Read the HTTP upgrade request and answer it; None (connection closed) when it is not one.
pub(crate) fn upgrade(mut stream: TcpStream, st: &State) -> Option<WsReader> {
    let mut buf = Vec::new();
    let mut b = [0u8; 1];
    // byte by byte up to the blank line, so no message bytes are consumed
    while !buf.ends_with(b"\r\n\r\n") {
        if buf.len() > MAX_HANDSHAKE || stream.read(&mut b).ok()? == 0 {
            return None;
        }
        buf.push(b[0]);
    }
    let text = String::from_utf8_lossy(&buf);
    let key = text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case("sec-websocket-key").then(|| v.trim().to_string())
    });
    let Some(key) = key else {
        let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return None;
    };
    let resp = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {}\r\n\r\n",
        accept_key(&key)
    );
    stream.write_all(resp.as_bytes()).ok()?;
    Some(WsReader { s: stream, left: 0, mask: [0; 4], pos: 0, max: st.config.max_request_bytes })
}

/// Payload bytes of the client's data frames, unmasked, as one stream.
pub(crate) struct WsReader {
    s: TcpStream,
    /// bytes left in the current frame
    left: u64,
    mask: [u8; 4],
    pos: usize,
    max: u64,
}

fn bad(m: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, m.to_string())
}

impl WsReader {
    /// Read frame headers until a data frame with payload starts; Ok(false) at close.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            let mut h = [0u8; 2];
            if let Err(e) = self.s.read_exact(&mut h) {
                return if e.kind() == io::ErrorKind::UnexpectedEof { Ok(false) } else { Err(e) };
            }
            let opcode = h[0] & 0x0f;
            let masked = h[1] & 0x80 != 0;
            let mut len = (h[1] & 0x7f) as u64;
            if len == 126 {
                let mut e = [0u8; 2];
                self.s.read_exact(&mut e)?;
                len = u16::from_be_bytes(e) as u64;
            } else if len == 127 {
                let mut e = [0u8; 8];
                self.s.read_exact(&mut e)?;
                len = u64::from_be_bytes(e);
            }
            if len > self.max {
                return Err(bad("WebSocket frame larger than the maximum request size"));
            }
            if !masked {
                return Err(bad("client WebSocket frames must be masked"));
            }
            self.s.read_exact(&mut self.mask)?;
            self.pos = 0;
            match opcode {
                0 | 1 | 2 => {
                    if len > 0 {
                        self.left = len;
                        return Ok(true);
                    }
                }
                8 => return Ok(false),
                9 | 10 => {
                    // ping/pong: read and drop the payload (control frames are at most 125 bytes)
                    let mut p = vec![0u8; len.min(125) as usize];
                    self.s.read_exact(&mut p)?;
                    if opcode == 9 {
                        for (k, b) in p.iter_mut().enumerate() {
                            *b ^= self.mask[k % 4];
                        }
                        let mut f = vec![0x8a, p.len() as u8];
                        f.extend_from_slice(&p);
                        self.s.write_all(&f)?;
                    }
                }
                _ => return Err(bad("unknown WebSocket opcode")),
            }
        }
    }
}

impl Read for WsReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 && !self.next_frame()? {
            return Ok(0);
        }
        let n = (buf.len() as u64).min(self.left) as usize;
        let got = self.s.read(&mut buf[..n])?;
        if got == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "WebSocket frame truncated"));
        }
        for b in buf[..got].iter_mut() {
            *b ^= self.mask[self.pos % 4];
            self.pos += 1;
        }
        self.left -= got as u64;
        Ok(got)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc6455_accept_key() {
        // the worked example of RFC 6455 §1.3
        assert_eq!(super::accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        assert_eq!(super::base64(b"ab"), "YWI=");
    }
}
