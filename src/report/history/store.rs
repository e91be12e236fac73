//! What a history keeps of each run: two tab-separated files beside its pages, written by
//! `report history` and read back by it, so a recorded line needs no JSON report.
//!
//! - `versions.tsv`: `version  adapter  generator  unavailable`, one line per version: the
//!   adapter's name and the `mcp-error-layers` that ran it, or `-` in both and why the version
//!   could not be installed or driven;
//! - `cases.tsv`: `version  case  grade  standing  verdict  calls`, one line per case and version
//!   that ran: the case's grade, where it left the run, its verdict and, per call (`; `
//!   between calls), what the adapter reported: `HTTP_ERROR status=503 code=-32000
//!   tool_posts=2` (the outcome, then the status and the code when there was one, then the
//!   `tools/call` POSTs when not 1), `unsupported`, or `no-observation verdict=hang` (a call
//!   that gave none, with its verdict); `did-not-run` for a case that could not run.
//!
//! Each file starts with its header line. A field `-` is empty (a literal dash is `\-`); a tab,
//! a line break or a backslash in a field is `\t`, `\n`, `\r`, `\\`. A version's counts on the
//! pages (cases, passed, failed) are counted from its lines: passed is standing `pass`, failed a
//! standing that fails the run.

use super::{Column, HistoryError};
use crate::case::Grade;
use crate::observation::AdapterReport;
use crate::outcome::Outcome;
use crate::report::json::{JsonCall, JsonCase, JsonReport};
use crate::standing::StandingKind;
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The versions file of a history folder.
pub const VERSIONS: &str = "versions.tsv";
/// The cases file of a history folder.
pub const CASES: &str = "cases.tsv";
/// The largest store file read: a line of 10 versions of 200 cases is about 120 KiB
/// ([`Kind::History`](crate::input::Kind::History)'s bound).
pub const MAX_FILE_BYTES: u64 = crate::input::Kind::History.bound();

const VERSIONS_HEADER: [&str; 4] = ["version", "adapter", "generator", "unavailable"];
const CASES_HEADER: [&str; 6] = ["version", "case", "grade", "standing", "verdict", "calls"];
const GRADES: [Grade; 3] = [Grade::Must, Grade::Should, Grade::Info];
/// Said after every complaint about a line.
const FIX: &str = "correct the line (docs/reports.md, \"Shards and histories\", describes both \
                   files), or write both again from the sweep's reports: `mcp-error-layers \
                   report history DIR REPORT...`";

/// One version's run, as the history keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The adapter's name.
    pub adapter: String,
    /// The `mcp-error-layers` that ran it (`mcp-error-layers 0.1.0`), when known.
    pub generator: Option<String>,
    /// Its cases, by id.
    pub cases: Vec<Record>,
}

/// One case at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The case id.
    pub case: String,
    /// Its grade.
    pub grade: Grade,
    /// Where it left the run.
    pub standing: StandingKind,
    /// Its verdict (the worst of its calls').
    pub verdict: Verdict,
    /// What the adapter reported, per call.
    pub calls: Calls,
}

/// A case's calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Calls {
    /// The case could not run at all (its file did not load).
    DidNotRun,
    /// The calls that ran.
    Ran(Vec<Call>),
}

/// One call: what the adapter reported, and the `tools/call` POSTs the server received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// What the adapter reported.
    pub report: Reported,
    /// `tools/call` POSTs during the call.
    pub tool_posts: u32,
}

/// What the adapter reported for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// An observation: the outcome, and the status and code when the client saw them.
    Observed {
        /// The outcome.
        outcome: Outcome,
        /// The HTTP status.
        status: Option<u16>,
        /// The JSON-RPC code.
        code: Option<i64>,
    },
    /// The adapter declined the call.
    Unsupported,
    /// No observation (a hang, a crash), with the call's verdict.
    Nothing {
        /// The call's verdict.
        verdict: Verdict,
    },
}

