//! A file clobbered through a planted link (issue 44, item 1): links and folders planted in the
//! temporary folder at every name the harness's old naming (process id and counter) could pick,
//! and links planted inside a home, never make the harness write outside its own fresh,
//! private folders.
//!
//! Each scenario runs in a process of its own (this binary again, one `#[ignore]`d test) whose
//! `TMPDIR` is a folder of the test's own, so that nothing is planted in the machine's `/tmp`
//! and a write anywhere under the test's folder is seen.

#![cfg(unix)]

use mcp_error_layers::adapter::process::home::{ConfigFile, Home};
use mcp_error_layers::stdio::{Session, StdioCommand};
use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

/// Set by [`in_own_tmp`] for the scenario it runs: the scenario's `TMPDIR`.
const OWN_TMP: &str = "MCP_ERROR_LAYERS_TEST_OWN_TMPDIR";

/// What the victims hold; any change to one is a clobber.
const VICTIM_TEXT: &str = "the victim's own bytes\n";

/// Runs the ignored test `name` of this binary in a child whose `TMPDIR` is `<own>/tmp`, `<own>`
/// a fresh folder of this test; it must pass.
fn in_own_tmp(name: &str) {
    let own = tempfile::tempdir().unwrap();
    let tmp = own.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TMPDIR", &tmp)
        .env(OWN_TMP, &tmp)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{name} failed:\n{said}");
    assert!(said.contains("1 passed"), "{name} did not run:\n{said}");
}

/// The scenario's `TMPDIR`, or `None` (and a note) when it is not run by [`in_own_tmp`].
fn own_tmp() -> Option<PathBuf> {
    let tmp = PathBuf::from(std::env::var_os(OWN_TMP)?);
    assert_eq!(std::env::temp_dir(), tmp, "TMPDIR is the test's own");
    Some(tmp)
}

/// What is at a path, links not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Folder(u32),
    File(Vec<u8>, u32),
    Link(PathBuf),
}

/// Every path under `root` (itself excluded) and what is there, links not followed.
fn tree(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut all = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for item in std::fs::read_dir(&dir).unwrap() {
            let path = item.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o777;
            let entry = match meta.file_type() {
                t if t.is_symlink() => Entry::Link(std::fs::read_link(&path).unwrap()),
                t if t.is_dir() => {
                    todo.push(path.clone());
                    Entry::Folder(mode)
                }
                _ => Entry::File(std::fs::read(&path).unwrap(), mode),
            };
            all.insert(path, entry);
        }
    }
    all
}

