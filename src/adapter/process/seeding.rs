//! What an agent or a bridge row does with an authorization case's start credentials: the
//! `[auth]` table of its `adapter.toml` (docs/adapters.md, "Agent rows"; docs/bridges.md). A
//! user who signed in earlier left the credentials where the program keeps them (its token
//! store in its home) or wrote them into its configuration (a static `Authorization` header):
//! the row says which, as files, arguments and variables, and for a store in a format of the
//! program's own (a file named by a hash, say) a `seed` program that writes it. A row with
//! `[auth]` takes credentials; the authorization cases are `unsupported` for every other.

use super::home::{ConfigFile, Home};
use crate::case::Credentials;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::io::AsyncReadExt;

/// The placeholders an `[auth]` template may use besides the row's own: the start
/// credentials, each empty when the store holds none.
pub const PLACEHOLDERS: [&str; 8] = [
    "{access_token}",
    "{refresh_token}",
    "{expires_at}",
    "{expires_at_ms}",
    "{scope}",
    "{client_id}",
    "{client_secret}",
    "{authorization_server}",
];

/// How long a `seed` program may run: writing a file takes milliseconds, starting Node a
/// second or two on a busy machine.
pub const SEED_TIMEOUT: Duration = Duration::from_secs(20);

/// The most of a failed `seed` program's stderr kept for the start failure's reason.
const SEED_STDERR_KEEP: u64 = 4096;

/// The `[auth]` table of an agent's or a bridge's `adapter.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSpec {
    /// How the row holds the credentials, for people (`its token store under ~/.mcp-auth,
    /// seeded`, `a static Authorization header in its MCP config`).
    pub setting: String,
    /// Words added at the end of the command line.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to its environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written under its fresh home; one whose path a plain `[[file]]` names takes its
    /// place.
    #[serde(default)]
    pub file: Vec<ConfigFile>,
    /// A program run in the fresh home, with the program's environment, before the program
    /// starts: the credentials in `MCP_ERROR_LAYERS_AUTH` (the JSON object adapter programs
    /// get) and the MCP URL the program is given in `MCP_ERROR_LAYERS_MCP_URL`. It must exit 0
    /// within [`SEED_TIMEOUT`]; otherwise the call is an `adapter-error` with its stderr.
    #[serde(default)]
    pub seed: Vec<String>,
}

impl AuthSpec {
    /// `Err` naming the key and the fix: every file under the home, a placeholder it does not
    /// know in no template, no `seed` without a program.
    pub fn check(&self, row_placeholders: &[&str]) -> Result<(), String> {
        if self.setting.trim().is_empty() {
            return Err("`auth.setting` is empty: say how the row holds the credentials".into());
        }
        for file in &self.file {
            file.check().map_err(|e| format!("auth: {e}"))?;
        }
        let templates = self
            .args
            .iter()
            .map(|t| ("auth.args", t))
            .chain(self.env.values().map(|t| ("auth.env", t)))
            .chain(self.file.iter().map(|f| ("auth.file.text", &f.text)))
            .chain(self.seed.iter().map(|t| ("auth.seed", t)));
        for (key, template) in templates {
            if let Some(unknown) = unknown_placeholder(template, row_placeholders) {
                return Err(format!(
                    "`{key}` names `{unknown}`, which is no placeholder (the row's: {}; the \
                     credentials': {})",
                    row_placeholders.join(" "),
                    PLACEHOLDERS.join(" ")
                ));
            }
        }
        Ok(())
    }

    /// The plain files with those this table replaces left out, then this table's.
    pub fn files(&self, plain: &[ConfigFile]) -> Vec<ConfigFile> {
        let replaced = |f: &ConfigFile| self.file.iter().any(|a| a.path == f.path);
        let kept = plain.iter().filter(|f| !replaced(f)).cloned();
        kept.chain(self.file.iter().cloned()).collect()
    }
}

/// The first `{word}` in `template` that is neither the row's placeholder nor a credential's.
fn unknown_placeholder<'t>(template: &'t str, row: &[&str]) -> Option<&'t str> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open..];
        let close = after.find('}')?;
        let word = &after[..=close];
        let is_word = word[1..word.len() - 1]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_');
        if is_word && word.len() > 2 && !row.contains(&word) && !PLACEHOLDERS.contains(&word) {
            return Some(word);
        }
        rest = &after[1..];
    }
    None
}