impl Run {
    /// What the history keeps of `report`; `Err` when its summary does not count its cases
    /// (the pages count them).
    pub fn of(report: &JsonReport) -> Result<Run, String> {
        let mut cases: Vec<Record> = report
            .cases
            .iter()
            .map(Record::of)
            .collect::<Result<_, _>>()?;
        cases.sort_by(|a, b| a.case.cmp(&b.case));
        let run = Run {
            adapter: report.adapter.name.clone(),
            generator: Some(report.generator.clone()),
            cases,
        };
        let s = &report.summary;
        let said = (s.cases, s.passed, s.failed);
        let counted = (run.cases.len(), run.passed(), run.failed());
        if said != counted {
            return Err(format!(
                "its summary says {} cases, {} passed, {} failed; its cases are {}, {} passed, \
                 {} failed",
                said.0, said.1, said.2, counted.0, counted.1, counted.2
            ));
        }
        Ok(run)
    }

    /// Cases that passed outright.
    pub fn passed(&self) -> usize {
        let pass = |r: &&Record| r.standing == StandingKind::Pass;
        self.cases.iter().filter(pass).count()
    }

    /// Cases that fail the run.
    pub fn failed(&self) -> usize {
        self.cases.iter().filter(|r| r.standing.fails_run()).count()
    }
}

impl Record {
    fn of(case: &JsonCase) -> Result<Record, String> {
        let word = case.standing_word();
        let standing = word_of(standing_kinds(), word, StandingKind::as_str)
            .ok_or_else(|| format!("case {}: {word:?} is no standing", case.id))?;
        let calls = match case.error {
            Some(_) => Calls::DidNotRun,
            None => Calls::Ran(case.calls.iter().map(Call::of).collect()),
        };
        Ok(Record {
            case: case.id.clone(),
            grade: case.grade,
            standing,
            verdict: case.verdict,
            calls,
        })
    }

    /// What the SDK did, in the pages' words: its calls' behaviours joined with ` · `
    /// (`HTTP_ERROR 503 ×2 POSTs · TOOL_SUCCESS`), or `case did not run`.
    pub fn behaviour(&self) -> String {
        let Calls::Ran(calls) = &self.calls else {
            return "case did not run".to_owned();
        };
        let calls: Vec<String> = calls.iter().map(Call::behaviour).collect();
        calls.join(" · ")
    }
}

impl Call {
    fn of(call: &JsonCall) -> Call {
        let report = match &call.observed {
            Some(AdapterReport::Observed(o)) => Reported::Observed {
                outcome: o.outcome,
                status: o.status,
                code: o.code,
            },
            Some(AdapterReport::Unsupported { .. }) => Reported::Unsupported,
            None => Reported::Nothing {
                verdict: call.verdict,
            },
        };
        Call {
            report,
            tool_posts: call.tool_posts,
        }
    }

    fn behaviour(&self) -> String {
        let posts = match self.tool_posts {
            1 => String::new(),
            n => format!(" ×{n} POSTs"),
        };
        match self.report {
            Reported::Observed {
                outcome,
                status,
                code,
            } => {
                let status = status.map(|s| format!(" {s}")).unwrap_or_default();
                let code = code.map(|c| format!(" {c}")).unwrap_or_default();
                format!("{outcome}{status}{code}{posts}")
            }
            Reported::Unsupported => "unsupported".to_owned(),
            Reported::Nothing { verdict } => format!("{verdict}{posts}"),
        }
    }

    /// `HTTP_ERROR status=503 tool_posts=2`, `unsupported`, `no-observation verdict=hang`.
    fn text(&self) -> String {
        let mut text = match self.report {
            Reported::Observed {
                outcome,
                status,
                code,
            } => {
                let mut text = outcome.as_str().to_owned();
                if let Some(status) = status {
                    let _ = write!(text, " status={status}");
                }
                if let Some(code) = code {
                    let _ = write!(text, " code={code}");
                }
                text
            }
            Reported::Unsupported => "unsupported".to_owned(),
            Reported::Nothing { verdict } => format!("no-observation verdict={verdict}"),
        };
        if self.tool_posts != 1 {
            let _ = write!(text, " tool_posts={}", self.tool_posts);
        }
        text
    }