/// `tree` without what lies in `folders` (the harness's own, while they live).
fn outside(mut tree: BTreeMap<PathBuf, Entry>, folders: &[&Path]) -> BTreeMap<PathBuf, Entry> {
    tree.retain(|path, _| !folders.iter().any(|f| path.starts_with(f)));
    tree
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Victims beside `tmp`: a file, and a folder holding one (every planted link points there).
struct Victims {
    file: PathBuf,
    folder: PathBuf,
}

fn victims(tmp: &Path) -> Victims {
    let at = tmp.parent().unwrap().join("victims");
    let folder = at.join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    for name in ["file", "session.json", ".cfg"] {
        std::fs::write(folder.join(name), VICTIM_TEXT).unwrap();
    }
    let file = at.join("file");
    std::fs::write(&file, VICTIM_TEXT).unwrap();
    Victims { file, folder }
}

/// As many names as the old counters could reach in a scenario, and more.
const PLANTED: u64 = 12;

#[test]
fn a_stdio_session_takes_no_planted_folder_or_link() {
    in_own_tmp("planted_stdio_sessions");
}

#[test]
#[ignore = "run by a_stdio_session_takes_no_planted_folder_or_link, with a TMPDIR of its own"]
fn planted_stdio_sessions() {
    let Some(tmp) = own_tmp() else {
        eprintln!("skipped: run through a_stdio_session_takes_no_planted_folder_or_link");
        return;
    };
    let own = tmp.parent().unwrap();
    let victim = victims(&tmp);
    let pid = std::process::id();
    for n in 0..PLANTED {
        let name = tmp.join(format!("mcp-error-layers-stdio-{pid}-{n}"));
        match n % 3 {
            // An existing folder whose session file is a link to the victim.
            0 => {
                std::fs::create_dir(&name).unwrap();
                symlink(&victim.file, name.join("session.json")).unwrap();
            }
            // The folder's name a link to a folder of the victim's.
            1 => symlink(&victim.folder, &name).unwrap(),
            // An existing folder, open to all, with nothing in it.
            _ => {
                std::fs::create_dir(&name).unwrap();
                std::fs::set_permissions(&name, std::fs::Permissions::from_mode(0o777)).unwrap();
            }
        }
    }
    let before = tree(own);

    let wire: std::net::SocketAddr = "127.0.0.1:9".parse().unwrap();
    let commands: Vec<StdioCommand> = (0..PLANTED)
        .map(|_| StdioCommand::create(Path::new("/bin/false"), wire).unwrap())
        .collect();
    let folders: Vec<&Path> = commands.iter().map(StdioCommand::folder).collect();
    for (command, folder) in commands.iter().zip(&folders) {
        assert_eq!(folder.parent(), Some(tmp.as_path()));
        assert!(!before.contains_key(*folder), "took {}", folder.display());
        let name = folder.file_name().unwrap().to_string_lossy();
        assert!(
            name.starts_with(&format!("mcp-error-layers-stdio-{pid}-")),
            "{name}"
        );
        assert_eq!(mode(folder), 0o700, "{}", folder.display());
        let file = folder.join("session.json");
        assert_eq!(command.session_file(), file.display().to_string());
        assert_eq!(mode(&file), 0o600);
        assert!(std::fs::symlink_metadata(&file).unwrap().is_file());
        assert_eq!(Session::read(&file).unwrap(), Session::new(wire));
    }
    assert_eq!(
        outside(tree(own), &folders),
        before,
        "nothing else is touched"
    );
    let kept: Vec<PathBuf> = folders.iter().map(|f| f.to_path_buf()).collect();
    drop(commands);
    assert!(kept.iter().all(|f| !f.exists()), "removed when dropped");
    assert_eq!(tree(own), before, "victims byte for byte as they were");
}

/// The config files a row writes into its home: at the top, and in folders to make.
fn config_files() -> Vec<ConfigFile> {
    [".cfg", ".codex/config.toml", ".config/app/settings.json"]
        .into_iter()
        .map(|path| ConfigFile {
            path: path.to_owned(),
            text: "home = \"{home}\"\n".to_owned(),
        })
        .collect()
}

#[test]
fn an_agent_or_bridge_home_takes_no_planted_folder_or_link() {
    in_own_tmp("planted_homes");
}

#[test]
#[ignore = "run by an_agent_or_bridge_home_takes_no_planted_folder_or_link, with a TMPDIR of its own"]
fn planted_homes() {
    let Some(tmp) = own_tmp() else {
        eprintln!("skipped: run through an_agent_or_bridge_home_takes_no_planted_...");
        return;
    };
    let own = tmp.parent().unwrap();
    let victim = victims(&tmp);
    let pid = std::process::id();
    let clients = [0, 1, 2, 7];
    for kind in ["agent", "bridge"] {
        for client in clients {
            for n in 0..PLANTED {
                let name = tmp.join(format!("mcp-error-layers-{kind}-{pid}-{client}-{n}"));
                if n % 2 == 1 {
                    symlink(&victim.folder, &name).unwrap();
                    continue;
                }
                // An existing home whose config file, config folder, work and tmp folders
                // are links to the victim's.
                std::fs::create_dir(&name).unwrap();
                symlink(&victim.file, name.join(".cfg")).unwrap();
                for sub in [".codex", ".config", "work", "tmp"] {
                    symlink(&victim.folder, name.join(sub)).unwrap();
                }
            }
        }
    }
    let before = tree(own);

    let mut homes = Vec::new();
    for kind in ["agent", "bridge"] {
        for client in clients {
            let home = Home::new(kind, client).unwrap();
            let path = home.0.clone();
            home.write(&config_files(), |text| {
                text.replace("{home}", &path.display().to_string())
            })
            .unwrap();
            homes.push((kind, home));
        }
    }
    let folders: Vec<&Path> = homes.iter().map(|(_, home)| home.0.as_path()).collect();
    for ((kind, home), folder) in homes.iter().zip(&folders) {
        let home_prefix = format!("mcp-error-layers-{kind}-{pid}-");
        assert_eq!(folder.parent(), Some(tmp.as_path()));
        assert!(!before.contains_key(*folder), "took {}", folder.display());
        let name = folder.file_name().unwrap().to_string_lossy();
        assert!(name.starts_with(&home_prefix), "{name}");
        let expected = format!("home = \"{}\"\n", folder.display());
        let mine = tree(folder);
        for file in config_files() {
            let at = folder.join(&file.path);
            let entry = mine.get(&at);
            assert_eq!(
                entry,
                Some(&Entry::File(expected.clone().into(), 0o600)),
                "{file:?}"
            );
        }
        for sub in ["", "work", "tmp", ".codex", ".config", ".config/app"] {
            assert_eq!(mode(&folder.join(sub)), 0o700, "{}/{sub}", folder.display());
        }
        let env: BTreeMap<String, String> = home.environment().into_iter().collect();
        assert_eq!(env["HOME"], folder.display().to_string());
        assert_eq!(env["TMPDIR"], folder.join("tmp").display().to_string());
    }
    assert_eq!(
        outside(tree(own), &folders),
        before,
        "nothing else is touched"
    );
    let kept: Vec<PathBuf> = folders.iter().map(|f| f.to_path_buf()).collect();
    drop(homes);
    assert!(kept.iter().all(|f| !f.exists()), "removed when dropped");
    assert_eq!(tree(own), before, "victims byte for byte as they were");
}

#[test]
fn a_link_planted_inside_a_home_makes_its_write_fail_and_its_target_is_untouched() {
    in_own_tmp("links_inside_a_home");
}

#[test]
#[ignore = "run by a_link_planted_inside_a_home_makes_its_write_fail_..., with a TMPDIR of its own"]
fn links_inside_a_home() {
    let Some(tmp) = own_tmp() else {
        eprintln!("skipped: run through a_link_planted_inside_a_home_makes_its_write_...");
        return;
    };
    let own = tmp.parent().unwrap();
    let victim = victims(&tmp);
    let nowhere = own.join("victims/not-there");
    let home = Home::new("agent", 3).unwrap();
    let file = |path: &str| ConfigFile {
        path: path.to_owned(),
        text: "written".to_owned(),
    };
    // At the config file's own path: to a file, and dangling (a file it would create).
    symlink(&victim.file, home.0.join(".cfg")).unwrap();
    symlink(&nowhere, home.0.join(".dangling")).unwrap();
    // At a parent folder of it: the config folder, and one further down.
    symlink(&victim.folder, home.0.join(".codex")).unwrap();
    std::fs::create_dir(home.0.join(".config")).unwrap();
    symlink(&victim.folder, home.0.join(".config/app")).unwrap();
    let before = outside(tree(own), &[&home.0]);

    let cases = [
        (".cfg", ".cfg", "File exists"),
        (".dangling", ".dangling", "File exists"),
        (".codex/config.toml", ".codex", "symbolic link"),
        (".config/app/session.json", ".config/app", "symbolic link"),
    ];
    for (path, link, why) in cases {
        let err = home.write(&[file(path)], |t| t.to_owned()).unwrap_err();
        let shown = home.0.join(link).display().to_string();
        assert!(err.contains(&shown), "{path}: {err}");
        assert!(
            err.contains(&format!("`file.path = {path:?}`")),
            "{path}: {err}"
        );
        assert!(err.contains(why), "{path}: {err}");
    }
    assert_eq!(
        outside(tree(own), &[&home.0]),
        before,
        "the targets are untouched"
    );
    assert!(!nowhere.exists());
    assert_eq!(std::fs::read_to_string(&victim.file).unwrap(), VICTIM_TEXT);

    // The same file twice is refused too: the first one stays.
    let twice = [file("twice.toml"), file("twice.toml")];
    let err = home.write(&twice, |t| t.to_owned()).unwrap_err();
    assert!(
        err.contains("twice.toml") && err.contains("File exists"),
        "{err}"
    );
}
