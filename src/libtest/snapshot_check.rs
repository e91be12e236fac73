//! Checking case records against their insta snapshots, in a folder of the client crate.
//!
//! The assertion itself is a function the [`main!`](crate::main!) macro generates in the client's
//! test file: insta's macros capture the crate they expand in (its workspace root, and the
//! `source:` line of the snapshot header), which must be the client crate, not this library.

use super::quiet_panic::quietly;
use super::wording;
use crate::record::CaseRecord;
use crate::snapshot::SnapshotView;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

/// Asserts one snapshot by name: `insta::assert_yaml_snapshot!(name, view)`, expanded in the
/// client crate.
pub type AssertSnapshot = fn(&str, &SnapshotView);

/// Where snapshots go and how to assert one.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotCheck {
    /// The absolute snapshot folder.
    pub folder: PathBuf,
    /// The folder as a person reads it, for messages.
    pub shown: String,
    /// The assertion.
    pub assert: AssertSnapshot,
}

impl SnapshotCheck {
    /// Checks `record` against its snapshot; a mismatch (or a new snapshot) is an error with the
    /// command that reviews it. insta prints the diff itself and writes `.snap.new` files as
    /// `INSTA_UPDATE` says; a `.snap.new` that a passing or accepted snapshot made obsolete is
    /// removed.
    pub(crate) fn check(&self, record: &CaseRecord) -> Result<(), String> {
        let name = name(&record.id);
        let view = SnapshotView::of(record);
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(&self.folder);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(record.summary.clone());
        // insta reports a mismatch by panicking; the record is already kept by then, and the
        // panic becomes this test's failure message, so the panic hook need not print it.
        let is_new = !self.folder.join(format!("{name}.snap")).exists();
        let assert = self.assert;
        let asserted =
            quietly(|| catch_unwind(AssertUnwindSafe(|| settings.bind(|| assert(&name, &view)))));
        asserted.map_err(|_| wording::snapshot_mismatch(&self.shown, &name, is_new))?;
        self.forget_pending(&name);
        Ok(())
    }

    /// Removes the `.snap.new` of a snapshot that passed or was just accepted: insta removes it
    /// only when the snapshot matches, not when `INSTA_UPDATE=always` writes the snapshot in
    /// place, and a stale one would show up again in `cargo insta review`.
    fn forget_pending(&self, name: &str) {
        let pending = self.folder.join(format!("{name}.snap.new"));
        match std::fs::remove_file(&pending) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                eprintln!("{}", wording::stale_pending(&pending, &e));
            }
            _ => {}
        }
    }
}

/// The snapshot name of a case: its id with `/` as `__` (`sse/final-result` →
/// `sse__final-result`), as snapshot names cannot hold path separators.
pub(crate) fn name(id: &str) -> String {
    id.replace('/', "__")
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_flatten_the_id() {
        assert_eq!(super::name("sse/final-result"), "sse__final-result");
        assert_eq!(super::name("a/b/c"), "a__b__c");
    }
}