    fn parse(text: &str) -> Result<Call, String> {
        let mut words = text.split(' ');
        let head = words.next().unwrap_or_default();
        let (mut status, mut code, mut verdict, mut tool_posts) = (None, None, None, None);
        for word in words {
            let Some((key, value)) = word.split_once('=') else {
                return Err(format!(
                    "call {text:?}: {word:?} is not key=value (status, code, tool_posts, verdict)"
                ));
            };
            let bad = |what: &str| format!("call {text:?}: {key}={value:?} is not {what}");
            let fresh = match key {
                "status" => status
                    .replace(value.parse::<u16>().map_err(|_| bad("an HTTP status"))?)
                    .is_none(),
                "code" => code
                    .replace(value.parse::<i64>().map_err(|_| bad("a JSON-RPC code"))?)
                    .is_none(),
                "tool_posts" => tool_posts
                    .replace(value.parse::<u32>().map_err(|_| bad("a count"))?)
                    .is_none(),
                "verdict" => verdict
                    .replace(word_of(Verdict::ALL, value, |v| v.as_str()).ok_or_else(|| {
                        bad(&format!(
                            "a verdict ({})",
                            words_of(Verdict::ALL, |v| v.as_str())
                        ))
                    })?)
                    .is_none(),
                _ => {
                    return Err(format!(
                        "call {text:?}: unknown key {key:?} (status, code, tool_posts, verdict)"
                    ));
                }
            };
            if !fresh {
                return Err(format!("call {text:?}: {key} is there twice"));
            }
        }
        let report = match head {
            "unsupported" => Reported::Unsupported,
            "no-observation" => Reported::Nothing {
                verdict: verdict
                    .ok_or_else(|| format!("call {text:?}: no-observation needs its verdict="))?,
            },
            outcome => Reported::Observed {
                outcome: word_of(Outcome::ALL, outcome, |o| o.as_str()).ok_or_else(|| {
                    format!(
                        "call {text:?}: {outcome:?} is not an outcome ({}), `unsupported` or \
                         `no-observation`",
                        words_of(Outcome::ALL, |o| o.as_str())
                    )
                })?,
                status,
                code,
            },
        };
        let stray = match report {
            Reported::Observed { .. } => verdict.map(|_| "verdict"),
            _ => status.map(|_| "status").or(code.map(|_| "code")),
        };
        if let Some(key) = stray {
            return Err(format!("call {text:?}: {key} does not go with {head}"));
        }
        Ok(Call {
            report,
            tool_posts: tool_posts.unwrap_or(1),
        })
    }
}

impl Calls {
    fn text(&self) -> String {
        match self {
            Calls::DidNotRun => "did-not-run".to_owned(),
            Calls::Ran(calls) => {
                let calls: Vec<String> = calls.iter().map(Call::text).collect();
                calls.join("; ")
            }
        }
    }

    fn parse(text: Option<&str>) -> Result<Calls, String> {
        match text {
            None => Ok(Calls::Ran(Vec::new())),
            Some("did-not-run") => Ok(Calls::DidNotRun),
            Some(text) => text
                .split("; ")
                .map(Call::parse)
                .collect::<Result<_, _>>()
                .map(Calls::Ran),
        }
    }
}

/// The texts of `versions.tsv` and `cases.tsv` for `columns` (in release order).
pub(super) fn texts(columns: &[Column]) -> (String, String) {
    let mut versions = VERSIONS_HEADER.join("\t") + "\n";
    let mut cases = CASES_HEADER.join("\t") + "\n";
    for column in columns {
        let version = field(Some(&column.version));
        let run = match &column.run {
            Ok(run) => run,
            Err(why) => {
                let _ = writeln!(versions, "{version}\t-\t-\t{}", field(Some(why)));
                continue;
            }
        };
        let generator = field(run.generator.as_deref());
        let _ = writeln!(
            versions,
            "{version}\t{}\t{generator}\t-",
            field(Some(&run.adapter))
        );
        for record in &run.cases {
            let calls = record.calls.text();
            let _ = writeln!(
                cases,
                "{version}\t{}\t{}\t{}\t{}\t{}",
                field(Some(&record.case)),
                record.grade.as_str(),
                record.standing.as_str(),
                record.verdict,
                field((!calls.is_empty()).then_some(calls.as_str()))
            );
        }
    }
    (versions, cases)
}