/// `template` with the credential placeholders filled (the row's own are filled before).
pub fn fill(template: &str, credentials: &Credentials) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let now = i64::try_from(now).unwrap_or(i64::MAX);
    let expires_at = credentials.expires_in.map(|s| now.saturating_add(s));
    let shown = |n: Option<i64>| n.map(|n| n.to_string()).unwrap_or_default();
    template
        .replace(
            "{access_token}",
            credentials.access_token.as_deref().unwrap_or_default(),
        )
        .replace(
            "{refresh_token}",
            credentials.refresh_token.as_deref().unwrap_or_default(),
        )
        .replace("{expires_at}", &shown(expires_at))
        .replace(
            "{expires_at_ms}",
            &shown(expires_at.map(|s| s.saturating_mul(1000))),
        )
        .replace("{scope}", &credentials.scope)
        .replace("{client_id}", &credentials.client_id)
        .replace(
            "{client_secret}",
            credentials.client_secret.as_deref().unwrap_or_default(),
        )
        .replace("{authorization_server}", &credentials.authorization_server)
}

/// The program's command line and environment in one case, its files written in `home`: the
/// row's `command`, `env` and `files`, each filled by `fill`; in an authorization case (`auth`)
/// the credentials filled too, the `[auth]` table's words, variables and files added and its
/// seed run (told `mcp_url`, the URL the program is given).
pub(super) async fn set_up(
    home: &Home,
    plain: (&[String], &BTreeMap<String, String>, &[ConfigFile]),
    auth: Option<(&AuthSpec, &Credentials)>,
    fill: impl Fn(&str) -> String,
    mcp_url: &str,
) -> Result<(Vec<String>, Vec<(String, String)>), String> {
    let (command, variables, files) = plain;
    let filled = |text: &str| match auth {
        Some((_, credentials)) => self::fill(&fill(text), credentials),
        None => fill(text),
    };
    let files = auth.map_or_else(|| files.to_vec(), |(a, _)| a.files(files));
    home.write(&files, filled)?;
    let mut env = home.environment();
    env.extend(variables.iter().map(|(k, v)| (k.clone(), filled(v))));
    let mut argv: Vec<String> = command.iter().map(|w| filled(w)).collect();
    if let Some((auth, credentials)) = auth {
        env.extend(auth.env.iter().map(|(k, v)| (k.clone(), filled(v))));
        argv.extend(auth.args.iter().map(|w| filled(w)));
        let seed: Vec<String> = auth.seed.iter().map(|w| filled(w)).collect();
        run_seed(&seed, home, &env, credentials, mcp_url).await?;
    }
    Ok((argv, env))
}

