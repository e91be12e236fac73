//! The folders and files the harness makes for itself under the temporary folder (a stdio case
//! run's session folder, an agent's or a bridge's home), made so that nothing another user
//! planted there is ever taken for one of ours.
//!
//! The temporary folder is shared by every user of the machine. A folder with a predictable
//! name that is accepted when it already exists, or a file written by following a link, lets
//! another user make the harness write where they chose: a link planted at a session file's
//! name gets its target overwritten, a planted home gets an agent's config and the agent itself
//! (issue 44). So:
//! - a folder of ours has a random name made by an exclusive create (`tempfile`), mode 0700,
//!   and is removed when its owner is dropped;
//! - a sub-folder inside one is made one component at a time, mode 0700; one that exists is
//!   taken only if it is a real folder, never a symbolic link;
//! - a file inside one is created exclusively (`O_CREAT | O_EXCL`) and without following a link
//!   (`O_NOFOLLOW`), mode 0600: a planted file or link makes the write fail, naming the path.

use std::io;
use std::path::{Component, Path, PathBuf};

/// The mode of every folder the harness makes for itself: its user's only.
pub(crate) const FOLDER_MODE: u32 = 0o700;

/// The mode of every file the harness writes into one of its folders.
pub(crate) const FILE_MODE: u32 = 0o600;

/// A new private folder `PREFIX<random>` under the temporary folder (`TMPDIR`), removed when
/// the returned value is dropped. Never an existing folder: the name is drawn again until an
/// exclusive create succeeds.
pub(crate) fn folder(prefix: &str) -> io::Result<tempfile::TempDir> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(prefix);
    // tempfile makes folders with the default mode (0777 less the umask) unless told.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(FOLDER_MODE));
    }
    builder.tempdir()
}

/// Makes the folders of the relative path `rel` under `root`, one component at a time, mode
/// 0700, and returns the last one. A component that exists is taken only if it is a folder and
/// not a symbolic link; `Err` names it. `rel` must be relative and without `..` (checked by the
/// caller: a config file's path is).
pub(crate) fn subfolders(root: &Path, rel: &Path) -> Result<PathBuf, String> {
    let mut at = root.to_path_buf();
    for part in rel.components() {
        let Component::Normal(name) = part else {
            return Err(format!(
                "{}: a relative path without `..` is expected under {}",
                rel.display(),
                root.display()
            ));
        };
        at.push(name);
        subfolder(&at)?;
    }
    Ok(at)
}

/// Makes the folder `path` (its parent exists), mode 0700, or takes it if it is already a real
/// folder; `Err` names it if it is a link or anything else.
fn subfolder(path: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(FOLDER_MODE);
    }
    match builder.create(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = std::fs::symlink_metadata(path)
                .map_err(|e| format!("cannot make {}: {e}", path.display()))?;
            match meta.file_type() {
                kind if kind.is_dir() => Ok(()),
                kind if kind.is_symlink() => Err(format!(
                    "cannot make {}: it is a symbolic link, which the harness never follows in a \
                     folder of its own; remove the link (nothing but the harness should write \
                     there)",
                    path.display()
                )),
                _ => Err(format!(
                    "cannot make {}: it exists and is not a folder; remove it",
                    path.display()
                )),
            }
        }
        Err(e) => Err(format!("cannot make {}: {e}", path.display())),
    }
}

/// Creates the file `path` with `bytes`, mode 0600: exclusively (`Err` if anything exists
/// there, a dangling link too) and without following a link. The error is the system's
/// (`File exists`, `Too many levels of symbolic links`); the caller names the path.
pub(crate) fn create_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(FILE_MODE)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits());
    }
    options.open(path)?.write_all(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn a_folder_is_new_private_and_gone_when_dropped() {
        let (a, b) = (
            folder("fresh-test-").unwrap(),
            folder("fresh-test-").unwrap(),
        );
        assert_ne!(a.path(), b.path());
        for dir in [&a, &b] {
            let name = dir
                .path()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            assert!(name.starts_with("fresh-test-") && name.len() > "fresh-test-".len());
            assert_eq!(mode(dir.path()), FOLDER_MODE, "{}", dir.path().display());
        }
        let gone = a.path().to_path_buf();
        drop(a);
        assert!(!gone.exists());
    }

    #[test]
    fn a_file_is_created_exclusively_private_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();

        let fresh = dir.path().join("fresh");
        create_file(&fresh, b"ours").unwrap();
        assert_eq!(std::fs::read(&fresh).unwrap(), b"ours");
        assert_eq!(mode(&fresh), FILE_MODE);
        // Not twice: an existing file is never overwritten.
        assert!(create_file(&fresh, b"again").is_err());
        assert_eq!(std::fs::read(&fresh).unwrap(), b"ours");

        let link = dir.path().join("link");
        symlink(&victim, &link).unwrap();
        assert!(create_file(&link, b"ours").is_err());
        let dangling = dir.path().join("dangling");
        symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(create_file(&dangling, b"ours").is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
        assert!(!dir.path().join("nowhere").exists());
    }

    #[test]
    fn subfolders_are_private_one_at_a_time_and_a_link_among_them_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        let made = subfolders(&root, Path::new("a/b")).unwrap();
        assert_eq!(made, root.join("a/b"));
        assert_eq!((mode(&root.join("a")), mode(&made)), (0o700, 0o700));
        // An existing real folder is taken.
        assert_eq!(subfolders(&root, Path::new("a/b")).unwrap(), made);

        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        symlink(&elsewhere, root.join("a/link")).unwrap();
        let err = subfolders(&root, Path::new("a/link/c")).unwrap_err();
        assert!(
            err.contains(&root.join("a/link").display().to_string()),
            "{err}"
        );
        assert!(err.contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

        std::fs::write(root.join("file"), "").unwrap();
        let err = subfolders(&root, Path::new("file/c")).unwrap_err();
        assert!(err.contains("is not a folder"), "{err}");
        assert!(subfolders(&root, Path::new("../up")).is_err());
        assert!(!dir.path().join("up").exists());
    }
}
