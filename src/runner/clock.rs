//! A call's deadline, and where it starts. The deadline (the call's timeout, the driver's extra
//! wait and the runner's margin) runs from the call's `tools/call` reaching the server: setting a
//! client up (connecting, `initialize`, discovery) is not the call's time, and a busy machine that
//! slows it must not turn an answer into a hang. Set-up has a bound of its own, the driver's
//! [`Driver::set_up_bound`](crate::adapter::Driver::set_up_bound)
//! (or the deadline, when that is longer), from the adapter's first request of the call; a client
//! that has not sent its `tools/call` by then is a hang that says so. An adapter that sends no
//! request at all has the deadline from when it could act, as before.

use crate::adapter::{NewProcess, StartUp};
use crate::wire::WireServer;
use std::time::Duration;

/// How often the runner looks at the server's record while it waits for a request: an
/// adapter's first while it starts up (the clock starts at most this much after the request
/// arrived, never before), its `tools/call`, or those still landing after a call.
pub const RECORD_POLL: Duration = Duration::from_millis(10);

/// A call's deadline: how long the adapter has to answer once its call reached the server, and
/// the server that tells when it did.
pub struct Clock<'s> {
    /// The call's timeout plus the driver's extra wait and the runner's margin.
    pub deadline: Duration,
    /// The set-up bound: what the driver asks for ([`crate::adapter::SET_UP_BOUND`] by default).
    pub set_up: Duration,
    pub server: &'s WireServer,
    pub index: usize,
}

/// When the adapter could first act: the clock's origin.
#[derive(Debug, Clone, Copy)]
pub enum ClockStart {
    /// With the drive: the adapter can act at once; on a process serving its first call, if
    /// it is one.
    AtOnce(Option<NewProcess>),
    /// At the adapter's first request to the endpoint, this long after the drive started.
    FirstRequest(Duration),
    /// When the start-up allowance of this length was over, no request having come.
    StartUpOver(Duration),
}

/// Where the deadline ran from, after the origin.
#[derive(Debug, Clone, Copy)]
pub enum CallStart {
    /// The call's `tools/call` reached the server this long after the origin.
    ToolsCall(Duration),
    /// No request of the call reached the server: the deadline ran from the origin.
    NoRequest,
    /// Requests came (set-up), but no `tools/call` within this bound from the origin.
    SetUpOver(Duration),
}

/// Why a call was called a hang: where its clock started and where its deadline ran from.
#[derive(Debug, Clone, Copy)]
pub struct Hang {
    pub start: ClockStart,
    pub call: CallStart,
}