/// The columns stored in `dir` (in no order), or `None` when it holds neither file.
pub(super) fn read(dir: &Path) -> Result<Option<Vec<Column>>, HistoryError> {
    let (versions, cases) = (dir.join(VERSIONS), dir.join(CASES));
    match (versions.exists(), cases.exists()) {
        (false, false) => Ok(None),
        (true, true) => parse(
            (&versions, &read_text(&versions)?),
            (&cases, &read_text(&cases)?),
        )
        .map(Some),
        (present, _) => {
            let (there, missing) = match present {
                true => (VERSIONS, CASES),
                false => (CASES, VERSIONS),
            };
            Err(HistoryError::new(
                dir.join(missing),
                None,
                format!(
                    "is missing beside {there}: a history keeps both; restore it, or write both \
                     again from the sweep's reports: `mcp-error-layers report history DIR \
                     REPORT...`"
                ),
            ))
        }
    }
}

fn read_text(path: &Path) -> Result<String, HistoryError> {
    let error = |why: String| HistoryError::new(path.to_owned(), None, why);
    crate::input::read_to_string(path, crate::input::Kind::History).map_err(|e| error(e.why()))
}

/// The columns in the two files' texts; each path only names its file in errors.
pub(super) fn parse(
    (versions_path, versions): (&Path, &str),
    (cases_path, cases): (&Path, &str),
) -> Result<Vec<Column>, HistoryError> {
    let mut runs: BTreeMap<String, (usize, Result<Run, String>)> = BTreeMap::new();
    for (line, fields) in rows(versions_path, versions, &VERSIONS_HEADER)? {
        let error = |why: String| line_error(versions_path, line, why);
        let [version, adapter, generator, unavailable] = fields;
        let version = version.ok_or_else(|| error("the version is empty".into()))?;
        let run = match (adapter, unavailable) {
            (Some(adapter), None) => Ok(Run {
                adapter,
                generator,
                cases: Vec::new(),
            }),
            (None, Some(why)) if generator.is_none() => Err(why),
            (Some(_), Some(_)) => {
                return Err(error(format!(
                    "version {version} names an adapter and why it is unavailable: a version \
                     that ran has `-` in unavailable, one that did not has `-` in adapter and \
                     generator"
                )));
            }
            (None, _) => {
                return Err(error(format!(
                    "version {version} names no adapter and no reason it is unavailable (or a \
                     generator without an adapter): a version that ran has its adapter, one \
                     that did not has `-` in adapter and generator and why in unavailable"
                )));
            }
        };
        if let Some((first, _)) = runs.get(&version) {
            return Err(error(format!(
                "version {version} is there twice (line {first} too): keep one"
            )));
        }
        runs.insert(version, (line, run));
    }
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (line, fields) in rows(cases_path, cases, &CASES_HEADER)? {
        let error = |why: String| line_error(cases_path, line, why);
        let [version, case, grade, standing, verdict, calls] = fields;
        let version = version.ok_or_else(|| error("the version is empty".into()))?;
        let case = case.ok_or_else(|| error("the case id is empty".into()))?;
        let word = |name: &str, value: Option<String>, known: String| {
            let value = value.unwrap_or_default();
            error(format!("{name} {value:?} is not one of {known}"))
        };
        let grade = match grade
            .as_deref()
            .and_then(|g| word_of(&GRADES, g, |g| g.as_str()))
        {
            Some(grade) => grade,
            None => return Err(word("grade", grade, words_of(&GRADES, |g| g.as_str()))),
        };
        let kinds = standing_kinds();
        let standing = match standing
            .as_deref()
            .and_then(|s| word_of(kinds, s, |k| k.as_str()))
        {
            Some(standing) => standing,
            None => return Err(word("standing", standing, words_of(kinds, |k| k.as_str()))),
        };
        let verdict = match verdict
            .as_deref()
            .and_then(|v| word_of(Verdict::ALL, v, |v| v.as_str()))
        {
            Some(verdict) => verdict,
            None => {
                return Err(word(
                    "verdict",
                    verdict,
                    words_of(Verdict::ALL, |v| v.as_str()),
                ));
            }
        };
        let calls = Calls::parse(calls.as_deref()).map_err(error)?;
        let run = match runs.get_mut(&version) {
            Some((_, Ok(run))) => run,
            Some((at, Err(_))) => {
                return Err(error(format!(
                    "version {version} is unavailable ({VERSIONS} line {at}), so it has no \
                     cases: remove this line, or give the version its adapter there"
                )));
            }
            None => {
                return Err(error(format!(
                    "version {version} is not in {VERSIONS}: add its line there, or remove \
                     its cases here"
                )));
            }
        };
        if let Some(first) = seen.insert((version.clone(), case.clone()), line) {
            return Err(error(format!(
                "case {case} at {version} is there twice (line {first} too): keep one"
            )));
        }
        run.cases.push(Record {
            case,
            grade,
            standing,
            verdict,
            calls,
        });
    }
    Ok(runs
        .into_iter()
        .map(|(version, (_, mut run))| {
            if let Ok(run) = &mut run {
                run.cases.sort_by(|a, b| a.case.cmp(&b.case));
            }
            Column { version, run }
        })
        .collect())
}

