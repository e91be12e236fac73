//! What a run was run with, beyond its cases and its adapter: the settings that decide its
//! verdicts (how many cases at once, the timeouts, the hang margin), kept in every report so
//! that a reader can run it again. [`RunSettings::flags`] spells them as the `run` command
//! line's flags; every report's header prints those.

use crate::adapter::DriverInfo;
use crate::runner::RunOptions;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The settings of one run (JSON: the report's `settings`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSettings {
    /// How many cases ran at once.
    pub jobs: usize,
    /// The client timeout of a call whose case names none; `null`: the case format's 5 s.
    pub default_timeout_ms: Option<u64>,
    /// How long past a call's timeout the runner waited before it called the call a hang.
    pub deadline_margin_ms: u64,
    /// An adapter program's persistent processes: how long one had to announce that it was
    /// ready; `null` for an adapter in the runner's own process.
    pub announce_timeout_ms: Option<u64>,
    /// An adapter program started for one call: how long it had before its first request;
    /// `null` for an adapter in the runner's own process.
    pub start_up_timeout_ms: Option<u64>,
    /// Whether the adapter program was a conformance client, its command given to
    /// `--conformance-client` rather than after `--` (added in v1 later; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conformance_client: bool,
    /// Whether the client was a coding agent, observed by what it told its model (`run
    /// --agent`; added in v1 later; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub agent: bool,
    /// What the client exposed downstream when it was a bridge (`stdio` or `http`), judged
    /// by the faithful-hop table (docs/bridges.md; added in v1 later; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bridge: Option<crate::hop::Downstream>,
    /// Whether the adapter program was run with its stdio side (`run --transports
    /// http,stdio`; added in v1 later; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stdio: bool,
    /// Whether the adapter program was given the start credentials of the authorization cases
    /// (`run --auth`; added in v1 later; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auth: bool,
}

/// A duration as the whole milliseconds a report and a flag carry (saturating: no setting is
/// near `u64::MAX` ms, which is 584 million years).
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Who and what a run's flags name besides its settings.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// The adapter's name in reports.
    pub adapter: &'a str,
    /// The client's version, when known.
    pub version: Option<&'a str>,
    /// The protocol version every case was made to prefer, if one was.
    pub protocol_version: Option<&'a str>,
    /// Whether SHOULD-grade mismatches failed the run.
    pub strict: bool,
}

impl RunSettings {
    /// The settings of a run of `jobs` cases at once with `options`, on an adapter that said
    /// `driver` of itself (an adapter program's allowances; none for one in this process).
    pub fn of(jobs: usize, options: &RunOptions, driver: &DriverInfo) -> Self {
        RunSettings {
            jobs,
            default_timeout_ms: options.default_timeout.map(millis),
            deadline_margin_ms: millis(options.deadline_margin),
            announce_timeout_ms: driver.announce_timeout.map(millis),
            start_up_timeout_ms: driver.start_up_timeout.map(millis),
            conformance_client: driver.conformance_client,
            agent: driver.agent,
            bridge: driver.bridge,
            stdio: driver.stdio,
            auth: driver.auth,
        }
    }

    /// The `mcp-error-layers run` flags that run the same cases again with these settings:
    /// `--jobs 8 --default-timeout-ms 5000 --deadline-margin-ms 3000 ...`. An adapter program's
    /// own flags (its timeouts, name and version) are there only for an adapter program: the
    /// command line's other adapter is the reference client, which has neither.
    pub fn flags(&self, named: Named<'_>) -> String {
        let mut flags = vec![format!("--jobs {}", self.jobs)];
        if let Some(ms) = self.default_timeout_ms {
            flags.push(format!("--default-timeout-ms {ms}"));
        }
        flags.push(format!("--deadline-margin-ms {}", self.deadline_margin_ms));
        if let Some(version) = named.protocol_version {
            flags.push(format!("--protocol-version {}", quoted(version)));
        }
        if named.strict {
            flags.push("--strict".into());
        }
        if self.announce_timeout_ms.is_some() || self.start_up_timeout_ms.is_some() || self.agent {
            flags.extend(self.program_flags(named));
        }
        flags.join(" ")
    }

    /// The flags that only an adapter program takes.
    fn program_flags(&self, named: Named<'_>) -> Vec<String> {
        let mut flags = Vec::new();
        if let Some(ms) = self.announce_timeout_ms {
            flags.push(format!("--announce-timeout-ms {ms}"));
        }
        if let Some(ms) = self.start_up_timeout_ms {
            flags.push(format!("--start-up-timeout-ms {ms}"));
        }
        if self.stdio {
            flags.push("--transports http,stdio".into());
        }
        if self.auth {
            flags.push("--auth".into());
        }
        flags.push(format!("--adapter-name {}", quoted(named.adapter)));
        if let Some(version) = named.version {
            flags.push(format!("--adapter-version {}", quoted(version)));
        }
        flags
    }
}

/// `word` as a POSIX shell reads it back: as it is when it has only characters no shell
/// treats specially, else in single quotes (a quote inside as `'\''`).
fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.+/@:,=".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(adapter: &str) -> Named<'_> {
        Named {
            adapter,
            version: Some("2.3.0"),
            protocol_version: None,
            strict: false,
        }
    }

    #[test]
    fn an_adapter_programs_flags_name_its_timeouts_and_identity() {
        let settings = RunSettings {
            jobs: 8,
            default_timeout_ms: Some(5_000),
            deadline_margin_ms: 3_000,
            announce_timeout_ms: Some(60_000),
            start_up_timeout_ms: Some(10_000),
            conformance_client: false,
            agent: false,
            bridge: None,
            stdio: true,
            auth: true,
        };
        assert_eq!(
            settings.flags(named("python-sdk")),
            "--jobs 8 --default-timeout-ms 5000 --deadline-margin-ms 3000 \
             --announce-timeout-ms 60000 --start-up-timeout-ms 10000 --transports http,stdio \
             --auth --adapter-name python-sdk --adapter-version 2.3.0"
        );
    }

    #[test]
    fn the_reference_clients_flags_have_no_program_settings() {
        let settings = RunSettings {
            jobs: 64,
            deadline_margin_ms: 1_000,
            ..RunSettings::default()
        };
        let named = Named {
            protocol_version: Some("2025-11-25"),
            strict: true,
            ..named("reference")
        };
        assert_eq!(
            settings.flags(named),
            "--jobs 64 --deadline-margin-ms 1000 --protocol-version 2025-11-25 --strict"
        );
    }

    #[test]
    fn words_a_shell_would_split_or_expand_are_quoted() {
        assert_eq!(quoted("ai-sdk+retries2"), "ai-sdk+retries2");
        assert_eq!(quoted("@ai-sdk/mcp"), "@ai-sdk/mcp");
        assert_eq!(quoted("my client"), "'my client'");
        assert_eq!(quoted("it's"), r"'it'\''s'");
        assert_eq!(quoted("$HOME"), "'$HOME'");
        assert_eq!(quoted(""), "''");
    }
}