impl Clock<'_> {
    /// Resolves when the deadline has passed, with where it ran from: the origin is the
    /// adapter's first request, or the end of `start_up` (the driver's allowance) if no request
    /// came before, or the drive's start when the driver needs no start-up; the deadline runs
    /// from the call's `tools/call` (see the module's documentation).
    pub async fn passed(&self, start_up: Option<StartUp>, process: Option<NewProcess>) -> Hang {
        let start = match start_up {
            None => ClockStart::AtOnce(process),
            Some(start_up) => {
                let allowance = start_up.allowance;
                let acted = self.first_request(allowance).await;
                drop(start_up); // what it held goes to the next program starting
                match acted {
                    Some(after) => ClockStart::FirstRequest(after),
                    None => ClockStart::StartUpOver(allowance),
                }
            }
        };
        let origin = tokio::time::Instant::now();
        let call = match self.tools_call(self.deadline).await {
            Some(after) => CallStart::ToolsCall(after),
            None if !self.any_request() => CallStart::NoRequest,
            None => {
                let bound = self.set_up.max(self.deadline);
                let left = bound.saturating_sub(origin.elapsed());
                match self.tools_call(left).await {
                    Some(_) => CallStart::ToolsCall(origin.elapsed()),
                    None => {
                        return Hang {
                            start,
                            call: CallStart::SetUpOver(bound),
                        };
                    }
                }
            }
        };
        let from = match call {
            CallStart::ToolsCall(after) => after,
            _ => Duration::ZERO,
        };
        // tokio's sleep takes any duration: one past what an Instant holds never ends.
        let left = self
            .deadline
            .saturating_add(from)
            .saturating_sub(origin.elapsed());
        tokio::time::sleep(left).await;
        Hang { start, call }
    }

    /// How long after now the server received the call's first request, if within `allowance`.
    async fn first_request(&self, allowance: Duration) -> Option<Duration> {
        self.waits_for(allowance, |exchange| exchange.call == self.index)
            .await
    }

    /// How long after now the server received the call's `tools/call` (over HTTP or stdio), if
    /// within `within`; [`RECORD_POLL`] late at most.
    async fn tools_call(&self, within: Duration) -> Option<Duration> {
        self.waits_for(within, |exchange| {
            exchange.call == self.index && exchange.jsonrpc_method.as_deref() == Some("tools/call")
        })
        .await
    }

    /// Whether the server has received any request of the call.
    fn any_request(&self) -> bool {
        self.server
            .with_record(|exchanges| exchanges.iter().any(|e| e.call == self.index))
    }

    /// How long after now the record first held an exchange that `matches`, if within `within`.
    async fn waits_for(
        &self,
        within: Duration,
        matches: impl Fn(&crate::wire::record::Exchange) -> bool,
    ) -> Option<Duration> {
        let started = tokio::time::Instant::now();
        let until = started.checked_add(within);
        loop {
            if self
                .server
                .with_record(|exchanges| exchanges.iter().any(&matches))
            {
                return Some(started.elapsed());
            }
            let now = tokio::time::Instant::now();
            let left = until.map_or(RECORD_POLL, |until| until.saturating_duration_since(now));
            if left.is_zero() {
                return None;
            }
            tokio::time::sleep(left.min(RECORD_POLL)).await;
        }
    }
}

impl Hang {
    /// What a hang says: how long the runner waited, from when.
    pub fn problem(self, deadline: Duration) -> String {
        let waited = deadline.as_millis();
        match self.call {
            CallStart::NoRequest => self.start.problem(waited),
            // The plain case names no duration of the set-up: it varies from run to run, and
            // fixtures keep this text.
            CallStart::ToolsCall(_) => match self.start {
                ClockStart::AtOnce(None) => {
                    format!("no observation within {waited} ms of the call's tools/call")
                }
                start => format!(
                    "no observation within {waited} ms of the call's tools/call (set-up timed \
                     from {})",
                    start.origin()
                ),
            },
            CallStart::SetUpOver(bound) => format!(
                "set-up did not end: the client sent requests but no tools/call within {} ms \
                 of {}",
                bound.as_millis(),
                self.start.origin()
            ),
        }
    }
}

impl ClockStart {
    /// What a hang of an adapter that sent no request says.
    fn problem(self, waited: u128) -> String {
        match self {
            ClockStart::AtOnce(None) => format!("no observation within {waited} ms"),
            ClockStart::AtOnce(Some(process)) => {
                format!("no observation within {waited} ms ({})", process.describe())
            }
            ClockStart::FirstRequest(after) => format!(
                "no observation within {waited} ms of the adapter's first request (which came \
                 {} ms after it was started)",
                after.as_millis()
            ),
            ClockStart::StartUpOver(allowance) => format!(
                "no observation within {waited} ms after the start-up allowance of {} ms, in \
                 which the adapter sent no request",
                allowance.as_millis()
            ),
        }
    }

    /// The clock's origin, as words after "of" or "from".
    fn origin(self) -> String {
        match self {
            ClockStart::AtOnce(None) => "the call's start".to_owned(),
            ClockStart::AtOnce(Some(process)) => {
                format!("the call's start ({})", process.describe())
            }
            ClockStart::FirstRequest(after) => format!(
                "the adapter's first request (which came {} ms after it was started)",
                after.as_millis()
            ),
            ClockStart::StartUpOver(allowance) => format!(
                "the end of the start-up allowance of {} ms, in which the adapter sent no request",
                allowance.as_millis()
            ),
        }
    }
}