/// A line of a file: its number, and its fields (`None` for `-`).
type Row<const N: usize> = (usize, [Option<String>; N]);

/// The lines of a file after its header, each with as many fields as the header.
fn rows<const N: usize>(
    path: &Path,
    text: &str,
    header: &[&str; N],
) -> Result<Vec<Row<N>>, HistoryError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let expected = header.join("\t");
    match lines.next() {
        Some((_, first)) if first == expected => {}
        first => {
            let found = first.map_or("nothing", |(_, l)| l).replace('\t', " ⇥ ");
            let wanted = expected.replace('\t', " ⇥ ");
            let why = format!("the header is {found:?}, not {wanted:?} (⇥: a tab)");
            return Err(line_error(path, 1, why));
        }
    }
    let mut rows = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<Option<String>> = line
            .split('\t')
            .zip(header.iter().chain(std::iter::repeat(&"a field too many")))
            .map(|(raw, name)| unescape(raw).map_err(|why| format!("{name}: {why}")))
            .collect::<Result<_, _>>()
            .map_err(|why| line_error(path, number, why))?;
        let count = fields.len();
        let fields = <[Option<String>; N]>::try_from(fields).map_err(|_| {
            let why = format!(
                "{count} fields where a line has {N} ({}), separated by tabs",
                header.join(", ")
            );
            line_error(path, number, why)
        })?;
        rows.push((number, fields));
    }
    Ok(rows)
}

/// A complaint about line `line` of `path`, with how to fix it.
fn line_error(path: &Path, line: usize, why: String) -> HistoryError {
    HistoryError::new(path.to_owned(), Some(line), format!("{why}; {FIX}"))
}

/// A field as written: `-` for none, a text escaped.
fn field(value: Option<&str>) -> String {
    match value {
        None => "-".to_owned(),
        Some("-") => "\\-".to_owned(),
        Some(text) => {
            let mut out = String::with_capacity(text.len());
            for c in text.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    c => out.push(c),
                }
            }
            out
        }
    }
}

/// A field read: `-` is none; escapes undone.
fn unescape(raw: &str) -> Result<Option<String>, String> {
    if raw == "-" {
        return Ok(None);
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('\\') => '\\',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('-') => '-',
            other => {
                let what = other.map_or("the end".to_owned(), |c| format!("{c:?}"));
                return Err(format!(
                    "a backslash before {what}: write \\\\ for a backslash (escapes: \\t \\n \\r \\\\ \\-)"
                ));
            }
        });
    }
    Ok(Some(out))
}

fn standing_kinds() -> &'static [StandingKind] {
    <StandingKind as strum::VariantArray>::VARIANTS
}

fn word_of<T: Copy>(all: &[T], word: &str, name: impl Fn(T) -> &'static str) -> Option<T> {
    all.iter().copied().find(|t| name(*t) == word)
}

