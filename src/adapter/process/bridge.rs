//! Bridge rows (docs/bridges.md): a bridge or gateway between a client and a server, driven by
//! the reference client from its downstream side while the case is served upstream.
//!
//! The calls of a case run through one bridge, as a host keeps one: a stdio bridge is started
//! by the reference client as its stdio server (with the row's fresh home and environment); an
//! HTTP bridge (a gateway) is started in `prepare`, on a loopback port of its own, and the
//! reference client calls its endpoint. Each call's client timeout is the case's plus the
//! bridge's own upstream timeout, so that a bridge that answers a stalled upstream within its
//! timeout is seen answering. After the case's last call the driver asks the same bridge for
//! `tools/list` (the upstream always answers it): whether the bridge still serves after the
//! fault (`hop-survives`). The reference client downstream neither retries nor answers
//! `input_required`, so every `tools/call` the upstream server counts is the bridge's.

mod gateway;
pub mod spec;

use super::seeding;
use crate::adapter::reference::{ReferenceAdapter, RetryPolicy};
use crate::adapter::{
    Adapter, AdapterLog, CallContext, ClientRef, Driver, DriverInfo, LogSlot, Observes, StartUp,
    StdioLaunch, Transport,
};
use crate::case::Credentials;
use crate::hop::{Downstream, PROBE_ANSWERED, PROBE_FAILED};
use crate::observation::AdapterReport;
use gateway::Gateway;
use spec::{BridgeSpec, Fill};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::home::Home;

/// How long past the case's timeout and the bridge's own a call's client waits: the bridge's
/// timer starts after its own start and its upstream session, which on a loaded machine (eight
/// cases at once on two cores) take seconds.
pub const GRACE: Duration = Duration::from_secs(10);
/// How long the request after the last call (`tools/list`) may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an HTTP bridge has to listen, by default.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(60);
/// The protocol version the reference client speaks to a bridge unless the row says another.
pub const DOWNSTREAM_VERSION: &str = "2025-06-18";
/// The most bridges kept between the calls of their cases.
const MAX_KEPT: usize = 256;
/// How many of a row's bridges may be starting at once: one. The bridge rows run side by side
/// (docs/bridges.md), and a burst of Node or Python starts on two cores would eat the reference
/// client's grace; a bridge's cases wait on timers, not on its start.
pub const PARALLEL_STARTS: usize = 1;

/// A bridge or gateway, observed from its downstream side.
#[derive(Debug)]
pub struct BridgeAdapter {
    spec: BridgeSpec,
    /// Where it is installed (`{install}`).
    install: PathBuf,
    client: ReferenceAdapter,
    kept: Mutex<HashMap<u64, Bridge>>,
    /// A place for each bridge starting at once ([`PARALLEL_STARTS`]), held from `prepare`
    /// until the bridge's first upstream request (the call's [`StartUp`]).
    starts: Arc<Semaphore>,
}

/// One case's bridge: its home and log, and for an HTTP bridge its process. Field order is
/// drop order: the process goes before its home.
#[derive(Debug)]
struct Bridge {
    gateway: Option<Gateway>,
    /// Said in the call's log (a start that failed before the call).
    note: Option<String>,
    launch: Arc<StdioLaunch>,
    /// Its command line, filled (with the `[auth]` words in an authorization case).
    argv: Vec<String>,
    fill: Fill,
    _home: Home,
}

/// What `prepare` hands to `drive`: the case's bridge, or why there is none, and for a new
/// bridge its place among those starting.
#[derive(Debug)]
pub struct Prepared {
    bridge: Result<Bridge, String>,
    place: Option<OwnedSemaphorePermit>,
}

impl BridgeAdapter {
    /// The bridge `spec` describes, installed in `install` (its npm folder or its venv).
    pub fn new(spec: BridgeSpec, install: impl Into<PathBuf>) -> BridgeAdapter {
        let client = ReferenceAdapter::new()
            .with_retry(RetryPolicy::Never)
            .without_mrtr();
        BridgeAdapter {
            spec,
            install: install.into(),
            client,
            kept: Mutex::new(HashMap::new()),
            starts: Arc::new(Semaphore::new(PARALLEL_STARTS)),
        }
    }

