//! What the proxy keeps of an answer: the body taken down as it arrives (bounded by the
//! answer limit and the shared budget), and, once the exchange is over, the case family it
//! becomes. Exchanges are written by a thread of their own ([`Keeper`]), in the order they
//! ended, off the connections' runtime, so that writing delays no other connection's
//! forwarding or timing.

use super::super::exchange::{Exchange, MAX_RECORDED_BODY, is_tool_call};
use super::super::writer::{Report, stem, write_family};
use super::budget::Held;
use super::{RecorderOptions, State};
use crate::classify::BodyEnd;
use crate::wire::http::Request;
use serde_json::Value;
use std::sync::mpsc;
use std::time::Duration;
use tokio::sync::{mpsc as tokio_mpsc, watch};

/// The most arrival times one answer keeps (one per chunk); later chunks count as the last.
const MAX_ARRIVALS: usize = 100_000;

/// How the upstream's body ended, as far as the proxy saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// The body ended properly.
    Complete,
    /// The upstream closed or broke the connection before the body's end.
    Cut,
    /// The client went away first, this long after the request went upstream.
    ClientLeft(Duration),
}

/// An answer as it is taken down.
#[derive(Debug)]
pub(super) struct Taken {
    pub(super) status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    arrivals: Vec<(usize, u64)>,
    head_ms: u64,
    /// Why the body is not kept whole, once it is not.
    overflowed: Option<String>,
    held: Held,
}

impl Taken {
    pub(super) fn new(
        status: reqwest::StatusCode,
        headers: &reqwest::header::HeaderMap,
        head_ms: u64,
        held: Held,
    ) -> Self {
        Taken {
            status: status.as_u16(),
            headers: headers
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: Vec::new(),
            arrivals: Vec::new(),
            head_ms,
            overflowed: None,
            held,
        }
    }

    /// Keeps `chunk`, which arrived `ms` after the head, while the limits allow.
    pub(super) fn add(&mut self, chunk: &[u8], ms: u64) {
        if self.overflowed.is_some() {
            return;
        }
        let total = self.body.len().saturating_add(chunk.len());
        if total > MAX_RECORDED_BODY {
            self.overflow(format!(
                "the answer is larger than {MAX_RECORDED_BODY} bytes"
            ));
            return;
        }
        if !self.held.grow(chunk.len()) {
            self.overflow(format!(
                "the recorder was holding {} bytes of bodies across its connections, its bound, \
                 when the answer came",
                super::MAX_HELD_BYTES
            ));
            return;
        }
        self.body.extend_from_slice(chunk);
        if self.arrivals.len() < MAX_ARRIVALS {
            self.arrivals.push((self.body.len(), ms));
        }
    }

    fn overflow(&mut self, why: String) {
        self.overflowed = Some(why);
        // What was kept goes back to the pool at once.
        self.body = Vec::new();
        self.arrivals = Vec::new();
    }
}

/// One finished exchange, for the keeper; `taken` is `None` when the client left before the
/// answer's head.
#[derive(Debug)]
pub(super) struct Finished {
    pub(super) message: Value,
    pub(super) protocol_version: Option<String>,
    pub(super) taken: Option<Taken>,
    pub(super) end: Ended,
}

impl Finished {
    pub(super) fn new(message: Value, request: &Request, taken: Option<Taken>, end: Ended) -> Self {
        Finished {
            message,
            protocol_version: request.header("mcp-protocol-version").map(str::to_owned),
            taken,
            end,
        }
    }
}

/// Learns from finished exchanges and writes the `tools/call`s, one after another.
#[derive(Debug)]
pub(super) struct Keeper {
    pub(super) options: RecorderOptions,
    pub(super) state: State,
    pub(super) reports: tokio_mpsc::UnboundedSender<Report>,
    pub(super) stop: watch::Sender<bool>,
}

impl Keeper {
    /// Starts the keeper's thread: it ends once every sender of the channel is dropped and
    /// what was sent is written.
    pub(super) fn spawn(mut self) -> (mpsc::Sender<Finished>, std::thread::JoinHandle<()>) {
        let (sender, finished) = mpsc::channel::<Finished>();
        let thread = std::thread::spawn(move || {
            for exchange in finished {
                for report in self.take_down(exchange) {
                    let _ = self.reports.send(report);
                }
            }
        });
        (sender, thread)
    }

    fn take_down(&mut self, finished: Finished) -> Vec<Report> {
        let Finished {
            message,
            protocol_version,
            taken,
            end,
        } = finished;
        let state = &mut self.state;
        if !is_tool_call(&message) {
            if let Some(taken) = taken.filter(|t| t.overflowed.is_none()) {
                let content_type = taken.header("content-type");
                state.session.observe(&message, content_type, &taken.body);
            }
            return Vec::new();
        }
        let options = &self.options;
        if state.taken >= options.max_exchanges {
            return Vec::new();
        }
        state.taken += 1;
        if state.taken >= options.max_exchanges {
            let _ = self.stop.send(true);
        }
        let tool = message
            .pointer("/params/name")
            .and_then(Value::as_str)
            .unwrap_or("call");
        let stem = stem(state.taken, tool);
        let skipped = |why: String| {
            let path = options.out.join(format!("{stem}.toml"));
            vec![Report::Skipped { path, why }]
        };
        let Some(taken) = taken else {
            let left = match end {
                Ended::ClientLeft(after) => millis(after),
                _ => 0,
            };
            return skipped(format!(
                "the client closed its connection {left} ms after the request, before the \
                 server sent a status line: there is no answer to write"
            ));
        };
        if let Some(why) = taken.overflowed {
            return skipped(why);
        }
        let exchange = Exchange {
            origin: options.upstream.clone(),
            protocol_version,
            request: message,
            status: taken.status,
            headers: taken.headers,
            body: taken.body,
            arrivals: taken.arrivals,
            head_ms: taken.head_ms,
            end: match end {
                Ended::Complete => BodyEnd::Complete,
                Ended::Cut | Ended::ClientLeft(_) => BodyEnd::Cut,
            },
            client_left_ms: match end {
                Ended::ClientLeft(after) => Some(millis(after)),
                _ => None,
            },
        };
        write_family(
            &options.out,
            &stem,
            &exchange,
            &state.session,
            &options.faults,
        )
    }
}

impl Taken {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

pub(super) fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}