fn words_of<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    let words: Vec<&str> = all.iter().map(|t| name(*t)).collect();
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::history::tests::report;

    fn observed(outcome: Outcome, status: Option<u16>, code: Option<i64>, posts: u32) -> Call {
        Call {
            report: Reported::Observed {
                outcome,
                status,
                code,
            },
            tool_posts: posts,
        }
    }

    fn record(case: &str, standing: StandingKind, verdict: Verdict, calls: Calls) -> Record {
        let grade = Grade::Should;
        Record {
            case: case.into(),
            grade,
            standing,
            verdict,
            calls,
        }
    }

    /// Every form a field and a call can take.
    fn columns() -> Vec<Column> {
        let cases = vec![
            record(
                "a/two-calls",
                StandingKind::Warning,
                Verdict::Fail,
                Calls::Ran(vec![
                    observed(Outcome::HttpError, Some(503), Some(-32000), 2),
                    observed(Outcome::ToolSuccess, None, None, 1),
                ]),
            ),
            record(
                "b/declined",
                StandingKind::Unsupported,
                Verdict::Unsupported,
                Calls::Ran(vec![Call {
                    report: Reported::Unsupported,
                    tool_posts: 0,
                }]),
            ),
            record(
                "c/hang",
                StandingKind::Hang,
                Verdict::Hang,
                Calls::Ran(vec![Call {
                    report: Reported::Nothing {
                        verdict: Verdict::Hang,
                    },
                    tool_posts: 1,
                }]),
            ),
            record(
                "d/broken",
                StandingKind::Fail,
                Verdict::Fail,
                Calls::DidNotRun,
            ),
            record(
                "e/no-call",
                StandingKind::Pass,
                Verdict::Pass,
                Calls::Ran(vec![]),
            ),
            record("-", StandingKind::Pass, Verdict::Pass, Calls::Ran(vec![])),
        ];
        vec![
            Column {
                version: "1.0.0".into(),
                run: Err("npm\tinstall failed:\nE404 \\ -".into()),
            },
            Column {
                version: "1.1.0".into(),
                run: Err("-".into()),
            },
            Column {
                version: "1.2.0".into(),
                run: Ok(Run {
                    adapter: "sdk".into(),
                    generator: None,
                    cases: vec![],
                }),
            },
            Column {
                version: "1.3.0".into(),
                run: Ok(Run {
                    adapter: "sdk".into(),
                    generator: Some("mcp-error-layers 0.1.0".into()),
                    cases,
                }),
            },
        ]
    }

    fn parsed(versions: &str, cases: &str) -> Result<Vec<Column>, HistoryError> {
        parse(
            (Path::new("h/versions.tsv"), versions),
            (Path::new("h/cases.tsv"), cases),
        )
    }

    #[test]
    fn what_is_written_reads_back_the_same() {
        let mut columns = columns();
        if let Ok(run) = &mut columns[3].run {
            run.cases.sort_by(|a, b| a.case.cmp(&b.case));
        }
        let (versions, cases) = texts(&columns);
        assert_eq!(
            versions,
            "version\tadapter\tgenerator\tunavailable\n\
             1.0.0\t-\t-\tnpm\\tinstall failed:\\nE404 \\\\ -\n\
             1.1.0\t-\t-\t\\-\n\
             1.2.0\tsdk\t-\t-\n\
             1.3.0\tsdk\tmcp-error-layers 0.1.0\t-\n"
        );
        assert!(cases.contains(
            "1.3.0\ta/two-calls\tshould\twarning\tfail\t\
             HTTP_ERROR status=503 code=-32000 tool_posts=2; TOOL_SUCCESS\n"
        ));
        assert!(cases.contains(
            "1.3.0\tb/declined\tshould\tunsupported\tunsupported\tunsupported tool_posts=0\n"
        ));
        assert!(cases.contains("1.3.0\tc/hang\tshould\thang\thang\tno-observation verdict=hang\n"));
        assert!(cases.contains("1.3.0\td/broken\tshould\tfail\tfail\tdid-not-run\n"));
        assert!(cases.contains("1.3.0\te/no-call\tshould\tpass\tpass\t-\n"));
        assert!(cases.contains("1.3.0\t\\-\tshould\tpass\tpass\t-\n"));
        assert_eq!(parsed(&versions, &cases).unwrap(), columns);
        // Windows line ends and blank lines read the same.
        let crlf = |t: &str| t.replace('\n', "\r\n\r\n");
        assert_eq!(parsed(&crlf(&versions), &crlf(&cases)).unwrap(), columns);
    }

    #[test]
    fn the_behaviour_is_the_pages_words() {
        let words: Vec<String> = match &columns()[3].run {
            Ok(run) => run.cases.iter().map(Record::behaviour).collect(),
            Err(_) => unreachable!(),
        };
        assert_eq!(
            words,
            [
                "HTTP_ERROR 503 -32000 ×2 POSTs · TOOL_SUCCESS",
                "unsupported",
                "hang",
                "case did not run",
                "",
                ""
            ]
        );
    }

    #[test]
    fn a_report_is_kept_with_its_counts_and_refused_when_its_summary_disagrees() {
        let mut report = report(
            "1.0.0",
            &[
                ("a", "pass", "TOOL_SUCCESS", 1),
                ("b", "fail", "TIMEOUT", 2),
            ],
        );
        let run = Run::of(&report).unwrap();
        assert_eq!((run.cases.len(), run.passed(), run.failed()), (2, 1, 1));
        assert_eq!(run.cases[1].behaviour(), "TIMEOUT 503 ×2 POSTs");
        report.summary.passed = 2;
        let why = Run::of(&report).unwrap_err();
        assert!(
            why.contains("its summary says 2 cases, 2 passed, 1 failed"),
            "{why}"
        );
    }

    /// A broken line: the error names the file and the line, says what is wrong and how to
    /// fix it.
    #[test]
    fn a_malformed_line_is_named_with_its_file_its_line_and_the_fix() {
        let versions =
            "version\tadapter\tgenerator\tunavailable\n1.0.0\tsdk\tg\t-\n2.0.0\t-\t-\tgone\n";
        let head = "version\tcase\tgrade\tstanding\tverdict\tcalls\n";
        let ok = "1.0.0\ta\tmust\tpass\tpass\tTOOL_SUCCESS\n";
        let bad_cases = [
            (
                "1.0.0\tb\tmust\tpass\tpass\n",
                "5 fields where a line has 6",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tx\ty\n",
                "7 fields where a line has 6",
            ),
            (
                "1.0.0\tb\tmus\tpass\tpass\tTOOL_SUCCESS\n",
                "grade \"mus\" is not one of must, should, info",
            ),
            (
                "1.0.0\tb\tmust\tpassed\tpass\tTOOL_SUCCESS\n",
                "standing \"passed\" is not one of pass, accepted",
            ),
            (
                "1.0.0\tb\tmust\tpass\t-\tTOOL_SUCCESS\n",
                "verdict \"\" is not one of pass",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tTOOL_SUCESS\n",
                "\"TOOL_SUCESS\" is not an outcome",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tHTTP_ERROR status=5o3\n",
                "status=\"5o3\" is not an HTTP status",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tHTTP_ERROR status=70000\n",
                "is not an HTTP status",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tHTTP_ERROR code=1 code=2\n",
                "code is there twice",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tHTTP_ERROR retries=2\n",
                "unknown key \"retries\"",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tHTTP_ERROR 503\n",
                "\"503\" is not key=value",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tno-observation\n",
                "no-observation needs its verdict=",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tunsupported status=1\n",
                "status does not go with unsupported",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tTIMEOUT verdict=hang\n",
                "verdict does not go with TIMEOUT",
            ),
            (
                "1.0.0\tb\tmust\tpass\tpass\tTIMEOUT;TIMEOUT\n",
                "\"TIMEOUT;TIMEOUT\" is not an outcome",
            ),
            (
                "1.0.0\tb\\x\tmust\tpass\tpass\tTIMEOUT\n",
                "case: a backslash before 'x'",
            ),
            (
                "1.0.0\ta\tmust\tpass\tpass\tTIMEOUT\n",
                "case a at 1.0.0 is there twice (line 2 too): keep one",
            ),
            (
                "2.0.0\tb\tmust\tpass\tpass\tTIMEOUT\n",
                "version 2.0.0 is unavailable (versions.tsv line 3)",
            ),
            (
                "3.0.0\tb\tmust\tpass\tpass\tTIMEOUT\n",
                "version 3.0.0 is not in versions.tsv: add its line there",
            ),
            ("-\tb\tmust\tpass\tpass\tTIMEOUT\n", "the version is empty"),
        ];
        for (line, expected) in bad_cases {
            let error = parsed(versions, &format!("{head}{ok}{line}")).unwrap_err();
            let text = error.to_string();
            assert!(
                text.starts_with("history h/cases.tsv:3: "),
                "{line:?}: {text}"
            );
            assert!(text.contains(expected), "{line:?}: {text}");
            assert!(
                text.contains("; correct the line (docs/reports.md"),
                "{line:?}: {text}"
            );
        }
        let bad_versions = [
            (
                "1.0.0\tsdk\tg\tgone\n",
                "names an adapter and why it is unavailable",
            ),
            ("1.0.0\t-\t-\t-\n", "names no adapter and no reason"),
            ("1.0.0\t-\tg\tgone\n", "names no adapter and no reason"),
            (
                "1.0.0\tsdk\tg\t-\n",
                "version 1.0.0 is there twice (line 2 too)",
            ),
        ];
        for (line, expected) in bad_versions {
            let versions =
                format!("version\tadapter\tgenerator\tunavailable\n1.0.0\tsdk\tg\t-\n{line}");
            let text = parsed(&versions, head).unwrap_err().to_string();
            assert!(
                text.starts_with("history h/versions.tsv:3: "),
                "{line:?}: {text}"
            );
            assert!(text.contains(expected), "{line:?}: {text}");
        }
        let text = parsed(versions, "version\tcase\n").unwrap_err().to_string();
        assert!(
            text.starts_with(
                "history h/cases.tsv:1: the header is \"version ⇥ case\", not \"version ⇥ case ⇥ \
                 grade ⇥ standing ⇥ verdict ⇥ calls\""
            ),
            "{text}"
        );
        let text = parsed("", head).unwrap_err().to_string();
        assert!(
            text.contains("h/versions.tsv:1: the header is \"nothing\""),
            "{text}"
        );
    }

    /// No input makes the reader panic: every one-character edit of a valid store is read or
    /// refused.
    #[test]
    fn no_edit_of_a_store_makes_the_reader_panic() {
        let (versions, cases) = texts(&columns());
        let edits = ['\t', '\n', '\\', '-', ';', ' ', '=', 'x', '9', 'é'];
        for (which, text) in [(0, &versions), (1, &cases)] {
            for (at, _) in text.char_indices() {
                let rest = &text[at..];
                let after = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
                let mut variants = vec![format!("{}{after}", &text[..at])];
                variants.extend(edits.iter().map(|c| format!("{}{c}{after}", &text[..at])));
                variants.push(text[..at].to_owned());
                for variant in variants {
                    let _ = match which {
                        0 => parsed(&variant, &cases),
                        _ => parsed(&versions, &variant),
                    };
                }
            }
        }
    }

    #[test]
    fn a_folder_with_one_file_of_two_or_a_file_too_large_or_not_utf8_is_refused() {
        let dir =
            std::env::temp_dir().join(format!("mcp-error-layers-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        assert!(read(&dir).unwrap().is_none());
        std::fs::write(dir.join(CASES), "").unwrap();
        let text = read(&dir).unwrap_err().to_string();
        assert!(
            text.contains("versions.tsv: is missing beside cases.tsv"),
            "{text}"
        );
        std::fs::write(dir.join(VERSIONS), b"version\xff").unwrap();
        let text = read(&dir).unwrap_err().to_string();
        assert!(
            text.contains("versions.tsv: is not UTF-8 text (at byte 7)"),
            "{text}"
        );
        let file = std::fs::File::create(dir.join(VERSIONS)).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let text = read(&dir).unwrap_err().to_string();
        assert!(
            text.contains(
                "versions.tsv: more than 16777216 bytes (16 MiB), the most a history file"
            ),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