    /// The row's `adapter.toml`.
    pub fn spec(&self) -> &BridgeSpec {
        &self.spec
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Bridge>> {
        // Plain data: still valid after a panic on another case's thread.
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new bridge for the case `call` belongs to: its home and files, and an HTTP bridge
    /// started and listening.
    async fn start(&self, call: &CallContext) -> Result<Bridge, String> {
        let home = Home::new("bridge", call.client.id)
            .map_err(|e| format!("cannot make the bridge's home: {e}"))?;
        let port = match self.spec.exposes {
            Downstream::Http => gateway::free_port()?,
            Downstream::Stdio => 0,
        };
        let fill = Fill {
            upstream_url: call.endpoint.clone(),
            port,
            home: home.0.clone(),
            install: self.install.clone(),
            tool: call.tool.clone(),
        };
        // In an authorization case the bridge holds the credentials upstream as its `[auth]`
        // says; its client, the reference client, holds none.
        let spec = &self.spec;
        let plain = (&spec.command[..], &spec.env, &spec.file[..]);
        let auth = spec.auth.as_ref().zip(call.auth.as_ref());
        let (argv, env) =
            seeding::set_up(&home, plain, auth, |t| fill.fill(t), &call.endpoint).await?;
        let launch = Arc::new(StdioLaunch {
            env,
            dir: Some(home.0.join("work")),
            stderr: LogSlot::new(),
        });
        let gateway = match self.spec.exposes {
            Downstream::Stdio => None,
            Downstream::Http => {
                let timeout = self.start_timeout();
                Some(Gateway::start(&argv, &launch, port, timeout).await?)
            }
        };
        Ok(Bridge {
            gateway,
            note: None,
            launch,
            argv,
            fill,
            _home: home,
        })
    }

    /// How long a bridge has to start: an HTTP one to listen, any to make its first upstream
    /// request.
    fn start_timeout(&self) -> Duration {
        self.spec
            .start_timeout_ms
            .map_or(DEFAULT_START_TIMEOUT, Duration::from_millis)
    }

    /// The call as the reference client makes it downstream: to the bridge, in the era it
    /// speaks, waiting for the bridge's own timeout too, and told of one call more than the
    /// case makes so that it keeps its connection for the request after the last.
    fn downstream(&self, call: &CallContext, bridge: &Bridge) -> CallContext {
        let mut downstream = call.clone();
        let timeout = Duration::from_millis(self.spec.timeout_ms);
        downstream.timeout = call.timeout.saturating_add(timeout).saturating_add(GRACE);
        downstream.protocol_version = self
            .spec
            .downstream_version
            .clone()
            .unwrap_or_else(|| DOWNSTREAM_VERSION.to_owned());
        downstream.tool = bridge
            .fill
            .fill(self.spec.tool.as_deref().unwrap_or("{tool}"));
        downstream.client = ClientRef {
            calls: call.client.calls.saturating_add(1),
            ..call.client
        };
        // Upstream credentials are the bridge's; its client holds only the gateway's key, when
        // the gateway asks for one.
        downstream.auth = self.spec.downstream_key.as_ref().map(|key| Credentials {
            access_token: Some(key.clone()),
            refresh_token: None,
            expires_in: None,
            scope: String::new(),
            client_id: "mcp-error-layers".to_owned(),
            client_secret: None,
            authorization_server: String::new(),
            token_endpoint: String::new(),
            redirect_uri: String::new(),
        });
        match &bridge.gateway {
            None => {
                downstream.transport = Transport::Stdio;
                downstream.endpoint = "stdio".to_owned();
                downstream.command = bridge.argv.clone();
                downstream.launch = Some(Arc::clone(&bridge.launch));
            }
            Some(_) => downstream.endpoint = self.endpoint(&bridge.fill),
        }
        downstream
    }

    /// An HTTP bridge's MCP endpoint.
    fn endpoint(&self, fill: &Fill) -> String {
        fill.fill(self.spec.endpoint.as_deref().unwrap_or_default())
    }

    /// Whether the same bridge answers `tools/list` after the case's last call, in the words
    /// the `hop-survives` check reads.
    async fn probe(&self, call: &CallContext, bridge: &Bridge) -> String {
        let answered = match &bridge.gateway {
            None => self.client.probe_stdio(call.client.id, PROBE_TIMEOUT).await,
            Some(_) => {
                let key = self.spec.downstream_key.as_deref();
                gateway::probe(&self.endpoint(&bridge.fill), key, PROBE_TIMEOUT).await
            }
        };
        match answered {
            Ok(()) => PROBE_ANSWERED.to_owned(),
            Err(why) => format!("{PROBE_FAILED}: {why}"),
        }
    }
}

impl Driver for BridgeAdapter {
    type Prepared = Prepared;

    fn takes_credentials(&self) -> bool {
        self.spec.auth.is_some()
    }

    async fn prepare(&self, call: &CallContext) -> Prepared {
        if let Some(bridge) = self.kept().remove(&call.client.id) {
            let bridge = Ok(bridge);
            return Prepared {
                bridge,
                place: None,
            };
        }
        // The semaphore is never closed.
        let place = Arc::clone(&self.starts).acquire_owned().await.ok();
        let mut bridge = self.start(call).await;
        if let Ok(started) = &mut bridge
            && started.gateway.is_none()
        {
            // A stdio bridge starts and connects upstream now, outside the call's clock: the
            // bridge's own timeout starts when it forwards the call, and a loaded machine must
            // not spend the client's grace on the start. A failure is the call's to see: it
            // starts the bridge again and reports what it gets.
            let downstream = self.downstream(call, started);
            let connected = self
                .client
                .connect_stdio(&downstream, self.start_timeout())
                .await;
            started.note = connected.err().map(|why| {
                format!(
                    "the bridge did not connect before the call ({why}); the call starts it again"
                )
            });
        }
        Prepared { bridge, place }
    }

    /// A new bridge is starting until the upstream server sees its first request.
    fn start_up(&self, prepared: &mut Prepared) -> Option<StartUp> {
        let place = prepared.place.take()?;
        Some(StartUp::new(self.start_timeout()).holding(Some(place)))
    }

    fn info(&self) -> DriverInfo {
        DriverInfo {
            name: Some(self.spec.bridge.clone()),
            version: Some(self.spec.version.clone()),
            bridge: Some(self.spec.exposes),
            ..DriverInfo::default()
        }
    }

    fn observes(&self) -> Observes {
        Observes::Downstream(self.spec.exposes)
    }

    /// The bridge's own timeout, the grace and the `tools/list` after the last call.
    fn extra_wait(&self) -> Duration {
        Duration::from_millis(self.spec.timeout_ms)
            .saturating_add(GRACE)
            .saturating_add(PROBE_TIMEOUT)
    }

    async fn drive(
        &self,
        prepared: Prepared,
        call: CallContext,
        log: &AdapterLog,
    ) -> Result<AdapterReport, String> {
        if call.task.is_some() {
            return Ok(AdapterReport::Unsupported {
                unsupported: "a bridge row's client calls through the bridge without a task"
                    .to_owned(),
            });
        }
        let mut bridge = prepared.bridge?;
        bridge.launch.stderr.set(log);
        if let Some(note) = bridge.note.take() {
            log.note(note);
        }
        let report = self.client.call(self.downstream(&call, &bridge)).await;
        let AdapterReport::Observed(mut observed) = report else {
            return Ok(report);
        };
        // The downstream client's own count and policy: the upstream server counts the
        // bridge's requests, which the checks judge.
        observed.attempts = None;
        observed.retry = None;
        if call.client.is_last() {
            let probe = self.probe(&call, &bridge).await;
            observed.detail = format!("{}; {probe}", observed.detail);
        } else {
            let mut kept = self.kept();
            if kept.len() < MAX_KEPT {
                kept.insert(call.client.id, bridge);
            }
        }
        Ok(AdapterReport::Observed(observed))
    }
}