/// Runs the `seed` program (`argv`, filled) in `home` with `environment`, the credentials and
/// `mcp_url`; `Err` says why it did not exit 0 in time, with the end of its stderr.
async fn run_seed(
    argv: &[String],
    home: &Home,
    environment: &[(String, String)],
    credentials: &Credentials,
    mcp_url: &str,
) -> Result<(), String> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .current_dir(home.0.join("work"))
        .env_clear()
        .envs(environment.iter().cloned())
        .env("MCP_ERROR_LAYERS_AUTH", credentials.to_json().to_string())
        .env("MCP_ERROR_LAYERS_MCP_URL", mcp_url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let shown = Path::new(program).display();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start the auth seed {shown}: {e}"))?;
    let stderr = child.stderr.take();
    let finished = async {
        let mut kept = Vec::new();
        if let Some(pipe) = stderr {
            let mut pipe = pipe.take(SEED_STDERR_KEEP);
            let _ = pipe.read_to_end(&mut kept).await;
        }
        (child.wait().await, kept)
    };
    match tokio::time::timeout(SEED_TIMEOUT, finished).await {
        Err(_) => Err(format!(
            "the auth seed {shown} did not finish within {} s",
            SEED_TIMEOUT.as_secs()
        )),
        Ok((Err(e), _)) => Err(format!("the auth seed {shown} failed: {e}")),
        Ok((Ok(status), _)) if status.success() => Ok(()),
        Ok((Ok(status), kept)) => Err(format!(
            "the auth seed {shown} exited with {status}: {}",
            crate::credential::redact(String::from_utf8_lossy(&kept).trim())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROW: [&str; 2] = ["{home}", "{mcp_url}"];

    fn spec(text: &str) -> Result<AuthSpec, String> {
        let spec: AuthSpec = toml::from_str(text).map_err(|e| e.to_string())?;
        spec.check(&ROW)?;
        Ok(spec)
    }

    fn credentials() -> Credentials {
        Credentials {
            access_token: Some("mel_at_1_x".into()),
            refresh_token: None,
            expires_in: Some(60),
            scope: "mcp:tools".into(),
            client_id: "mel-client".into(),
            client_secret: None,
            authorization_server: "http://127.0.0.1:9".into(),
            token_endpoint: "http://127.0.0.1:9/token".into(),
            redirect_uri: "http://127.0.0.1:9/callback".into(),
        }
    }

    #[test]
    fn templates_name_only_known_placeholders_and_files_stay_in_the_home() {
        let good = spec(
            "setting = \"a header\"\nargs = [\"--header\", \"Authorization: Bearer {access_token}\"]\n\
             [[file]]\npath = \"a.json\"\ntext = '{\"url\": \"{mcp_url}\", \"t\": \"{refresh_token}\"}'\n",
        );
        assert!(good.is_ok(), "{good:?}");
        let unknown = spec("setting = \"x\"\nargs = [\"{acess_token}\"]").unwrap_err();
        assert!(
            unknown.contains("`auth.args` names `{acess_token}`"),
            "{unknown}"
        );
        let outside = spec("setting = \"x\"\n[[file]]\npath = \"../a\"\ntext = \"\"").unwrap_err();
        assert!(outside.contains("auth: `file.path"), "{outside}");
        let empty = spec("setting = \" \"").unwrap_err();
        assert!(empty.contains("auth.setting"), "{empty}");
        assert!(spec("setting = \"x\"\nheaders = 1").is_err());
    }

    #[test]
    fn credentials_fill_and_an_absent_one_is_empty() {
        let filled = fill(
            "{access_token}|{refresh_token}|{scope}|{client_id}|{client_secret}|{authorization_server}",
            &credentials(),
        );
        assert_eq!(
            filled,
            "mel_at_1_x||mcp:tools|mel-client||http://127.0.0.1:9"
        );
        let at: i64 = fill("{expires_at}", &credentials()).parse().unwrap();
        let ms: i64 = fill("{expires_at_ms}", &credentials()).parse().unwrap();
        assert!((ms / 1000 - at).abs() <= 1, "{at} {ms}");
        let none = Credentials {
            expires_in: None,
            ..credentials()
        };
        assert_eq!(fill("[{expires_at}{expires_at_ms}]", &none), "[]");
    }

    #[test]
    fn an_auth_file_takes_the_place_of_the_plain_one_with_its_path() {
        let plain = vec![
            ConfigFile {
                path: "mcp.json".into(),
                text: "plain".into(),
            },
            ConfigFile {
                path: "other".into(),
                text: "kept".into(),
            },
        ];
        let spec = spec("setting = \"x\"\n[[file]]\npath = \"mcp.json\"\ntext = \"auth\"").unwrap();
        let texts: Vec<(String, String)> = spec
            .files(&plain)
            .into_iter()
            .map(|f| (f.path, f.text))
            .collect();
        assert_eq!(
            texts,
            [
                ("other".to_owned(), "kept".to_owned()),
                ("mcp.json".to_owned(), "auth".to_owned())
            ]
        );
    }

    #[tokio::test]
    async fn a_seed_gets_the_credentials_and_its_failure_says_why() {
        let home = Home::new("seed-test", 0).unwrap();
        let env = home.environment();
        let write = [
            "sh".to_owned(),
            "-c".to_owned(),
            "printf '%s %s' \"$MCP_ERROR_LAYERS_AUTH\" \"$MCP_ERROR_LAYERS_MCP_URL\" > ../seeded"
                .to_owned(),
        ];
        run_seed(
            &write,
            &home,
            &env,
            &credentials(),
            "http://127.0.0.1:9/mcp",
        )
        .await
        .unwrap();
        let seeded = std::fs::read_to_string(home.0.join("seeded")).unwrap();
        assert!(
            seeded.contains("\"access_token\":\"mel_at_1_x\""),
            "{seeded}"
        );
        assert!(seeded.ends_with(" http://127.0.0.1:9/mcp"), "{seeded}");

        let fail = [
            "sh".to_owned(),
            "-c".to_owned(),
            "echo no store >&2; exit 3".to_owned(),
        ];
        let why = run_seed(&fail, &home, &env, &credentials(), "u")
            .await
            .unwrap_err();
        assert!(
            why.contains("exited with exit status: 3: no store"),
            "{why}"
        );
        let missing = ["/nonexistent/seed".to_owned()];
        let why = run_seed(&missing, &home, &env, &credentials(), "u")
            .await
            .unwrap_err();
        assert!(why.starts_with("cannot start the auth seed"), "{why}");
    }
}
